"""`jury estimate` / `jury run --dry-run`: calls, tokens and cost without calling anyone, without
a key, and only for the cases that would reach the judges."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import case, scores
from jury import Juror, Panel, load_cases, load_panel, load_rubric
from jury.adapters import Usage, price
from jury.checks import CheckSuite
from jury.cli import main
from jury.runs._estimate import estimate
from jury.runs._records import read_verdicts
from jury.testing import ScriptedModel

ROOT = Path(__file__).parents[2]
EXAMPLE = ROOT / "examples" / "shopnest" / "cases.jsonl"
JURY = ROOT / "examples" / "shopnest" / "jury.toml"
KEYS = ("ANTHROPIC_API_KEY", "OPENAI_API_KEY", "GOOGLE_API_KEY", "GEMINI_API_KEY")


@pytest.fixture
def no_keys(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in KEYS:
        monkeypatch.delenv(name, raising=False)


def test_estimate_counts_calls_tokens_and_cost_as_a_range_without_calling() -> None:
    priced = ScriptedModel([scores(5)], name="scripted/priced", cost_per_call=0.002)
    unpriced = ScriptedModel([scores(5)], name="scripted/unpriced")
    panel = Panel(
        jurors=(Juror(model=priced, samples=3), Juror(model=unpriced)), max_tokens=500, reasks=2
    )
    cases = [case(f"c{i}") for i in range(10)]
    result = estimate(panel, cases)
    rows = {row.juror: row for row in result.jurors}
    assert priced.calls == unpriced.calls == 0
    assert (result.cases, result.judged, result.spared) == (10, 10, 0)
    assert rows["scripted/priced"].calls == 30
    assert rows["scripted/priced"].max_calls == 90  # every reply re-asked twice
    assert rows["scripted/unpriced"].calls == 10
    prompt = load_rubric(panel.rubric).prompts(cases[0])[0]
    tokens = (len(prompt.system) + len(prompt.user)) // 4
    assert rows["scripted/unpriced"].input_tokens == 10 * tokens
    assert rows["scripted/unpriced"].max_output_tokens == 10 * 500 * 3
    assert rows["scripted/priced"].cost == pytest.approx(30 * 0.002)
    assert rows["scripted/unpriced"].cost is None
    assert result.total("calls") == 40
    assert result.total("max_calls") == 120
    assert result.total("cost") is None


def test_models_without_keys_are_priced_from_their_names(
    no_keys: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    name = "gpt-4.1-mini-2025-04-14"
    panel = Panel(jurors=(f"openai/{name}", "openai-api/acme/judge-v2"), reasks=0)
    monkeypatch.delenv("ACME_BASE_URL", raising=False)
    cases = [case(f"c{i}") for i in range(4)]
    result = estimate(panel, cases)
    openai, acme = result.jurors
    assert openai.calls == acme.calls == 4
    one_call = price("openai", name, Usage(openai.input_tokens // 4, 90))
    assert one_call is not None
    assert openai.cost == pytest.approx(4 * one_call)
    assert acme.cost is None  # a compatible server's price is never guessed
    assert result.notes == [
        f"openai/{name}: OPENAI_API_KEY is not set; priced from its name",
        "openai-api/acme/judge-v2: ACME_BASE_URL is not set; priced from its name",
        # Unknown, and why: a run learns a model runtime's $0 from its server, not a name.
        "openai-api/acme/judge-v2: an OpenAI-compatible service is priced once its server "
        "says what it is (a model runtime such as llama.cpp, Ollama or vLLM: $0; `jury "
        "doctor` asks it); no call is made here",
    ]
    # With a key, the model is resolved (nothing is sent) and priced the same.
    monkeypatch.setenv("OPENAI_API_KEY", "sk-not-a-real-key")
    keyed = estimate(panel, cases)
    assert keyed.jurors[0].cost == openai.cost
    assert keyed.notes == result.notes[1:]


def test_a_local_server_s_unknown_price_says_how_it_becomes_known(
    no_keys: None,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    # Resolved (its URL and key set; nothing is sent): still no price before its server says
    # it is a model runtime. The total says unknown, with no "others" when there are none.
    monkeypatch.setenv("LOCAL_BASE_URL", "http://127.0.0.1:9/v1")
    monkeypatch.setenv("LOCAL_API_KEY", "none")
    jury = tmp_path / "jury.toml"
    jury.write_text('jurors = ["openai-api/local/smollm2-135m"]\n', encoding="utf-8")
    assert main(["estimate", str(EXAMPLE), "--jury", str(jury), "--no-checks"]) == 0
    out = " ".join(capsys.readouterr().out.split())
    assert "cost unknown (no price for openai-api/local/smollm2-135m)." in out
    assert "the others" not in out
    assert (
        "openai-api/local/smollm2-135m: an OpenAI-compatible service is priced once its server "
        "says what it is (a model runtime such as llama.cpp, Ollama or vLLM: $0;" in out
    )


def test_the_estimate_counts_the_calls_a_run_makes(
    no_keys: None, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The example's checks fail ten of its 24 cases: a run spares their judges, and so
    # does the estimate. Its least count is what the run makes (offline jurors reply valid).
    panel = load_panel(JURY)
    result = estimate(panel, load_cases(EXAMPLE), checks=CheckSuite.from_settings(panel.checks))
    assert (result.cases, result.spared, result.judged) == (24, 10, 14)
    monkeypatch.chdir(tmp_path)
    argv = ["run", str(EXAMPLE), "--jury", str(JURY), "--out", "run", "--no-cache"]
    assert main([*argv, "--progress", "none"]) == 1
    verdicts = read_verdicts(tmp_path / "run")
    made = sum(vote.calls.attempts for v in verdicts for vote in v.votes)
    assert made == result.total("calls") == 14 * 3
    assert sum(1 for v in verdicts if v.judges_spared) == result.spared
    everything = estimate(panel, load_cases(EXAMPLE), checks=None)
    assert everything.total("calls") == 24 * 3


@pytest.mark.parametrize("argv", [["estimate"], ["run", "--dry-run"]])
def test_the_cli_estimate(
    argv: list[str], no_keys: None, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main([argv[0], str(EXAMPLE), "--jury", str(JURY), *argv[1:]]) == 0
    out = capsys.readouterr().out
    assert "Estimate (no call made)" in out
    assert "24 case(s), 14 would reach the judges; 10 spared by a failed required check" in out
    assert "Total: 42 calls, at most 126" in out  # three offline jurors, two re-asks at most
    assert "Gate" not in out  # nothing was judged
    assert main([argv[0], str(EXAMPLE), "--jury", str(JURY), "--no-checks", *argv[1:]]) == 0
    assert "Total: 72 calls" in capsys.readouterr().out


def test_a_panel_of_real_models_is_estimated_without_any_key(tmp_path: Path) -> None:
    jury_file = tmp_path / "jury.toml"
    jury_file.write_text(
        'jurors = ["anthropic/claude-haiku-4-5-20251001", "openai/gpt-4.1-mini-2025-04-14", '
        '"google/gemini-2.5-flash"]\n'
    )
    env = {k: v for k, v in os.environ.items() if k not in KEYS}
    done = subprocess.run(
        [sys.executable, "-m", "jury", "estimate", str(EXAMPLE), "--jury", str(jury_file)],
        capture_output=True,
        text=True,
        env=env,
        check=False,
        cwd=ROOT,
    )
    assert done.returncode == 0, done.stderr
    assert "Total: 42 calls" in done.stdout  # the built-in checks spare the same ten cases
    assert "unknown" not in done.stdout
    assert "ANTHROPIC_API_KEY is not set; priced from its name" in done.stdout
