"""The pytest plugin's outcomes: pass, fail, unavailable, and skipped without --jury."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

pytest_plugins = ["pytester"]

ROOT = Path(__file__).resolve().parents[2]

CONFTEST = """
from jury.adapters import InvalidRequestError, TransientError, register_provider
from jury.testing import ScriptedModel

# A judge that is always down, for the unavailable outcome.
register_provider("down", lambda spec: ScriptedModel([TransientError("503")], name=spec))
# Two that always disagree, for a tie; and a model the server does not have.
register_provider("yes", lambda spec: ScriptedModel([{"reason": "ok", "pass": True}], name=spec))
register_provider("no", lambda spec: ScriptedModel([{"reason": "no", "pass": False}], name=spec))
register_provider(
    "gone",
    lambda spec: ScriptedModel([InvalidRequestError("model not found", status=404)], name=spec),
)
"""

TESTS = """
import pytest

GOLD = "Products can be returned within 30 days of delivery."

@pytest.mark.jury
async def test_good_answer(judge):
    verdict = await judge.assert_passes(
        question="What is your return policy?",
        answer="Products can be returned within 30 days of delivery.",
        golden_answer=GOLD,
        context="Products can be returned within 30 days of delivery.",
    )
    assert verdict.verdict.value == "PASS"

@pytest.mark.jury
async def test_wrong_answer(judge):
    await judge.assert_passes(
        question="What is your return policy?",
        answer="Sorry, we never accept returns, and refunds take 90 days.",
        golden_answer=GOLD,
        context="Products can be returned within 30 days of delivery.",
    )

@pytest.mark.jury(file="down.toml")
async def test_judge_down(judge):
    await judge.assert_passes(question="q", answer="a", golden_answer="a")

def test_plain():
    assert 1 + 1 == 2
"""

MORE_TESTS = """
import pytest

@pytest.mark.jury(file="every.toml")
async def test_every_juror_required(judge):
    await judge.assert_passes(question="q", answer="a", golden_answer="a", context="a")

@pytest.mark.jury(file="tie.toml")
async def test_tie(judge):
    await judge.assert_passes(question="q", answer="a", golden_answer="a", context="a")

@pytest.mark.jury(file="tie.toml")
async def test_tie_inspected(judge):
    verdict = await judge.judge(question="q", answer="a", golden_answer="a", context="a")
    assert verdict.verdict.value == "INCONCLUSIVE"
