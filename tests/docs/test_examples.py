"""The manual's examples do what the manual says: its case line loads, its jury file parses,
and its judge model and rubric kind judge cases (tests/docs/test_code_blocks.py runs every
block; these hold what a block means)."""

from __future__ import annotations

import json
import re
import tomllib
from pathlib import Path
from typing import Any

import pytest

from jury import Case, Jury, Panel, ProviderLimits, Verdict, VoteStatus, load_cases
from jury.adapters import _profile, _registry
from jury.engine._limits import limits_for
from jury.panel._panel import panel_from_mapping
from jury.testing import FakeClock

DOCS = Path(__file__).parents[2] / "docs"


def page(name: str) -> str:
    return (DOCS / name).read_text(encoding="utf-8")


def block(name: str, after: str, language: str) -> str:
    text = page(name)
    section = text[text.index(after) :]
    found = re.search(rf"```{language}\n(.*?)```", section, re.S)
    assert found is not None
    return found.group(1)


def test_the_case_example_loads_as_documented() -> None:
    case = Case.model_validate(json.loads(block("cases.md", "## Cases", "json")))
    assert case.expected_tool == "getOrderStatus"
    assert case.answer is not None
    assert case.trace.tool_calls[0].arguments == "ORD-101"


def test_the_jury_file_example_parses() -> None:
    panel = panel_from_mapping(tomllib.loads(block("jury-files.md", "# Jury files", "toml")))
    assert panel.effective_quorum == 2
    assert panel.retry.retry_after_cap == 120
    assert panel.retry.rate_limit_wait == 300
    assert panel.allow_retired is False
    assert [j.id for j in panel.jurors] == [
        "anthropic/claude-haiku-5-5",
        "openai/gpt-5.4-mini-2026-03-17",
    ]


def test_the_field_map_example_reads_a_chat_export(tmp_path: Path) -> None:
    data = tomllib.loads(block("cases.md", "### Formats and mapping", "toml"))
    panel = panel_from_mapping({"jurors": ["offline/reference"], **data})
    record = {
        "id": "r1",
        "prompt": {"messages": [{"content": "Be brief."}, {"content": "Where is ORD-101?"}]},
        "expected": {"answer": "Shipped."},
    }
    (tmp_path / "export.jsonl").write_text(json.dumps(record) + "\n")
    (case,) = load_cases(tmp_path / "export.jsonl", fields=panel.fields)
    assert (case.question, case.golden_answer) == ("Where is ORD-101?", "Shipped.")
    assert case.metadata == {"prompt": {"messages": [{"content": "Be brief."}, {}]}}


def test_the_real_judges_example_parses() -> None:
    panel = panel_from_mapping(tomllib.loads(block("providers.md", "# Providers", "toml")))
    assert panel.jurors[2].family == "meta"
    assert panel.providers["openai"].rpm == 500


def test_the_default_models_the_readme_lists_are_the_default_panels() -> None:
    from jury.panel._defaults import DEFAULT_JURORS

    section = page("providers.md")
    listed = re.findall(r"^\| `([a-z]+/[^`]+)` \|", section, re.M)
    assert listed == [model for model, _ in DEFAULT_JURORS]


def run(snippet: str, namespace: dict[str, Any]) -> None:
    """Run a manual snippet as a module of its own would (without this file's
    ``from __future__ import annotations``, which pydantic models would feel)."""
    exec(compile(snippet, "docs/extending.md", "exec", dont_inherit=True), namespace)


class Gateway:
    """The in-house client the manual's judge model wraps: busy once, then it names a tone."""

    def __init__(self, busy: type[Exception]) -> None:
        self.busy: type[Exception] | None = busy
        self.asked: list[str] = []

    async def ask(self, system: str, user: str, schema: dict[str, Any]) -> tuple[str, int, int]:
        self.asked.append(user)
        if self.busy is not None:
            busy, self.busy = self.busy, None
            raise busy(2.0)
        assert schema["required"] == ["reason", "tone"]
        tone = "rude" if "idiot" in user else "friendly"
        return json.dumps({"reason": f"sounds {tone}", "tone": tone}), 120, 12


