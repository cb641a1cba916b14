"""The suite: configuration from the jury file, user checks, and the engine's use of it
(checks first, AND with the jury, judges spared unless asked anyway)."""

from __future__ import annotations

import io
import json
import textwrap
from pathlib import Path
from typing import Any

import pytest
import structlog

import jury
from jury import Case, CheckOutcome, CheckResult, ConfigError, JuryFileError, Panel, Verdict
from jury._logging import configure_logging
from jury.checks import (
    BUILTIN_CHECKS,
    STAGES,
    Check,
    CheckSettings,
    CheckSuite,
    Finding,
    check,
    failed,
    not_applicable,
    passed,
)
from jury.testing import ScriptedModel

PASS, FAIL, NA = CheckOutcome.PASS, CheckOutcome.FAIL, CheckOutcome.NOT_APPLICABLE
GOOD_SCORES = {
    "reason": "fine",
    "relevance": 5,
    "correctness": 5,
    "faithfulness": 5,
    "helpfulness": 5,
    "hallucinationFree": 5,
}


def case(**fields: Any) -> Case:
    return Case.model_validate({"id": "c", "question": "q?", "answer": "An answer.", **fields})


def write(folder: Path, name: str, text: str) -> Path:
    path = folder / name
    path.write_text(textwrap.dedent(text))
    return path


def test_public_api_is_pinned() -> None:
    assert jury.checks.__all__ == [
        "BUILTIN_CHECKS",
        "EMAIL",
        "REDIRECT_PATTERNS",
        "REFUSAL_PHRASES",
        "SOFT_REFUSAL_PHRASES",
        "STAGES",
        "Check",
        "CheckSettings",
        "CheckSuite",
        "Finding",
        "Stage",
        "check",
        "failed",
        "find_blocked",
        "find_redirect",
        "find_refusal",
        "not_applicable",
        "passed",
        "propose_length_bounds",
        "unavailable",
    ]


def test_builtins_run_in_stage_order() -> None:
    suite = CheckSuite.from_settings()
    # Every built-in but moderation, which sends the replies to a provider only when asked.
    assert suite.names == tuple(name for name in BUILTIN_CHECKS if name != "moderation")
    stages = [STAGES.index(c.stage) for c in suite]
    assert stages == sorted(stages)
    assert STAGES == ("retrieval", "tool choice", "tool argument", "generation")


# --- the [checks] table -----------------------------------------------------------------


def test_jury_file_checks_table(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        "jury.toml",
        """
        jurors = ["offline/reference"]
        [checks.pii]
        required = false
        allowed_emails = ["@shopnest.example"]
        [checks.blocklist]
        level = "medium"
        [checks.length]
        max_words = 3
        categories = ["policy"]
        [checks.tools_healthy]
        skip_categories = ["faults"]
        [checks.source]
        enabled = false
        """,
    )
    panel = jury.load_panel(path)
    suite = CheckSuite.from_settings(panel.checks)
    assert "source" not in suite.names
    assert suite["pii"].required is False
    long_answer = "one two three four five"
    assert [r.name for r in suite(case(answer=long_answer, category="policy"))].count("length") == 1
    assert "length" not in [r.name for r in suite(case(answer=long_answer, category="tool"))]
    faulty = case(category="faults", trace={"tool_calls": [{"name": "t", "error": "boom"}]})
    assert "tools_healthy" not in [r.name for r in suite(faulty)]
    assert suite["blocklist"](case(answer="Damn, that is shit.")).outcome is FAIL


@pytest.mark.parametrize(
    ("toml", "key"),
    [
        ("[checks.pii]\nkinds = ['passport']", "checks.pii.kinds[0]"),
        ("[checks.blocklist]\nlevel = 'low'", "checks.blocklist.level"),
        ("[checks.nonesuch]\nenabled = true", "checks.nonesuch"),
        ("[checks.length]\nmax_words = 0", "checks.length.max_words"),
        ("[checks.length]\nmin_words = 9\nmax_words = 3", "checks.length"),
        ("[checks.redirect]\npatterns = ['(']", "checks.redirect.patterns"),
        ("[[checks.custom]]\nfunction = 'no_colon'", "checks.custom[0].function"),
    ],
)
def test_a_bad_checks_key_is_named(tmp_path: Path, toml: str, key: str) -> None:
    path = write(tmp_path, "jury.toml", f'jurors = ["offline/reference"]\n{toml}\n')
    with pytest.raises(JuryFileError) as caught:
        jury.load_panel(path)
    assert caught.value.key.startswith(key)