"""


@pytest.fixture
def project(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> pytest.Pytester:
    monkeypatch.setenv("PYTHONPATH", str(ROOT))
    # The plugin is loaded explicitly, whether or not the package is installed.
    monkeypatch.setenv("PYTEST_DISABLE_PLUGIN_AUTOLOAD", "1")
    monkeypatch.delenv("JURY_RUN", raising=False)
    pytester.makeini("[pytest]\nasyncio_mode = auto\n")
    pytester.makeconftest(CONFTEST)
    pytester.makepyfile(test_judged=TESTS)
    pytester.path.joinpath("down.toml").write_text(
        'jurors = ["down/judge"]\n[retry]\nattempts = 1\ncool_down = 0\n'
    )
    grounded = 'rubric = "grounded-answer"\n'
    pytester.path.joinpath("every.toml").write_text(
        'jurors = ["yes/a", "down/b"]\nquorum = 1\n'
        + grounded
        + "[gate]\nrequire_every_juror = true\n[retry]\nattempts = 1\ncool_down = 0\n"
    )
    pytester.path.joinpath("tie.toml").write_text('jurors = ["yes/a", "no/b"]\n' + grounded)
    pytester.path.joinpath("gone.toml").write_text('jurors = ["gone/judge"]\n' + grounded)
    return pytester


def run(project: pytest.Pytester, *args: str) -> pytest.RunResult:
    return project.runpytest_subprocess(
        "-p", "jury.pytest_plugin", "-p", "pytest_asyncio.plugin", "-p", "no:cacheprovider", *args
    )


def test_judged_tests_are_skipped_without_jury(project: pytest.Pytester) -> None:
    result = run(project, "-rs")
    result.assert_outcomes(passed=1, skipped=3)
    result.stdout.fnmatch_lines(["*pass --jury or set JURY_RUN=1*"])


def test_outcomes_with_jury(project: pytest.Pytester) -> None:
    result = run(project, "--jury")
    assert result.parseoutcomes() == {"passed": 2, "failed": 1, "unavailable": 1}
    assert result.ret == 1
    out = result.stdout.str()
    # A readable failure: what was expected, the reasons, the scores, each juror.
    assert "expected PASS" in out
    assert "the jury said FAIL" in out
    assert "scores: relevance" in out
    assert "offline/reference: FAIL" in out
    # The unavailable judge is listed apart, not among the failures.
    result.stdout.fnmatch_lines(
        ["*judges unavailable (not test failures)*", "*test_judge_down*down/judge unavailable*"]
    )
    assert "FAILED test_judged.py::test_judge_down" not in out


def test_jury_run_variable_enables_judged_tests(
    project: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("JURY_RUN", "1")
    run(project, "-k", "good").assert_outcomes(passed=1, deselected=3)


def test_unavailable_as_skip_or_fail(project: pytest.Pytester) -> None:
    skip = run(project, "--jury", "--jury-on-unavailable=skip", "-rs", "-k", "down")
    skip.assert_outcomes(skipped=1, deselected=3)
    skip.stdout.fnmatch_lines(["*judge unavailable: case test_judge_down*"])
    assert skip.ret == 0
    fail = run(project, "--jury", "--jury-on-unavailable=fail", "-k", "down")
    fail.assert_outcomes(failed=1, deselected=3)
    fail.stdout.fnmatch_lines(["*JudgeUnavailable*"])


def test_no_verdict_from_the_judges_is_never_a_test_failure(project: pytest.Pytester) -> None:
    # A new user's trial: with `require_every_juror`, a down judge left the case INCONCLUSIVE
    # with a quorum of valid votes, and assert_passes reported a plain FAILED, even with
    # --jury-on-unavailable=skip; a tie was a plain failure too, where `jury run` exits 3.
    project.makepyfile(test_more=MORE_TESTS)
    result = run(project, "--jury", "test_more.py")
    assert result.parseoutcomes() == {"passed": 1, "unavailable": 1, "inconclusive": 1}
    result.stdout.fnmatch_lines(
        [
            "*judges unavailable (not test failures)*",
            "*test_every_juror_required*INCONCLUSIVE with 1 valid vote(s)*down/b unavailable*",
            "*no verdict: the jury was inconclusive (not test failures)*",
            "*test_tie: no verdict to assert: case *: the jury said INCONCLUSIVE*",
        ]
    )
    assert "FAILED" not in result.stdout.str()
    skipped = run(project, "--jury", "--jury-on-unavailable=skip", "-rs", "test_more.py")
    skipped.assert_outcomes(passed=1, skipped=2)
    skipped.stdout.fnmatch_lines(["*jury inconclusive: no verdict to assert*"])
    assert skipped.ret == 0


def test_a_juror_that_cannot_work_stops_the_session_as_a_usage_error(
    project: pytest.Pytester,
) -> None:
    # As `jury run` stops with exit 2 before it pays for more cases, not as a failed test,
    # and never as an unavailable judge that --jury-on-unavailable=skip would hide.
    project.makepyfile(
        test_gone="""
import pytest

@pytest.mark.jury(file="gone.toml")
async def test_first(judge):
    await judge.assert_passes(question="q", answer="a", golden_answer="a", context="a")

@pytest.mark.jury(file="gone.toml")
async def test_second(judge):
    await judge.assert_passes(question="q", answer="a", golden_answer="a", context="a")
"""
    )
    result = run(project, "--jury", "--jury-on-unavailable=skip", "test_gone.py")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    out = result.stdout.str() + result.stderr.str()
    assert "test_first: gone/judge cannot work" in out
    assert "model not found" in out
    assert "test_second" not in out


def test_a_juror_that_cannot_work_inside_an_exception_group_stops_the_session_too(
    project: pytest.Pytester,
) -> None:
    # A test that judges its cases in a TaskGroup gets the JurorUnusable wrapped (nested,
    # here): the session stops the same way, naming the juror, not a failed test.
    project.makepyfile(
        test_grouped="""
