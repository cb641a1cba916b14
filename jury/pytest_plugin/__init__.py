"""The pytest plugin: judged tests that stay free and offline until they are asked for.

::

    @pytest.mark.asyncio                  # pytest-asyncio, strict mode (its default)
    @pytest.mark.jury(file="jury.toml")
    async def test_refund_answer(judge):
        reply = await agent("Can I return ORD-102?")
        await judge.assert_criterion(reply, "states the refund window")
        await judge.assert_criterion(reply, "promises an exception to the policy", refute=True)
        await judge.assert_passes(question="Can I return ORD-102?", answer=reply,
                                  golden_answer="Yes, within the 30-day window.")

- Tests marked ``jury`` (and tests that use the ``judge`` fixture) are collected but skipped
  unless ``--jury`` is given or ``JURY_RUN=1`` is set: a plain ``pytest`` calls no judge.
- The jury file comes from the marker (``file=``), else the ``jury_file`` ini option, else
  the offline reference panel.
- `Judge.assert_criterion` judges one prose criterion, written positively (``refute=True``
  passes when it does not hold), with the built-in criterion rubric kind.
- One `Jury` per jury file serves the whole session, so that its tests share the call cache
  (``.jury-cache``, as `jury run`; ``--jury-no-cache`` to skip it) and the account limits.
  The juries run on an event loop of their own (`jury.engine._loop_thread`): a test awaits them
  from its own loop, so pytest-asyncio in strict or auto mode, with any loop scope, and anyio
  (asyncio backend) all work. The ``jury_factory`` fixture builds them; override it (session
  scope) to give them a `FakeClock`, a budget, your own checks.
- The panel's deterministic checks run first, as under ``jury run``: a case whose trace
  fails a required check fails here too. ``@pytest.mark.jury(checks=False)`` turns them off.
- A judge that is unavailable (down, rate-limited past its retries, replying garbage) is
  never a plain failure: it is its own outcome, ``unavailable``, listed apart in the summary
  (``--jury-on-unavailable=error``, the default), or a skip (``skip``), or, when a team
  insists, a failure (``fail``). A case the judges left INCONCLUSIVE (a tie the panel does not
  break) has no verdict to assert either: its outcome is ``inconclusive``, handled the same
  way. A juror that cannot work (`jury.JurorUnusable`: a mistyped model, nothing at its URL)
  stops the session as a usage error (exit 4), as it stops `jury run` (exit 2).
- An async judged test that no async plugin runs (pytest-asyncio's strict mode without
  ``@pytest.mark.asyncio``) errors with the marker it needs, instead of a bare "not natively
  supported".
- A panel's warnings (jurors of one family, aliases, models their provider has deprecated)
  are listed once in the summary, as under ``jury run``; a retired model is refused unless
  the jury file sets ``allow_retired = true``.
"""

from __future__ import annotations

import inspect
import os
from collections.abc import Callable, Coroutine, Iterator
from pathlib import Path
from typing import Any, TypeVar

import pytest

from .._errors import JurorUnusable
from .._verdict import CaseVerdict, Verdict, VoteStatus
from ..adapters._registry import build_rubric
from ..adapters._request import CallCache
from ..cases._case import Case
from ..engine._agent_step import answer_and_judge
from ..engine._jury import Jury
from ..engine._loop_thread import LoopThread
from ..panel._agent_spec import AgentLike, as_agent
from ..panel._defaults import default_panel
from ..panel._lifecycle import agent_lifecycle
from ..panel._panel import Panel, load_panel
from ._outcomes import JudgeUnavailable, JuryAssertionError, JuryInconclusive, conclusive, explain

__all__ = [
    "Judge",
    "JudgeUnavailable",
    "JuryAssertionError",
    "JuryFactory",
    "JuryInconclusive",
    "JurySession",
]
# The outcomes are defined in `_outcomes`; their front door is here.
for _outcome in (JudgeUnavailable, JuryAssertionError, JuryInconclusive):
    _outcome.__module__ = __name__

T = TypeVar("T")

#: Builds a session's jury: ``factory(panel, checks=..., cache=...)``; `Jury` itself by default.
JuryFactory = Callable[..., Jury]