async def test_the_extension_examples_judge_cases_together(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The examples register a provider and a rubric kind: only for this test.
    monkeypatch.setattr(_profile, "_FACTORIES", dict(_profile._FACTORIES))
    monkeypatch.setattr(_profile, "_PROFILES", dict(_profile._PROFILES))
    monkeypatch.setattr(_registry, "_RUBRIC_KINDS", dict(_registry._RUBRIC_KINDS))
    # The tables are filled on first use: that use must not outlive the test's copies.
    monkeypatch.setattr(_profile, "_loaded", list(_profile._loaded))
    monkeypatch.setattr(_registry, "_loaded", set(_registry._loaded))
    judge_model = block("extending.md", "## A judge model of your own", "python")
    rubric_kind = block("extending.md", "## A rubric kind of your own", "python")
    for snippet in (judge_model, rubric_kind):
        assert len(snippet.splitlines()) < 40
        imported = re.findall(r"^(?:from|import) (jury\S*)", snippet, re.M)
        assert set(imported) == {"jury", "jury.adapters"}
    namespace: dict[str, Any] = {}
    run(judge_model, namespace)
    gateway = namespace["my_gateway"] = Gateway(namespace["GatewayBusy"])
    run(rubric_kind, namespace)
    (tmp_path / "tone.toml").write_text('kind = "tone"\nname = "tone"\n')
    panel = Panel(
        jurors=("gateway/llama-3.3-70b", "gateway/qwen2.5-72b", "gateway/mistral-large"),
        rubric=str(tmp_path / "tone.toml"),
    )
    clock = FakeClock()
    async with Jury(panel, clock=clock) as j:
        assert [m.family for m in j.models] == ["meta", "qwen", "mistral"]
        assert all(limits_for(m, {}) == ProviderLimits(concurrency=8) for m in j.models)
        kind = await j.judge(Case(id="kind", question="Help?", answer="Happy to help!"))
        rude = await j.judge(Case(id="rude", question="Help?", answer="Read it, idiot."))
    assert kind.verdict is Verdict.PASS
    assert rude.verdict is Verdict.FAIL
    assert rude.reasons == ("tone: rude",)
    # The gateway was busy once: that call was retried after its retry-after, not lost.
    assert all(vote.status is VoteStatus.VALID for vote in (*kind.votes, *rude.votes))
    assert len(gateway.asked) == 7
    assert 2.0 in clock.sleeps


#: The folder each step of a case's path belongs to (docs/architecture.md's layers).
LAYER_OF_STEP = {
    "load": "jury/cases/",
    "checks": "jury/checks/",
    "render": "rubrics/",
    "fan-out": "jury/engine/",
    "call": "jury/engine/",
    "validate": "jury/adapters/",
    "aggregate": "jury/decide/",
    "verdict": "jury/decide/",
    "record": "jury/runs/",
    "report": "jury/report/",
}


def test_the_path_of_one_case_names_files_that_exist_in_their_layers_folder() -> None:
    text = page("development.md")
    section = text[text.index("One case through `jury run`") :]
    rows = re.findall(r"^\| ([a-z-]+) \| `([^`]+)` \|", section, flags=re.MULTILINE)
    assert [step for step, _ in rows] == list(LAYER_OF_STEP)
    root = Path(__file__).parents[2]
    for step, path in rows:
        assert path.startswith(LAYER_OF_STEP[step]), (step, path)
        assert (root / path).is_file(), path
    # Every file the section names, in prose too, exists.
    named = set(re.findall(r"`((?:jury|providers|rubrics)/[\w/]+\.py)`", section))
    assert {path for path in named if not (root / path).is_file()} == set()


def test_the_release_gate_example_runs_its_agent_and_passes_the_gate(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from jury.cli import main

    section = "## Golden set"
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("JURY_CACHE_DIR", raising=False)
    (tmp_path / "golden.jsonl").write_text(block("release-gate.md", section, "jsonl"))
    (tmp_path / "agent.py").write_text(block("release-gate.md", section, "python"))
    command = block("release-gate.md", section, "bash").split("#")[0].split()
    assert command == ["jury", "run", "golden.jsonl", "--agent", "agent.py:answer"]
    assert main([*command[1:], "--out", "run"]) == 0
    recorded = json.loads((tmp_path / "run" / "cases.jsonl").read_text())
    assert recorded["answer"] == "Yes, ORD-102 is within the 30-day window."