import asyncio
import pytest

@pytest.mark.jury(file="gone.toml")
async def test_first(judge):
    async def judged():
        async with asyncio.TaskGroup() as group:
            group.create_task(
                judge.assert_passes(question="q", answer="a", golden_answer="a", context="a")
            )
    async with asyncio.TaskGroup() as outer:
        outer.create_task(judged())

@pytest.mark.jury(file="gone.toml")
async def test_second(judge):
    await judge.assert_passes(question="q", answer="a", golden_answer="a", context="a")
"""
    )
    result = run(project, "--jury", "--jury-on-unavailable=skip", "test_grouped.py")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    out = result.stdout.str() + result.stderr.str()
    assert "test_first: gone/judge cannot work" in out
    assert "model not found" in out
    assert "test_second" not in out


SKIPPED_TOOL = """
import pytest

TRACE = dict(
    question="Where is my order ORD-101?",
    answer="ORD-101 has been shipped and has not been delivered yet.",
    golden_answer="ORD-101 has been shipped and has not been delivered yet.",
    expected_tool="getOrderStatus",
    trace={"tool_calls": []},
)

@pytest.mark.jury
async def test_a_trace_that_skipped_the_tool(judge):
    await judge.assert_passes(**TRACE)

@pytest.mark.jury(checks=False)
async def test_the_same_answer_judged_alone(judge):
    await judge.assert_passes(**TRACE)
"""


def test_a_failed_check_fails_the_test_as_it_fails_the_run(project: pytest.Pytester) -> None:
    # The answer is right, but the agent never called the tool it had to: `jury run` fails
    # the case on the tool_choice check, and so does the plugin, unless told otherwise.
    project.makepyfile(test_trace=SKIPPED_TOOL)
    result = run(project, "--jury", "test_trace.py")
    result.assert_outcomes(passed=1, failed=1)
    result.stdout.fnmatch_lines(["*check tool_choice failed*"])


JUDGED = Path(__file__).parents[1] / "judged"
JURY_MARK = 'pytest.mark.jury(file=HERE / "jury.toml")'
STRICT_MARK = f"pytestmark = [pytest.mark.asyncio, {JURY_MARK}]"
README_EXAMPLE = re.search(
    r"```python\n(.*?)```",
    (ROOT / "docs/pytest-plugin.md").read_text(encoding="utf-8"),
    re.S,
)
README_MARK = "@pytest.mark.asyncio  # pytest-asyncio in strict mode"
UNMARKED = """
from pathlib import Path

import pytest

@pytest.mark.jury(file=Path(__file__).parent / "jury.toml")
async def test_without_an_async_marker(judge):
    await judge.assert_criterion("Returns within 30 days.", "states the refund window")