def test_schema_file_is_read_relative_to_the_jury_file(tmp_path: Path) -> None:
    write(tmp_path, "reply.schema.json", '{"type": "object", "required": ["ok"]}')
    path = write(
        tmp_path,
        "jury.toml",
        'jurors = ["offline/reference"]\n[checks.json_schema]\nschema = "reply.schema.json"\n',
    )
    suite = CheckSuite.from_settings(jury.load_panel(path).checks)
    assert suite["json_schema"](case(answer="{}")).outcome is FAIL


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (None, "cannot read"),
        ("{not json", "is not valid JSON"),
        ("[1]", "does not hold a JSON object"),
        ('{"type": 5}', "not a valid JSON schema"),
    ],
)
def test_a_bad_schema_file_is_a_config_error(
    tmp_path: Path, content: str | None, message: str
) -> None:
    path = tmp_path / "s.json"
    if content is not None:
        path.write_text(content)
    settings = CheckSettings.model_validate({"json_schema": {"schema": str(path)}})
    with pytest.raises(ConfigError, match=f"checks.json_schema.schema: .*{message}"):
        CheckSuite.from_settings(settings)


def test_checks_can_be_turned_off_in_the_file() -> None:
    assert len(CheckSuite.from_settings(CheckSettings(enabled=False))) == 0


# --- user checks ------------------------------------------------------------------------


def test_decorated_check_returns_any_supported_shape() -> None:
    @check(stage="retrieval", required=False)
    def mentions_order(c: Case) -> bool | None:
        return None if c.answer is None else "ORD-" in c.answer

    assert isinstance(mentions_order, Check)
    result = mentions_order(case(answer="ORD-1 shipped"))
    assert (result.name, result.outcome, result.stage, result.required) == (
        "mentions_order",
        PASS,
        "retrieval",
        False,
    )
    assert mentions_order(case(answer="shipped")).outcome is FAIL
    assert mentions_order(case(answer=None)).outcome is NA


def test_findings_and_check_results_are_renamed_and_masked() -> None:
    @check(name="says-card")
    def leaky(c: Case) -> Finding:
        return failed("it said 4111 1111 1111 1111", evidence="4111111111111111")

    result = leaky(case())
    assert result.name == "says-card"
    assert "4111 1111 1111 1111" not in result.reason
    assert result.evidence == "[card ****1111 (16 digits)]"

    plain = check(lambda c: CheckResult(name="ignored", outcome=PASS, reason="ok"))
    assert plain(case()).outcome is PASS
    assert check(lambda c: not_applicable("n"))(case()).reason == "n"
    assert check(lambda c: passed(evidence="x" * 500))(case()).evidence == "x" * 119 + "…"


def test_a_check_that_raises_fails_with_the_reason_and_is_logged() -> None:
    @check
    def broken(c: Case) -> bool:
        raise KeyError("expected_thing")

    stream = io.StringIO()
    configure_logging(0, json=True, stream=stream)
    try:
        result = broken(case())
    finally:
        structlog.reset_defaults()
    assert result.outcome is FAIL
    assert result.reason == "the check raised KeyError: 'expected_thing'"
    event = json.loads(stream.getvalue().splitlines()[0])
    assert (event["event"], event["check"], event["case"]) == ("check.error", "broken", "c")
    assert "KeyError: 'expected_thing'" in event["exception"]


def test_a_check_returning_garbage_fails() -> None:
    weird = check(lambda c: "yes")  # type: ignore[arg-type]
    result = weird(case())
    assert result.outcome is FAIL
    assert "returned str" in result.reason


