"""Model lifecycle: the project's own table (the same answers with any extras), warnings
for deprecated models in `jury run`, `jury calibrate` and the pytest plugin, and a retired
model refused (exit 2) unless the jury file allows it: one rule for the library and the CLI."""

from __future__ import annotations

import re
from datetime import date
from pathlib import Path

import pytest

from jury import ConfigError, Juror, Jury, Panel, load_panel
from jury.adapters import ModelProfile, ModelStatus, register_provider
from jury.adapters._registry import model_status
from jury.cli import main
from jury.panel._lifecycle import lifecycle_warnings, today
from jury.panel._warnings import panel_warnings
from jury.providers._lifecycle_gemini import GEMINI
from jury.providers._lifecycle_table import ANTHROPIC, OPENAI
from jury.testing import ScriptedModel

DAY = date(2026, 11, 30)


def status(spec: str, day: date = DAY) -> ModelStatus | None:
    return model_status(spec, day)


#: Retired models of every family a user may still have in a jury file, with the day each
#: retired (the table's rows; issue 31 found these judged, with no warning).
RETIRED = {
    "openai/gpt-4-0314": date(2026, 3, 26),
    "openai/gpt-4-32k": date(2025, 6, 6),
    "openai/o1-preview": date(2025, 7, 28),
    "anthropic/claude-3-opus-20240229": date(2026, 1, 5),
    "anthropic/claude-3-5-sonnet-20241022": date(2025, 10, 22),
    "anthropic/claude-2.1": date(2025, 7, 21),
    "anthropic/claude-instant-1.2": date(2024, 11, 6),
    "google/gemini-1.5-pro": date(2025, 9, 24),
    "google/gemini-1.0-pro": date(2025, 4, 9),
}

#: Run in a child with every provider SDK made unimportable (as after `pip install .`): the
#: statuses it prints must equal this process's, which has them all (`.[dev]`).
_NO_SDK = """
import json, sys
from datetime import date
from importlib.abc import MetaPathFinder

class NoSdk(MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in ("anthropic", "openai") or name.startswith("google.genai"):
            raise ModuleNotFoundError(f"blocked: {name}")
        return None

sys.meta_path.insert(0, NoSdk())
from jury.adapters._registry import model_status
specs = json.loads(sys.argv[1])
found = {spec: model_status(spec, date(2026, 12, 4)) for spec in specs}
for spec, status in found.items():
    assert not any(name.split(".")[0] in ("anthropic", "openai") for name in sys.modules), spec
said = {s: None if v is None else [v.state, str(v.retires), v.source] for s, v in found.items()}
print(json.dumps(said))
"""


def _table_specs() -> list[str]:
    return [
        *(f"anthropic/{row.model}" for row in ANTHROPIC),
        *(f"openai/{row.model}" for row in OPENAI),
        *(f"google/{row.model}" for row in GEMINI),
        "openai/gpt-made-up-1",
    ]


def test_lifecycle_answers_are_the_same_with_no_sdk_installed_and_with_all() -> None:
    import json
    import subprocess
    import sys

    specs = _table_specs()
    root = Path(__file__).resolve().parents[2]
    child = subprocess.run(
        [sys.executable, "-c", _NO_SDK, json.dumps(specs)],
        capture_output=True,
        text=True,
        check=True,
        cwd=root,
        env={"PYTHONPATH": str(root), "PATH": "/usr/bin:/bin"},
    )
    without = json.loads(child.stdout)
    here = {s: status(s, date(2026, 12, 4)) for s in specs}
    assert without == {
        s: None if v is None else [v.state, str(v.retires), v.source] for s, v in here.items()
    }


@pytest.mark.parametrize(("spec", "retired"), sorted(RETIRED.items()))
def test_a_retired_model_of_any_family_is_known_retired_with_its_day(
    spec: str, retired: date
) -> None:
    found = status(spec, date(2026, 12, 4))
    assert found is not None
    assert (found.state, found.retires) == ("retired", retired)
    assert "http" in found.source or "SDK" in found.source  # each row cites where it was read


def test_sonnet_4_5_stays_retired_though_an_sdk_dropped_it() -> None:
    # anthropic 2.15 dropped Sonnet 4.5 from its deprecated-model table the day it retired:
    # the project's table still says it retired on 2026-11-30.
    sonnet = status("anthropic/claude-sonnet-4-5-20250929")
    assert sonnet is not None
    assert (sonnet.state, sonnet.retires) == ("retired", date(2026, 11, 30))
    assert sonnet.replacement == "claude-sonnet-5-5"
    assert "sonnet-4-5/overview" in sonnet.source