"""


def judged_project(pytester: pytest.Pytester, mode: str, mark: str) -> None:
    """The example of `tests/judged` and the README's example in a fresh project, their async
    marker replaced by `mark`, and a judged test without any."""
    for name in ("conftest.py", "jury.toml", "down.toml"):
        pytester.path.joinpath(name).write_text(JUDGED.joinpath(name).read_text())
    source = JUDGED.joinpath("test_criteria.py").read_text()
    assert STRICT_MARK in source
    marks = f"[{mark}, {JURY_MARK}]" if mark else f"[{JURY_MARK}]"
    pytester.path.joinpath("test_criteria.py").write_text(
        source.replace(STRICT_MARK, f"pytestmark = {marks}")
    )
    assert README_EXAMPLE is not None
    readme = README_EXAMPLE.group(1)
    line = next(x for x in readme.splitlines() if x.startswith(README_MARK))
    decorator = f"@{mark}" if mark else ""
    pytester.makepyfile(test_readme_example=readme.replace(line, decorator), test_unmarked=UNMARKED)
    pytester.makeini(f"[pytest]\nasyncio_mode = {mode}\n" if mode else "[pytest]\n")


@pytest.mark.parametrize(
    ("mode", "mark", "plugin", "outcomes"),
    [
        ("strict", "pytest.mark.asyncio", "pytest_asyncio.plugin", {"passed": 7, "errors": 1}),
        ("auto", "", "pytest_asyncio.plugin", {"passed": 8}),
        ("", "pytest.mark.anyio", "anyio.pytest_plugin", {"passed": 7, "errors": 1}),
    ],
    ids=["pytest-asyncio strict", "pytest-asyncio auto", "anyio"],
)
def test_judged_tests_under_each_async_plugin(
    pytester: pytest.Pytester,
    monkeypatch: pytest.MonkeyPatch,
    mode: str,
    mark: str,
    plugin: str,
    outcomes: dict[str, int],
) -> None:
    # Criteria with and without refute, one jury for the session, an unavailable judge on a
    # fake clock, and the README's example: each under the marker the README names for it.
    monkeypatch.setenv("PYTHONPATH", str(ROOT))
    monkeypatch.setenv("PYTEST_DISABLE_PLUGIN_AUTOLOAD", "1")
    monkeypatch.delenv("JURY_RUN", raising=False)
    judged_project(pytester, mode, mark)
    result = pytester.runpytest_subprocess(
        "-p", "jury.pytest_plugin", "-p", plugin, "-p", "no:cacheprovider", "--jury", "-rE"
    )
    result.assert_outcomes(**outcomes)
    if "errors" in outcomes:
        # The test no plugin runs says which marker it needs.
        result.stdout.fnmatch_lines(
            [
                "*test_without_an_async_marker is async, but no plugin runs it: mark it "
                "@pytest.mark.asyncio*asyncio_mode = auto*@pytest.mark.anyio*"
            ]
        )


AGENT_FILE = """
import json
from pathlib import Path
from jury import Case
from jury.adapters import AgentReply

RECORDED = {}
for line in Path(EXAMPLE).read_text().splitlines():
    case = Case.model_validate(json.loads(line))
    RECORDED[case.id] = case


async def answer(case):
    if case.id == "edge-return-day30":
        raise RuntimeError("the policy index is down")
    known = RECORDED[case.id]
    return AgentReply(answer=known.answer, trace=known.trace)
"""

AGENT_TESTS = """
import json
from pathlib import Path

import pytest
from jury import Case

@pytest.mark.jury
async def test_every_golden_case(judge):
    out = {}
    for line in Path("golden.jsonl").read_text().splitlines():
        verdict = await judge.run(Case.model_validate_json(line), agent="agent.py:answer")
        out[verdict.case_id] = [verdict.verdict.value, list(verdict.reasons)]
    Path("plugin.json").write_text(json.dumps(out))
"""


def test_judge_run_with_an_agent_gives_the_verdicts_jury_run_gives_agent_failures_included(
    project: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    import json

    from jury.cli import main

    example = ROOT / "examples" / "shopnest" / "cases.jsonl"
    golden = []
    for line in example.read_text().splitlines():
        record = json.loads(line)
        record.pop("trace")
        golden.append(json.dumps(record) + "\n")
    project.path.joinpath("golden.jsonl").write_text("".join(golden))
    project.path.joinpath("agent.py").write_text(f"EXAMPLE = {str(example)!r}\n" + AGENT_FILE)
    project.makepyfile(test_agent=AGENT_TESTS)
    monkeypatch.chdir(project.path)
    monkeypatch.setenv("JURY_CACHE_DIR", str(project.path / "cache"))
    assert main(["run", "golden.jsonl", "--agent", "agent.py:answer", "--out", "run"]) == 1
    by_run = {}
    for line in (project.path / "run" / "verdicts.jsonl").read_text().splitlines():
        data = json.loads(line)
        by_run[data["case_id"]] = [data["verdict"], list(data.get("reasons", ()))]

    result = run(project, "--jury", "test_agent.py")
    result.assert_outcomes(passed=1)
    by_plugin = json.loads((project.path / "plugin.json").read_text())
    assert by_plugin == by_run
    assert by_plugin["edge-return-day30"][0] == "FAIL"
    assert "the policy index is down" in by_plugin["edge-return-day30"][1][0]