def test_custom_checks_from_a_file_and_a_module(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    write(
        tmp_path,
        "my_checks.py",
        """
        from jury.checks import check, failed, passed

        @check(stage="tool choice")
        def asks_politely(case):
            return passed() if "please" in (case.answer or "").lower() else failed("no please")

        def short(case):
            return len((case.answer or "").split()) < 5
        """,
    )
    path = write(
        tmp_path,
        "jury.toml",
        """
        jurors = ["offline/reference"]
        [[checks.custom]]
        function = "my_checks.py:asks_politely"
        required = false
        [[checks.custom]]
        function = "my_checks_mod:short"
        name = "brief"
        categories = ["chat"]
        """,
    )
    (tmp_path / "my_checks_mod.py").write_text((tmp_path / "my_checks.py").read_text())
    monkeypatch.syspath_prepend(str(tmp_path))
    suite = CheckSuite.from_settings(jury.load_panel(path).checks)
    polite = suite["asks_politely"]
    assert (polite.stage, polite.required) == ("tool choice", False)
    results = {
        r.name: r for r in suite(case(answer="Please wait a little while longer.", category="chat"))
    }
    assert results["asks_politely"].outcome is PASS
    assert results["brief"].outcome is FAIL
    assert "brief" not in [r.name for r in suite(case(category="other"))]


@pytest.mark.parametrize(
    ("function", "message"),
    [
        ("missing.py:f", "no such file"),
        ("no_such_module_here:f", "cannot import no_such_module_here"),
        ("json:no_such_function", "json has no 'no_such_function'"),
        ("json:__doc__", "is not a function"),
    ],
)
def test_a_bad_custom_check_is_a_config_error(function: str, message: str) -> None:
    settings = CheckSettings.model_validate({"custom": [{"function": function}]})
    with pytest.raises(ConfigError, match=rf"checks.custom\[0\].function: .*{message}"):
        CheckSuite.from_settings(settings)


def test_check_names_are_unique() -> None:
    with pytest.raises(ConfigError, match="two checks are named pii"):
        CheckSuite.from_settings(extra=[check(name="pii")(lambda c: True)])


# --- the engine -------------------------------------------------------------------------


def scripted_panel(judge: ScriptedModel, **options: Any) -> Panel:
    return Panel(jurors=(jury.Juror(model=judge, samples=2),), **options)


async def test_a_failed_required_check_spares_the_judges_and_counts_the_calls() -> None:
    judge = ScriptedModel([GOOD_SCORES])
    skipped = case(expected_tool="getOrderStatus")
    async with jury.Jury(scripted_panel(judge), checks=CheckSuite.from_settings()) as j:
        verdict = await j.judge(skipped)
    assert verdict.verdict is Verdict.FAIL
    assert verdict.judges_spared is True
    assert verdict.calls_saved == 2  # one juror, two samples, one prompt
    assert judge.calls == 0
    assert verdict.failed_stage == "tool choice"
    assert "check tool_choice failed" in verdict.reasons[0]


async def test_judge_all_asks_the_judges_and_still_fails_the_case() -> None:
    judge = ScriptedModel([GOOD_SCORES])
    skipped = case(expected_tool="getOrderStatus")
    async with jury.Jury(
        scripted_panel(judge), checks=CheckSuite.from_settings(), judge_all=True
    ) as j:
        verdict = await j.judge(skipped)
    assert judge.calls == 2
    assert verdict.judges_spared is False
    assert verdict.verdict is Verdict.FAIL  # checks AND jury
    assert verdict.metrics["correctness"].value == 5
    assert verdict.reasons[-1] == "the jury said PASS"


async def test_an_advisory_failure_neither_fails_nor_spares() -> None:
    judge = ScriptedModel([GOOD_SCORES])
    settings = CheckSettings.model_validate({"tool_choice": {"required": False}})
    async with jury.Jury(scripted_panel(judge), checks=CheckSuite.from_settings(settings)) as j:
        verdict = await j.judge(case(expected_tool="getOrderStatus"))
    assert verdict.verdict is Verdict.PASS
    assert judge.calls == 2
    assert any(c.name == "tool_choice" and c.outcome is FAIL for c in verdict.checks)
    assert verdict.failed_stage is None


async def test_passing_checks_leave_the_jury_to_decide() -> None:
    bad = dict(GOOD_SCORES, correctness=2)
    judge = ScriptedModel([bad])
    async with jury.Jury(scripted_panel(judge), checks=CheckSuite.from_settings()) as j:
        verdict = await j.judge(case())
    assert verdict.verdict is Verdict.FAIL
    assert verdict.failed_stage == "generation"
    assert all(c.outcome is not FAIL for c in verdict.checks)


def test_failed_stage_is_the_earliest_stage() -> None:
    c = case(
        expected_source="a.md",
        expected_tool="t",
        expected_tool_argument="X",
        trace={"tool_calls": [{"name": "t", "arguments": "Y"}], "retrieved_sources": ["b.md"]},
    )
    checks = CheckSuite.from_settings()(c)
    verdict = jury.CaseVerdict(case_id="c", verdict=Verdict.FAIL, checks=checks)
    assert verdict.failed_stage == "retrieval"
    assert jury.CaseVerdict(case_id="c", verdict=Verdict.PASS).failed_stage is None