def test_the_projects_table_knows_every_lifecycle() -> None:
    sonnet = status("anthropic/claude-sonnet-4-5-20250929")
    assert sonnet is not None
    assert sonnet.state == "retired"
    opus = status("anthropic/claude-opus-4-5-20251101")
    assert opus is not None
    assert (opus.state, opus.retires) == ("deprecated", date(2027, 1, 22))
    mini = status("openai/gpt-4.1-mini-2025-04-14")
    assert mini is not None
    assert (mini.state, mini.retires, mini.replacement) == (
        "deprecated",
        date(2027, 1, 14),
        "gpt-6-luna",
    )
    assert status("openai/gpt-4.1-mini-2025-04-14", date(2027, 1, 14)).state == "retired"  # type: ignore[union-attr]
    current = status("openai/gpt-5.4-mini-2026-03-17")
    assert current is not None
    assert (current.state, current.retires, current.pinned) == ("active", None, True)
    # Anthropic's tentative retirement of an active model is a floor, said, not enforced.
    sonnet_4_6 = status("anthropic/claude-sonnet-4-6")
    assert sonnet_4_6 is not None
    assert sonnet_4_6.state == "active"
    assert "not sooner than 2027-02-17" in sonnet_4_6.describe()
    assert status("openai/gpt-made-up-1") is None


def _named_models() -> set[str]:
    """Every provider/model the default panel, the README, the examples and the benchmarks
    name, for the three providers with lifecycles."""
    root = Path(__file__).resolve().parents[2]
    texts = [root / "README.md", root / "jury" / "panel" / "_defaults.py"]
    texts += [path for path in (root / "examples").rglob("*") if path.is_file()]
    texts += [*list((root / "benchmarks").glob("*.py")), root / "benchmarks" / "README.md"]
    pattern = re.compile(
        r"\b(anthropic|openai|google)/((?:claude|gpt|gemini|o\d)[a-z0-9.-]*[a-z0-9])"
    )
    found = {f"{m[1]}/{m[2]}" for path in texts for m in pattern.finditer(path.read_text("utf-8"))}
    # benchmarks/storm.py names models per provider without the prefix.
    storm = (root / "benchmarks" / "storm.py").read_text("utf-8")
    for provider, models in re.findall(r'"(anthropic|openai|google)": \(([^)]*)\)', storm):
        found |= {f"{provider}/{model}" for model in re.findall(r'"([^"]+)"', models)}
    return found


def test_every_model_the_project_names_is_in_its_own_table() -> None:
    named = _named_models()
    assert {"anthropic/claude-haiku-5-5", "openai/gpt-5.4-mini-2026-03-17"} <= named
    unknown = sorted(spec for spec in named if status(spec) is None)
    assert unknown == []
    rows = (*ANTHROPIC, *OPENAI, *GEMINI)
    assert all(row.source and row.read >= DAY for row in rows)


def test_gemini_models_follow_the_projects_table() -> None:
    flash = status("google/gemini-2.5-flash")
    assert flash is not None
    assert (flash.state, flash.retires, flash.replacement) == (
        "deprecated",
        date(2026, 12, 1),
        "gemini-3.5-flash-lite",
    )
    assert status("google/gemini-2.5-flash", date(2026, 12, 2)).state == "retired"  # type: ignore[union-attr]
    lite = status("google/gemini-3.5-flash-lite")
    assert lite is not None
    assert (lite.state, lite.pinned) == ("active", True)
    assert "read 2026-11-30" in lite.source
    # Every row says where it was read, and when.
    assert all(row.source.startswith("https://") and row.read >= DAY for row in GEMINI)


