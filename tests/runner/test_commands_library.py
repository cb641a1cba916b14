"""`jury compare`, `jury agreement` and `jury calibrate` are shells over library functions
(issue 33): `jury.compare`, `jury.measure_agreement` and `jury.calibrate` give what the command
prints, with its exit code, and print nothing themselves."""

from __future__ import annotations

import asyncio
import json
import re
from pathlib import Path

import pytest

import jury
from jury import ConfigError
from jury.cli import main

ROOT = Path(__file__).parents[2]
EXAMPLE = ROOT / "examples" / "shopnest" / "cases.jsonl"
KRIPPENDORFF = ROOT / "tests" / "data" / "agreement" / "krippendorff_2011.csv"


@pytest.fixture(autouse=True)
def offline(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """No keys: the default panel is the offline one, as on a fresh machine."""
    for name in ("ANTHROPIC_API_KEY", "OPENAI_API_KEY", "GOOGLE_API_KEY", "GEMINI_API_KEY"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.chdir(tmp_path)


def printed_json(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, object]:
    capsys.readouterr()
    code = main([*args, "--json"])
    return code, json.loads(capsys.readouterr().out)


def test_a_stricter_rescore_compared_by_the_library_is_what_the_command_prints(
    capsys: pytest.CaptureFixture[str],
) -> None:
    asyncio.run(jury.run(str(EXAMPLE), out="a", no_cache=True))
    jury.rescore("a", out="b", threshold=5)  # every metric must be 5: more cases fail
    capsys.readouterr()
    found = jury.compare("a", "b")
    said = capsys.readouterr()
    assert (said.out, said.err) == ("", "")
    assert found.outcome == "failed"
    assert found.exit_code == 1
    assert not found.passed
    assert found.regressions  # cases that passed in A and fail in B
    assert all(change.kind == "regression" for change in found.regressions)
    code, data = printed_json(capsys, "compare", "a", "b")
    assert code == found.exit_code
    assert data == {**found.model_dump(mode="json"), "exit": 1}
    # The rules as the command's flags: tolerating every regression passes the gate.
    tolerant = jury.compare(["a"], ["b"], max_regressions=len(found.regressions))
    assert tolerant.exit_code == main(
        ["compare", "a", "b", "--max-regressions", str(len(found.regressions))]
    )


def test_rules_given_to_compare_are_checked_as_the_jury_files_are() -> None:
    asyncio.run(jury.run(str(EXAMPLE), out="a", no_cache=True, limit=3))
    with pytest.raises(jury.JuryFileError, match=r"compare\.significance"):
        jury.compare("a", "a", significance=2)


def test_agreement_on_krippendorffs_table_is_his_published_alpha_in_the_library_and_command(
    capsys: pytest.CaptureFixture[str],
) -> None:
    found = jury.measure_agreement(KRIPPENDORFF, level="ordinal", bootstrap=200)
    (metric,) = found.summary.metrics.values()
    assert metric.alpha.value == pytest.approx(0.815, abs=5e-4)  # Krippendorff (2011)
    assert found.exit_code == 0
    code, data = printed_json(
        capsys, "agreement", str(KRIPPENDORFF), "--level", "ordinal", "--bootstrap", "200"
    )
    assert (code, data) == (0, found.to_json())


def test_the_agreement_gate_of_the_library_fails_below_the_bar_as_the_command_does(
    capsys: pytest.CaptureFixture[str],
) -> None:
    found = jury.measure_agreement(KRIPPENDORFF, level="ordinal", bootstrap=0, fail_under=0.9)
    assert found.exit_code == 1
    assert not found.passed
    assert found.below == ("krippendorff_2011",)
    capsys.readouterr()
    args = [str(KRIPPENDORFF), "--level", "ordinal", "--bootstrap", "0", "--fail-under", "0.9"]
    assert main(["agreement", *args]) == 1
    assert "Gate FAILED" in capsys.readouterr().out


def test_agreement_of_a_run_through_the_library_matches_the_command_and_names_a_typo(
    capsys: pytest.CaptureFixture[str],
) -> None:
    asyncio.run(jury.run(str(EXAMPLE), out="a", no_cache=True))
    capsys.readouterr()
    found = jury.measure_agreement("a", bootstrap=200, metric=["correctness"])
    said = capsys.readouterr()
    assert (said.out, said.err) == ("", "")
    assert found.rubric == "five-metric"
    assert set(found.summary.metrics) == {"correctness"}
    code, data = printed_json(
        capsys, "agreement", "a", "--bootstrap", "200", "--metric", "correctness"
    )
    assert (code, data) == (found.exit_code, found.to_json())
    with pytest.raises(ConfigError, match="fail_unde"):
        jury.measure_agreement("a", fail_unde=0.5)


def test_calibrate_through_the_library_gives_the_commands_checks_and_exit_code(
    capsys: pytest.CaptureFixture[str],
) -> None:
    found = asyncio.run(jury.calibrate(EXAMPLE))
    said = capsys.readouterr()
    assert (said.out, said.err) == ("", "")
    good, bad, undecided = found.gold_counts()
    assert good + bad + undecided == len(found.gold) == 24
    # The offline jurors fail some golden answers of the example: the check fails (exit 1).
    assert bad > 0
    assert found.exit_code == 1
    assert not found.passed
    assert main(["calibrate", str(EXAMPLE)]) == found.exit_code
    out = capsys.readouterr().out
    assert f"{good} of 24 as expected" in out
    for check, runs in found.gold_outcomes():
        if any(outcome is False for _, _, outcome in runs):
            assert f"✗ {check.case_id}:" in out


def test_calibrate_names_a_typo_and_stops_a_budget_without_select() -> None:
    with pytest.raises(ConfigError, match="gold_mn"):
        asyncio.run(jury.calibrate(EXAMPLE, gold_mn=0.5))
    with pytest.raises(ConfigError, match="--budget"):
        asyncio.run(jury.calibrate(EXAMPLE, budget=10.0))


def test_what_agreement_cannot_measure_is_refused_by_its_flag_not_reported(
    capsys: pytest.CaptureFixture[str],
) -> None:
    # A new user's trial: `--bootstrap 1` printed "0.829 [0.99, 0.99]" under "95% intervals",
    # an interval that did not hold its own estimate; `--fail-under 2` could never pass.
    asyncio.run(jury.run(str(EXAMPLE), out="a", no_cache=True))
    for flags, said in (
        (["--bootstrap", "1"], "--bootstrap 1: too few resamples for a 95% interval"),
        (["--bootstrap", "199"], "or at least 200"),
        (["--confidence", "0.99", "--bootstrap", "999"], "or at least 1000"),
        (["--confidence", "0.9999"], "a 99.99% interval (--confidence 0.9999): each tail"),
        (["--confidence", "0.9999"], "or at least 100000"),
        (["--confidence", "95"], "--confidence 95: give a level between 0 and 1"),
        (["--fail-under", "2"], "--fail-under 2: alpha is at most 1"),
        (["--fail-under", "nan"], "--fail-under nan: not a number; give a bar up to 1"),
    ):
        capsys.readouterr()
        assert main(["agreement", "a", *flags]) == 2
        assert said in capsys.readouterr().err
        with pytest.raises(ConfigError, match=re.escape(said)):
            jury.measure_agreement("a", **_library(flags))
    assert main(["agreement", "a", "--bootstrap", "200"]) == 0
    assert main(["agreement", "a", "--bootstrap", "0"]) == 0


def _library(flags: list[str]) -> dict[str, float]:
    """The keyword arguments of `jury.measure_agreement` that these flags are."""
    names = {"--bootstrap": "bootstrap", "--confidence": "confidence", "--fail-under": "fail_under"}
    pairs = zip(flags[::2], flags[1::2], strict=True)
    return {names[flag]: (int if flag == "--bootstrap" else float)(value) for flag, value in pairs}


def test_a_folder_that_is_no_run_is_named_by_agreement_and_compare(
    capsys: pytest.CaptureFixture[str],
) -> None:
    # They printed only ".../verdicts.jsonl: No such file or directory".
    asyncio.run(jury.run(str(EXAMPLE), out="repeats/repeat-1", no_cache=True))
    asyncio.run(jury.run(str(EXAMPLE), out="a", no_cache=True))
    capsys.readouterr()
    assert main(["agreement", "repeats"]) == 2
    assert "repeats: not a run directory (no manifest.json); a run of repeats" in (
        capsys.readouterr().err
    )
    Path("elsewhere").mkdir()
    assert main(["compare", "a", "elsewhere"]) == 2
    assert "elsewhere: not a run directory (no manifest.json)" in capsys.readouterr().err


def test_a_rescore_keeps_the_judge_calls_its_checks_spared() -> None:
    # A new user's trial: "Judges spared on 10 case(s): 0 judge call(s) saved" after rescore.
    asyncio.run(jury.run(str(EXAMPLE), out="a", no_cache=True))
    first = json.loads(Path("a/summary.json").read_text(encoding="utf-8"))
    assert first["judges_spared"] > 0
    assert first["calls_saved"] > 0
    jury.rescore("a", out="b", threshold=5)
    again = json.loads(Path("b/summary.json").read_text(encoding="utf-8"))
    assert (again["judges_spared"], again["calls_saved"]) == (
        first["judges_spared"],
        first["calls_saved"],
    )


def test_calibrate_as_a_library_prints_nothing_and_returns_how_it_read_the_cases(
    capsys: pytest.CaptureFixture[str],
) -> None:
    # A review found `jury.calibrate` printing the cases' notes to stderr ("jury: note: ..."):
    # a library prints nothing; the command prints what it returns.
    lines = EXAMPLE.read_text(encoding="utf-8").splitlines()[:4]
    first = json.loads(lines[0])
    del first["question"]
    Path("cases.jsonl").write_text(
        "\n".join([json.dumps(first), *lines[1:]]) + "\n", encoding="utf-8"
    )
    capsys.readouterr()
    found = asyncio.run(jury.calibrate("cases.jsonl", passes=1))
    printed = capsys.readouterr()
    assert (printed.out, printed.err) == ("", "")
    assert any("1 case(s) have no question" in note for note in found.notes)
    main(["calibrate", "cases.jsonl", "--passes", "1"])
    assert "jury: note: cases.jsonl: 1 case(s) have no question" in capsys.readouterr().err
