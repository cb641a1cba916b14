"""The pytest plugin: judged tests that stay free and offline until they are asked for.

::

    @pytest.mark.jury(file="jury.toml")
    async def test_refund_answer(judge):
        await judge.assert_passes(question="Can I return ORD-102?", answer=reply.answer,
                                  golden_answer="Yes, within the 30-day window.")

- Tests marked ``jury`` (and tests that use the ``judge`` fixture) are collected but skipped
  unless ``--jury`` is given or ``JURY_RUN=1`` is set: a plain ``pytest`` calls no judge.
- The jury file comes from the marker (``file=``), else the ``jury_file`` ini option, else
  the offline reference panel.
- The panel's deterministic checks run first, as under ``jury run``: a case whose trace
  fails a required check fails here too. ``@pytest.mark.jury(checks=False)`` turns them off.
- A judge that is unavailable (down, rate-limited past its retries, replying garbage) is
  never a plain failure: it is its own outcome, ``unavailable``, listed apart in the summary
  (``--jury-on-unavailable=error``, the default), or a skip (``skip``), or, when a team
  insists, a failure (``fail``).
- A panel's warnings (jurors of one family, aliases, models their provider has deprecated)
  are listed once in the summary, as under ``jury run``; a retired model is refused unless
  the jury file sets ``allow_retired = true``.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

from ._case import Case
from ._defaults import default_panel
from ._jury import Jury
from ._panel import Panel, load_panel
from ._verdict import CaseVerdict, Verdict, VoteStatus

__all__ = ["Judge", "JudgeUnavailable", "JuryAssertionError"]

ON_UNAVAILABLE = ("error", "skip", "fail")
_SKIP_REASON = "judged test: pass --jury or set JURY_RUN=1 to call the judges"


class JudgeUnavailable(Exception):
    """The judges could not give a verdict: not the code under test's failure."""


class JuryAssertionError(AssertionError):
    """The jury's verdict was not the one the test expected."""

    def __init__(self, message: str, verdict: CaseVerdict) -> None:
        super().__init__(message)
        self.verdict = verdict


def explain(verdict: CaseVerdict) -> str:
    """The verdict as a person reads it: reasons, scores, each juror, and the dissent."""
    lines = [f"case {verdict.case_id}: the jury said {verdict.verdict.value}"]
    lines += [f"  {reason}" for reason in verdict.reasons]
    if verdict.metrics:
        scores = ", ".join(
            f"{name} {result.value if result.value is not None else '?'}"
            for name, result in verdict.metrics.items()
        )
        lines.append(f"  scores: {scores}")
    for check in verdict.checks:
        lines.append(f"  check {check.name}: {check.outcome.value} {check.reason}".rstrip())
    lines.append("  jurors:")
    for vote in verdict.votes:
        said = vote.verdict.value if vote.verdict else vote.status.value
        scores = ", ".join(f"{k} {v}" for k, v in vote.scores.items())
        lines.append(f"    {vote.juror}: {said}" + (f" [{scores}]" if scores else ""))
        if vote.reason or vote.error:
            lines.append(f"      {vote.reason or vote.error}")
    if verdict.disagreement:
        lines.append("  disagreement: " + "; ".join(verdict.disagreement_reasons))
        for dissent in verdict.dissent:
            said = dissent.verdict.value if dissent.verdict else "-"
            lines.append(f"    dissent from {dissent.juror} ({said}): {dissent.reason}")
    return "\n".join(lines)


class Judge:
    """The ``judge`` fixture's value: judges one case at a time with the test's panel."""

    def __init__(self, panel: Panel, default_id: str = "case", *, checks: bool = True) -> None:
        self.panel = panel
        self.default_id = default_id
        self.checks = checks

    def _case(self, case: Case | None, fields: dict[str, Any]) -> Case:
        if case is not None:
            if fields:
                raise TypeError("give a Case or its fields, not both")
            return case
        return Case.model_validate({"id": self.default_id, **fields})

    async def judge(self, case: Case | None = None, /, **fields: Any) -> CaseVerdict:
        """The jury's verdict on a case (or on the case these fields describe).

        Raises `JudgeUnavailable` when too few judges could vote: that is no verdict at all.
        """
        subject = self._case(case, fields)
        # A Jury per call: its clients then live and die on the test's own event loop.
        async with Jury(self.panel, checks="panel" if self.checks else None) as jury:
            verdict = await jury.judge(subject)
            quorum = jury.quorum
        broken = [
            v for v in verdict.votes if v.status in (VoteStatus.UNAVAILABLE, VoteStatus.INVALID)
        ]
        if verdict.verdict is Verdict.INCONCLUSIVE and broken and verdict.valid_votes < quorum:
            details = "; ".join(f"{v.juror} {v.status.value}: {v.error or ''}" for v in broken)
            raise JudgeUnavailable(
                f"case {verdict.case_id}: {verdict.valid_votes} valid vote(s), {quorum} needed; "
                f"{details}"
            )
        return verdict

    async def assert_passes(self, case: Case | None = None, /, **fields: Any) -> CaseVerdict:
        __tracebackhide__ = True
        return await self._expect(Verdict.PASS, case, fields)

    async def assert_fails(self, case: Case | None = None, /, **fields: Any) -> CaseVerdict:
        __tracebackhide__ = True
        return await self._expect(Verdict.FAIL, case, fields)

    async def _expect(
        self, expected: Verdict, case: Case | None, fields: dict[str, Any]
    ) -> CaseVerdict:
        __tracebackhide__ = True
        verdict = await self.judge(case, **fields)
        if verdict.verdict is not expected:
            raise JuryAssertionError(
                f"expected {expected.value}; " + explain(verdict).replace("case ", "", 1),
                verdict,
            )
        return verdict