ON_UNAVAILABLE = ("error", "skip", "fail")
_SKIP_REASON = "judged test: pass --jury or set JURY_RUN=1 to call the judges"


class JurySession:
    """The juries of a test session: one per jury file and checks setting, built on first use
    and shared by every test, on an event loop of their own."""

    def __init__(
        self,
        factory: JuryFactory,
        cache: CallCache | None = None,
        *,
        vet: Callable[[Panel], Panel] | None = None,
    ) -> None:
        self.factory = factory
        self.cache = cache
        #: Sees each panel before its jury is built: its warnings said, a retired model refused.
        self.vet = vet
        self._loop = LoopThread("aiojury-pytest")
        self._juries: dict[tuple[str | None, bool], Jury] = {}

    def jury(self, file: Path | None, *, checks: bool = True) -> Jury:
        key = (str(file) if file is not None else None, checks)
        jury = self._juries.get(key)
        if jury is None:
            panel = load_panel(file) if file is not None else default_panel()
            if self.vet is not None:
                panel = self.vet(panel)
            jury = self.factory(panel, checks="panel" if checks else None, cache=self.cache)
            self._juries[key] = jury
        return jury

    async def run(self, coro: Coroutine[Any, Any, T]) -> T:
        """Await `coro` (a jury's work) on the session's loop, from the test's loop."""
        return await self._loop.run(coro)

    def close(self) -> None:
        try:
            self._loop.close(*(jury.aclose() for jury in self._juries.values()))
        finally:
            self._juries.clear()
            if self.cache is not None and hasattr(self.cache, "close"):
                self.cache.close()