def test_jury_today_sets_the_day_and_a_bad_one_is_a_usage_error(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("JURY_TODAY", "2027-02-01")
    assert today() == date(2027, 2, 1)
    monkeypatch.setenv("JURY_TODAY", "next tuesday")
    with pytest.raises(ConfigError, match="JURY_TODAY"):
        today()


def test_a_deprecated_model_is_warned_about_with_its_date_and_source() -> None:
    panel = Panel(
        jurors=(
            Juror(model="openai/gpt-4.1-mini-2025-04-14"),
            Juror(model="anthropic/claude-haiku-5-5", fallbacks=("google/gemini-2.5-flash",)),
        )
    )
    warnings = panel_warnings(panel)
    assert any(
        w.startswith(
            "openai/gpt-4.1-mini-2025-04-14: gpt-4.1-mini-2025-04-14 is deprecated and "
            "retires on 2027-01-14"
        )
        for w in warnings
    )
    assert any(
        "gemini-2.5-flash is deprecated and retires on 2026-12-01; use "
        "gemini-3.5-flash-lite instead" in w
        for w in warnings
    )
    # Pinned without a date: not called an alias (Claude 4.6 and later, Gemini stable IDs).
    assert not any("alias" in w for w in warnings)


def test_a_retired_model_is_refused_unless_the_panel_allows_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("GOOGLE_API_KEY", "test-key-not-secret")
    panel = Panel(jurors=(Juror(model="google/gemini-2.0-flash"), Juror(model="offline/facts")))
    with pytest.raises(ConfigError) as caught:
        Jury(panel)
    message = str(caught.value)
    assert "google/gemini-2.0-flash: gemini-2.0-flash was retired on 2026-06-01" in message
    assert "allow_retired = true" in message
    # Allowed, it is judged with (and warned about).
    allowed = panel.model_copy(update={"allow_retired": True})
    Jury(allowed)
    assert any("was retired" in w for w in lifecycle_warnings(allowed))


def test_a_retired_fallback_is_refused_too() -> None:
    panel = Panel(
        jurors=(Juror(model="offline/facts", fallbacks=("anthropic/claude-mythos-preview",)),)
    )
    with pytest.raises(ConfigError, match="claude-mythos-preview was retired on 2026-06-30"):
        Jury(panel)


def write(path: Path, text: str) -> Path:
    path.write_text(text, encoding="utf-8")
    return path


def test_the_jury_file_allows_retired_models(tmp_path: Path) -> None:
    jury_file = write(
        tmp_path / "jury.toml", 'jurors = ["google/gemini-2.0-flash"]\nallow_retired = true\n'
    )
    assert load_panel(jury_file).allow_retired is True


def test_jury_run_warns_about_a_deprecated_model_before_it_runs(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    examples = Path(__file__).resolve().parents[2] / "examples" / "shopnest" / "cases.jsonl"
    jury_file = write(
        tmp_path / "jury.toml",
        'jurors = ["offline/reference", "openai/gpt-4.1-mini-2025-04-14"]\n',
    )
    args = ["run", str(examples), "--jury", str(jury_file), "--no-cache", "--progress", "none"]
    code = main([*args, "--out", str(tmp_path / "run")])
    # Deprecated today, it is warned about (its key is missing: a usage error all the same).
    err = capsys.readouterr().err
    assert "gpt-4.1-mini-2025-04-14 is deprecated and retires on 2027-01-14" in err
    assert code == 2


def test_a_retired_model_stops_jury_run_before_any_key_is_needed(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("JURY_TODAY", "2027-01-15")
    examples = Path(__file__).resolve().parents[2] / "examples" / "shopnest" / "cases.jsonl"
    jury_file = write(tmp_path / "jury.toml", 'jurors = ["openai/gpt-4.1-mini-2025-04-14"]\n')
    code = main(
        [
            "run",
            str(examples),
            "--jury",
            str(jury_file),
            "--out",
            str(tmp_path / "run"),
            "--no-cache",
            "--progress",
            "none",
        ]
    )
    assert code == 2
    err = capsys.readouterr().err
    assert "gpt-4.1-mini-2025-04-14 was retired on 2027-01-14" in err
    assert "OPENAI_API_KEY" not in err


@pytest.fixture
def aging_provider() -> object:
    """A provider of the test's own whose lifecycle says "aging/old" is deprecated."""

    def lifecycle(model: str, day: date) -> ModelStatus | None:
        if model == "old":
            return ModelStatus(model, "deprecated", "the test's table", retires=date(2027, 3, 1))
        return None

    register_provider(
        "aging",
        lambda spec: ScriptedModel([{"reason": "ok", "pass": True}], name=spec),
        ModelProfile(lifecycle=lifecycle),
    )
    yield lifecycle
    register_provider("aging", lambda spec: ScriptedModel([{}], name=spec))


def test_a_registered_provider_declares_its_models_lifecycle(aging_provider: object) -> None:
    found = status("aging/old")
    assert found is not None
    assert found.describe() == "old is deprecated and retires on 2027-03-01 (the test's table)"
    assert status("aging/new") is None


def test_jury_calibrate_warns_about_a_deprecated_model(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], aging_provider: object
) -> None:
    cases = write(
        tmp_path / "cases.jsonl",
        '{"id": "c1", "question": "q", "answer": "a", "golden_answer": "a"}\n'
        '{"id": "c2", "question": "r", "answer": "b", "golden_answer": "b"}\n',
    )
    jury_file = write(
        tmp_path / "jury.toml",
        'rubric = "grounded-answer"\njurors = ["aging/old"]\n',
    )
    main(["calibrate", str(cases), "--jury", str(jury_file)])
    err = capsys.readouterr().err
    assert "warning: aging/old: old is deprecated and retires on 2027-03-01" in err


pytest_plugins = ["pytester"]

PLUGIN_CONFTEST = """
from datetime import date

from jury.adapters import ModelProfile, ModelStatus, register_provider
from jury.testing import ScriptedModel


def lifecycle(model, day):
    if model == "old":
        return ModelStatus(model, "deprecated", "the test's table", retires=date(2027, 3, 1))
    if model == "gone":
        return ModelStatus(model, "retired", "the test's table", retires=date(2026, 1, 1))
    return None


REPLY = {"reason": "ok", "relevance": 5, "correctness": 5, "faithfulness": 5,
         "helpfulness": 5, "hallucinationFree": 5}
register_provider(
    "aging", lambda spec: ScriptedModel([REPLY], name=spec), ModelProfile(lifecycle=lifecycle)
)
"""

PLUGIN_TESTS = """
import pytest

@pytest.mark.jury(file="old.toml")
async def test_with_an_old_judge(judge):
    await judge.assert_passes(question="q", answer="a", golden_answer="a")

@pytest.mark.jury(file="gone.toml")
async def test_with_a_retired_judge(judge):
    await judge.assert_passes(question="q", answer="a", golden_answer="a")
"""


def test_the_pytest_plugin_lists_lifecycle_warnings_and_refuses_a_retired_model(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PYTHONPATH", str(Path(__file__).resolve().parents[2]))
    monkeypatch.setenv("PYTEST_DISABLE_PLUGIN_AUTOLOAD", "1")
    pytester.makeini("[pytest]\nasyncio_mode = auto\n")
    pytester.makeconftest(PLUGIN_CONFTEST)
    pytester.makepyfile(test_aging=PLUGIN_TESTS)
    pytester.path.joinpath("old.toml").write_text('jurors = ["aging/old"]\n')
    pytester.path.joinpath("gone.toml").write_text('jurors = ["aging/gone"]\n')
    result = pytester.runpytest_subprocess(
        "-p",
        "jury.pytest_plugin",
        "-p",
        "pytest_asyncio.plugin",
        "-p",
        "no:cacheprovider",
        "--jury",
    )
    output = result.stdout.str()
    assert "jury warnings" in output
    assert "aging/old: old is deprecated and retires on 2027-03-01 (the test's table)" in output
    result.assert_outcomes(passed=1, errors=0, failed=1)
    assert "gone was retired on 2026-01-01" in output


def test_a_retired_sonnet_4_5_stops_jury_run_whatever_sdk_is_installed(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    monkeypatch.setenv("JURY_TODAY", "2026-12-01")
    examples = Path(__file__).resolve().parents[2] / "examples" / "shopnest" / "cases.jsonl"
    jury_file = write(tmp_path / "jury.toml", 'jurors = ["anthropic/claude-sonnet-4-5-20250929"]\n')
    args = ["run", str(examples), "--jury", str(jury_file), "--no-cache", "--progress", "none"]
    assert main([*args, "--out", str(tmp_path / "run")]) == 2
    err = capsys.readouterr().err
    assert "claude-sonnet-4-5-20250929 was retired on 2026-11-30" in err
    assert "use claude-sonnet-5-5 instead" in err
    # Allowed, the run goes on to what it needs next: the key.
    write(jury_file, 'jurors = ["anthropic/claude-sonnet-4-5-20250929"]\nallow_retired = true\n')
    assert main([*args, "--out", str(tmp_path / "run2")]) == 2
    err = capsys.readouterr().err
    assert "ANTHROPIC_API_KEY" in err
    assert "was retired on 2026-11-30" in err


def test_a_model_the_table_does_not_know_gets_one_warning_and_a_local_model_none() -> None:
    panel = Panel(
        jurors=(
            Juror(model="openai/gpt-made-up-1"),
            Juror(model="openai/gpt-made-up-1", strategy="cot"),
            Juror(model="openai-api/local/smollm2-135m"),
            Juror(model="offline/reference"),
        )
    )
    said = [w for w in lifecycle_warnings(panel, DAY) if "lifecycle table" in w]
    assert len(said) == 1
    assert said[0].endswith(
        "gpt-made-up-1 is not in aiojury's lifecycle table: whether its provider has retired "
        "it cannot be checked (`jury doctor` shows the model that serves it)"
    )
    assert "openai/gpt-made-up-1" in said[0]