def _enabled(config: pytest.Config) -> bool:
    return bool(config.getoption("jury_run")) or os.environ.get("JURY_RUN") == "1"


def _on_unavailable(config: pytest.Config) -> str:
    value = config.getoption("jury_on_unavailable") or config.getini("jury_on_unavailable")
    if value not in ON_UNAVAILABLE:
        raise pytest.UsageError(f"jury_on_unavailable: expected one of {ON_UNAVAILABLE}")
    return str(value)


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("jury", "aiojury judged tests")
    group.addoption(
        "--jury",
        action="store_true",
        dest="jury_run",
        help="run judged tests (they are skipped otherwise; also JURY_RUN=1)",
    )
    group.addoption(
        "--jury-on-unavailable",
        choices=ON_UNAVAILABLE,
        default=None,
        dest="jury_on_unavailable",
        help="report a test whose judges are unavailable as its own outcome (error, the "
        "default), as skipped, or as failed",
    )
    parser.addini("jury_file", "jury file (TOML) for the judge fixture", default="")
    parser.addini(
        "jury_on_unavailable", "error, skip or fail (see --jury-on-unavailable)", default="error"
    )


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers",
        "jury(file=None, checks=True): a judged test, skipped unless --jury or JURY_RUN=1; "
        "file= names its jury file; checks=False skips the panel's deterministic checks",
    )


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    if _enabled(config):
        return
    skip = pytest.mark.skip(reason=_SKIP_REASON)
    for item in items:
        if item.get_closest_marker("jury") is not None:
            item.add_marker(skip)


@pytest.fixture
def judge(request: pytest.FixtureRequest) -> Judge:
    """A `Judge` with the panel of the test's jury file (marker, ini option, or offline)."""
    if not _enabled(request.config):
        pytest.skip(_SKIP_REASON)
    marker = request.node.get_closest_marker("jury")
    file = None
    checks = True
    if marker is not None:
        file = marker.kwargs.get("file") or (marker.args[0] if marker.args else None)
        checks = bool(marker.kwargs.get("checks", True))
    file = file or request.config.getini("jury_file") or None
    if file is None:
        return Judge(_warned(request.config, default_panel()), request.node.name, checks=checks)
    path = Path(file)
    if not path.is_absolute():
        path = request.config.rootpath / path
    return Judge(_warned(request.config, load_panel(path)), request.node.name, checks=checks)


_WARNINGS = pytest.StashKey[dict[str, None]]()


def _warned(config: pytest.Config, panel: Panel) -> Panel:
    """The panel, its warnings kept for the summary (each said once, whatever the tests)."""
    from ._panel_warnings import panel_warnings

    said = config.stash.setdefault(_WARNINGS, {})
    said.update(dict.fromkeys(panel_warnings(panel)))
    return panel


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> Any:
    report = yield
    if call.excinfo is None or not call.excinfo.errisinstance(JudgeUnavailable):
        return report
    mode = _on_unavailable(item.config)
    message = str(call.excinfo.value)
    if mode == "skip":
        report.outcome = "skipped"
        path, line, _ = item.location
        report.longrepr = (path, (line or 0) + 1, f"judge unavailable: {message}")
    elif mode == "error":
        report.jury_unavailable = message
    return report


def pytest_report_teststatus(report: pytest.TestReport, config: pytest.Config) -> Any:
    if getattr(report, "jury_unavailable", None) and report.failed:
        return "unavailable", "U", ("UNAVAILABLE", {"yellow": True})
    return None


def pytest_terminal_summary(terminalreporter: Any, exitstatus: int, config: pytest.Config) -> None:
    warnings = config.stash.get(_WARNINGS, {})
    if warnings:
        terminalreporter.section("jury warnings", yellow=True)
        for warning in warnings:
            terminalreporter.line(warning)
    reports = terminalreporter.stats.get("unavailable", [])
    if not reports:
        return
    terminalreporter.section("judges unavailable (not test failures)", yellow=True)
    for report in reports:
        terminalreporter.line(f"{report.nodeid}: {report.jury_unavailable}")