class Judge:
    """The ``judge`` fixture's value: judges one case at a time with the test's jury."""

    def __init__(
        self,
        session: JurySession,
        file: Path | None = None,
        default_id: str = "case",
        *,
        checks: bool = True,
    ) -> None:
        self.session = session
        self.file = file
        self.default_id = default_id
        self.checks = checks

    @property
    def jury(self) -> Jury:
        """The session's jury for this test's jury file."""
        return self.session.jury(self.file, checks=self.checks)

    def _case(self, case: Case | None, fields: dict[str, Any]) -> Case:
        if case is not None:
            if fields:
                raise TypeError("give a Case or its fields, not both")
            return case
        return Case.model_validate({"id": self.default_id, **fields})

    async def judge(self, case: Case | None = None, /, **fields: Any) -> CaseVerdict:
        """The jury's verdict on a case (or on the case these fields describe).

        Raises `JudgeUnavailable` when the case is INCONCLUSIVE and some judge was unavailable
        or replied invalid: no verdict, because the judges failed. (An INCONCLUSIVE verdict
        the judges reached, a tie, is returned; the ``assert_`` methods raise
        `JuryInconclusive` on it.)
        """
        return await self._verdict(self.jury, self._case(case, fields))

    async def run(
        self,
        case: Case | None = None,
        /,
        *,
        agent: AgentLike,
        agent_timeout: float = 60.0,
        **fields: Any,
    ) -> CaseVerdict:
        """Ask `agent` (what ``jury run --agent`` takes: an `Agent`, a SPEC, or a sync or async
        function of the case) about a golden case, then judge its answer: the verdict `jury
        run --agent` gives that case. An agent that raises, times out or answers nothing FAILs
        the case at the stage "agent"."""
        agent = as_agent(agent)
        subject = self._case(case, fields)
        jury = self.jury
        agent_lifecycle(agent, jury.panel)  # as `jury run` and `Jury.evaluate` refuse it
        judged = answer_and_judge(jury.judge, subject, agent, agent_timeout)
        return await self._verdict(jury, subject, judged)

    async def _verdict(
        self,
        jury: Jury,
        subject: Case,
        judging: Coroutine[Any, Any, CaseVerdict] | None = None,
    ) -> CaseVerdict:
        verdict = await self.session.run(judging or jury.judge(subject))
        broken = [
            v for v in verdict.votes if v.status in (VoteStatus.UNAVAILABLE, VoteStatus.INVALID)
        ]
        # Whatever made it INCONCLUSIVE (too few valid votes, `require_every_juror`, a tie a
        # lost vote might have broken), a judge that failed is why there is no verdict.
        if verdict.verdict is Verdict.INCONCLUSIVE and broken:
            details = "; ".join(f"{v.juror} {v.status.value}: {v.error or ''}" for v in broken)
            raise JudgeUnavailable(
                f"case {verdict.case_id}: INCONCLUSIVE with {verdict.valid_votes} valid vote(s) "
                f"({jury.quorum} needed); {details}"
            )
        return verdict

    async def assert_passes(self, case: Case | None = None, /, **fields: Any) -> CaseVerdict:
        __tracebackhide__ = True
        return await self._expect(Verdict.PASS, case, fields)

    async def assert_fails(self, case: Case | None = None, /, **fields: Any) -> CaseVerdict:
        __tracebackhide__ = True
        return await self._expect(Verdict.FAIL, case, fields)

    async def assert_criterion(
        self, reply: str | Case, criterion: str, *, refute: bool = False, **fields: Any
    ) -> CaseVerdict:
        """Assert that the reply meets one prose criterion, written positively ("states the
        refund window"); with `refute`, that it does not. `fields` describe the rest of the
        case (``question=``, ``golden_answer=``, ``trace=``...).

        The test's jurors judge it with the built-in criterion rubric kind, on the session's
        jury (its cache and limits), after the panel's checks.
        """
        __tracebackhide__ = True
        rubric = build_rubric(
            {"kind": "criterion", "name": "criterion", "criterion": criterion, "refute": refute},
            "assert_criterion",
        )
        subject = (
            reply if isinstance(reply, Case) else self._case(None, {**fields, "answer": reply})
        )
        verdict = await self._verdict(self.jury.with_rubric(rubric), subject)
        conclusive(verdict)
        if verdict.verdict is not Verdict.PASS:
            wanted = "not to meet" if refute else "to meet"
            raise JuryAssertionError(
                f"expected the answer {wanted} the criterion {criterion!r}; "
                + explain(verdict).replace("case ", "", 1),
                verdict,
            )
        return verdict

    async def _expect(
        self, expected: Verdict, case: Case | None, fields: dict[str, Any]
    ) -> CaseVerdict:
        __tracebackhide__ = True
        verdict = await self.judge(case, **fields)
        conclusive(verdict)
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
    group.addoption(
        "--jury-no-cache",
        action="store_true",
        dest="jury_no_cache",
        help="neither read nor write the call cache (default: .jury-cache, as jury run)",
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


@pytest.fixture(scope="session")
def jury_factory() -> JuryFactory:
    """How the session's juries are built: ``factory(panel, checks=..., cache=...)``, `Jury`
    itself by default. Override it in a conftest (session scope) to build them otherwise::

        @pytest.fixture(scope="session")
        def jury_factory():
            clock = FakeClock()  # retries and rate limits without waiting
            return lambda panel, **options: jury.Jury(panel, clock=clock, **options)
    """
    return Jury


@pytest.fixture(scope="session")
def jury_session(
    request: pytest.FixtureRequest, jury_factory: JuryFactory
) -> Iterator[JurySession]:
    """The juries every judged test of the session shares (one per jury file)."""
    cache = None
    if not request.config.getoption("jury_no_cache"):
        from ..engine._cache import SqliteCache

        cache = SqliteCache()
        if cache.notice is not None:  # an older cache taken over: said in the summary
            request.config.stash.setdefault(_WARNINGS, {})[cache.notice] = None
    session = JurySession(jury_factory, cache, vet=lambda panel: _warned(request.config, panel))
    yield session
    session.close()


@pytest.fixture
def judge(request: pytest.FixtureRequest) -> Judge:
    """A `Judge` with the jury of the test's jury file (marker, ini option, or offline)."""
    if not _enabled(request.config):
        pytest.skip(_SKIP_REASON)
    marker = request.node.get_closest_marker("jury")
    file = None
    checks = True
    if marker is not None:
        file = marker.kwargs.get("file") or (marker.args[0] if marker.args else None)
        checks = bool(marker.kwargs.get("checks", True))
    file = file or request.config.getini("jury_file") or None
    path = None
    if file is not None:
        path = Path(file)
        if not path.is_absolute():
            path = request.config.rootpath / path
    session: JurySession = request.getfixturevalue("jury_session")
    return Judge(session, path, request.node.name, checks=checks)


def pytest_runtest_setup(item: pytest.Item) -> None:
    """An async judged test that no async plugin will run errors with the marker it needs."""
    if not isinstance(item, pytest.Function) or "judge" not in item.fixturenames:
        return
    if not _enabled(item.config) or not inspect.iscoroutinefunction(item.obj):
        return
    # pytest-asyncio turns the async tests it runs into its own Function subclass; anyio
    # runs those marked `anyio`.
    if type(item) is pytest.Function and item.get_closest_marker("anyio") is None:
        pytest.fail(
            f"{item.name} is async, but no plugin runs it: mark it @pytest.mark.asyncio "
            "(pytest-asyncio in strict mode, its default), set asyncio_mode = auto, or mark it "
            "@pytest.mark.anyio (anyio's pytest plugin)",
            pytrace=False,
        )


_WARNINGS = pytest.StashKey[dict[str, None]]()


def _warned(config: pytest.Config, panel: Panel) -> Panel:
    """The panel, its warnings kept for the summary (each said once, whatever the tests)."""
    from ..panel._warnings import panel_warnings

    said = config.stash.setdefault(_WARNINGS, {})
    said.update(dict.fromkeys(panel_warnings(panel)))
    return panel


def _unusable(error: BaseException) -> JurorUnusable | None:
    """The juror that cannot work behind `error`, even when a test's own TaskGroup (or any
    exception group, nested) wrapped it: it stops the session all the same."""
    if isinstance(error, BaseExceptionGroup):
        found = (_unusable(inner) for inner in error.exceptions)
        return next((unusable for unusable in found if unusable is not None), None)
    return error if isinstance(error, JurorUnusable) else None


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> Any:
    report = yield
    unusable = _unusable(call.excinfo.value) if call.excinfo is not None else None
    if unusable is not None:
        # As `jury run` stops (exit 2) before it pays for more cases: the session stops, a
        # usage error, never a test failure nor an unavailable judge a skip would hide.
        pytest.exit(f"{item.nodeid}: {unusable}", returncode=pytest.ExitCode.USAGE_ERROR)
    if call.excinfo is None or not call.excinfo.errisinstance(JudgeUnavailable):
        return report
    mode = _on_unavailable(item.config)
    message = str(call.excinfo.value)
    kind = "inconclusive" if call.excinfo.errisinstance(JuryInconclusive) else "unavailable"
    if mode == "skip":
        report.outcome = "skipped"
        path, line, _ = item.location
        said = "jury inconclusive" if kind == "inconclusive" else "judge unavailable"
        report.longrepr = (path, (line or 0) + 1, f"{said}: {message}")
    elif mode == "error":
        report.jury_unavailable = message
        report.jury_outcome = kind
    return report


def pytest_report_teststatus(report: pytest.TestReport, config: pytest.Config) -> Any:
    if getattr(report, "jury_unavailable", None) and report.failed:
        kind = getattr(report, "jury_outcome", "unavailable")
        return kind, kind[0].upper(), (kind.upper(), {"yellow": True})
    return None


def pytest_terminal_summary(terminalreporter: Any, exitstatus: int, config: pytest.Config) -> None:
    warnings = config.stash.get(_WARNINGS, {})
    if warnings:
        terminalreporter.section("jury warnings", yellow=True)
        for warning in warnings:
            terminalreporter.line(warning)
    for kind, title in (
        ("unavailable", "judges unavailable (not test failures)"),
        ("inconclusive", "no verdict: the jury was inconclusive (not test failures)"),
    ):
        reports = terminalreporter.stats.get(kind, [])
        if reports:
            terminalreporter.section(title, yellow=True)
            for report in reports:
                terminalreporter.line(f"{report.nodeid}: {report.jury_unavailable}")
