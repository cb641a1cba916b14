"""`Jury`, the public front of the engine: it resolves a panel and wires the layers.

    case layer (`_judging`)  checks, then every juror's vote, then the decision
    vote layer (`_votes`)    samples, the rubric's prompts, re-asks, validation, fallback
    call layer (`_calls`)    cache -> budget -> account limiter -> timeout -> retry -> price
    model (`providers`)      the wire mapping, over a direct aiohttp client or the SDK

Cases stream through `VerdictStream` (`_stream`), which stops every call when it is left.
"""

from __future__ import annotations

import copy
import os
import random
from collections.abc import AsyncIterable, Iterable, Sequence
from typing import TYPE_CHECKING, Any, Literal, TypeGuard

from .._clock import Clock
from .._errors import ConfigError
from .._logging import Events
from .._redact import secret_values
from .._verdict import CaseVerdict, CheckOutcome, CheckResult, Vote
from ..adapters._agent import Agent
from ..adapters._model import JudgeModel
from ..adapters._registry import family_of, load_rubric, resolve_model
from ..adapters._request import CallCache, JudgeReply, Usage
from ..adapters._rubric import Rubric
from ..adapters._strategy import strategy_named
from ..cases._case import Case
from ..decide._cascade import reducer
from ..decide._learned import Fits, load_fit
from ..panel._agent_spec import AgentLike, as_agent
from ..panel._lifecycle import refuse_retired
from ..panel._panel import Juror, Panel
from ._agent_step import AgentStep
from ._calls import CallLayer
from ._judging import CaseJudge, Checker
from ._pipeline import agent_step, pipeline
from ._stream import VerdictStream
from ._votes import Seat, Voter

if TYPE_CHECKING:
    from ..checks import CheckSuite

__all__ = ["Checker", "Jury", "evaluate"]

#: `Jury(checks=PANEL_CHECKS)`, the default: the checks the panel's ``[checks]`` table sets.
PANEL_CHECKS: Literal["panel"] = "panel"

_PROBE_REPLY = JudgeReply(text="", model="", usage=Usage(1, 1))


def seats_of(panel: Panel, calls: CallLayer) -> tuple[Seat, ...]:
    """The panel's jurors as the vote layer's seats, each with its callers in fallback order."""
    firsts = [_as_model(juror.model) for juror in panel.jurors]
    for juror, first in zip(panel.jurors, firsts, strict=True):
        if juror.pinned is not None and isinstance(juror.model, str):
            first.pinned = juror.pinned  # resolved for this juror alone
    families = {
        juror.family or family(model) for juror, model in zip(panel.jurors, firsts, strict=True)
    }
    return tuple(
        _seat(panel, calls, juror, first, families)
        for juror, first in zip(panel.jurors, firsts, strict=True)
    )


def _seat(
    panel: Panel, calls: CallLayer, juror: Juror, first: JudgeModel, panel_families: set[str]
) -> Seat:
    fallbacks = [_as_model(f) for f in juror.fallbacks]
    if panel.fallback_order == "family":
        # A jury's strength is its diversity: try alternates of a family not already on
        # the panel first (stable, so the listed order decides among equals).
        fallbacks.sort(key=lambda m: family(m) in panel_families)
    models = (first, *fallbacks)
    return Seat(
        juror=juror,
        id=juror.id,
        callers=tuple(calls.caller(model) for model in models),
        weight=juror.weight,
        family=juror.family or family(first),
        samples=panel.samples_for(juror),
        temperature=juror.temperature if juror.temperature is not None else panel.temperature,
        offline=all(m.offline for m in models),
        max_tokens=juror.max_tokens,
        effort=juror.effort,
        strategy=strategy_named(juror.strategy),
    )


def _as_model(spec: str | JudgeModel) -> JudgeModel:
    return resolve_model(spec) if isinstance(spec, str) else spec


def family(model: JudgeModel) -> str:
    """A model's family: what its adapter says, else what its name tells."""
    return model.family if model.family != "unknown" else family_of(model.name)


class Jury:
    """A panel, ready to judge: resolved models, shared limits, and the rubric.

    Use one `Jury` for many cases so that they share provider limits::

        async with Jury(panel) as jury:
            async for verdict in jury.evaluate(cases):
                ...
            verdict = await jury.judge(case)
    """

    def __init__(
        self,
        panel: Panel,
        *,
        rubric: Rubric | None = None,
        clock: Clock | None = None,
        rng: random.Random | None = None,
        checks: Checker | Literal["panel", False] | None = PANEL_CHECKS,
        judge_all: bool = False,
        cache: CallCache | None = None,
        max_cost: float | None = None,
    ) -> None:
        """A panel with a model its provider has retired is refused (`ConfigError`) unless
        it sets ``allow_retired``. `checks` run before the judges: by default the panel's (its
        ``[checks]`` table), as under `jury run`; `None` or `False` runs none. A failed
        required check fails the case and, unless `judge_all`, spares the judges. `cache`
        keeps replies so that no call is paid twice. `max_cost` (USD) stops new calls once
        spent; cases left are INCONCLUSIVE ("budget")."""
        refuse_retired(panel)
        self.panel = panel
        self.rubric = rubric if rubric is not None else load_rubric(panel.rubric, panel.thresholds)
        self.clock = clock or Clock()
        self.checks = _checker(panel, checks)
        self.judge_all = judge_all
        self.max_cost = max_cost
        #: Warnings about the run (failover that doubled a family...), each said once.
        self.warnings: list[str] = []
        self._events = Events()
        self._calls = CallLayer(
            panel, clock=self.clock, rng=rng or random.Random(), cache=cache, max_cost=max_cost
        )
        if _is_suite(self.checks):
            # Its model checks (moderation) ask through this jury's call layer.
            self.checks = self.checks.bind(self._calls)
        self._seats = seats_of(panel, self._calls)
        ids = [seat.id for seat in self._seats]
        if len(set(ids)) != len(ids):
            raise ConfigError("two jurors have the same name; give one of them a 'name'")
        if max_cost is not None:
            if not max_cost >= 0:  # NaN too
                raise ConfigError(
                    f"max_cost {max_cost:g}: give the most to spend, in USD (0 or more)"
                )
            unpriced = [m.name for m in self.models if _price_unknown(m)]
            if unpriced:
                raise ConfigError(
                    "a budget needs a known price for every model; no price for "
                    + ", ".join(sorted(set(unpriced)))
                )
        self.quorum = panel.effective_quorum
        if self.quorum > len(self._seats):
            raise ConfigError(
                f"quorum {self.quorum} is more than the {len(self._seats)} jurors on the panel"
            )
        self._bind(self.rubric)

    def _bind(self, rubric: Rubric) -> None:
        """Build the vote and case layers for `rubric` over this jury's call layer."""
        panel = self.panel
        _refuse_strategies(self._seats, rubric)
        voter = Voter(
            rubric,
            reasks=panel.reasks,
            max_tokens=panel.max_tokens,
            aggregation=reducer(panel.aggregation),
            # Provider errors sometimes echo what they were sent; no key may reach a vote.
            secrets=secret_values(os.environ),
            events=self._events,
            on_failover=self._failed_over,
        )
        self._cases = CaseJudge(
            panel,
            rubric,
            self._seats,
            voter,
            checks=_runner(self.checks),
            judge_all=self.judge_all,
            quorum=self.quorum,
            over_budget=self._over_budget,
            fit=self._fit(),
            clock=self.clock,
            on_verdict=self._log,
        )

    def with_rubric(self, rubric: Rubric) -> Jury:
        """This jury asking another rubric: the same jurors, checks, cache, budget and account
        limits (one call layer), so that a harness can judge each case by its own criterion.
        Closing either closes the calls of both."""
        other = copy.copy(self)
        other.rubric = rubric
        other._bind(rubric)
        return other

    def _fit(self) -> Fits | None:
        """The learned jury of ``aggregation = "learned"``, checked against this panel."""
        if self.panel.calibration is None:
            return None
        fit = load_fit(self.panel.calibration)
        tiers = {seat.id: seat.juror.tier for seat in self._seats}
        fit.check_panel(tiers, self.rubric, self.panel.calibration)
        wanted = (self.panel.target_agreement, self.panel.risk)
        if self.panel.target_agreement is not None and (fit.target_agreement, fit.risk) != wanted:
            raise ConfigError(
                f"{self.panel.calibration}: calibrated for agreement {fit.target_agreement} at "
                f"risk {fit.risk}; the jury file asks {wanted[0]} at risk {wanted[1]}: "
                "calibrate again"
            )
        return fit

    @property
    def seats(self) -> tuple[Seat, ...]:
        return self._seats

    @property
    def jurors(self) -> tuple[str, ...]:
        return tuple(seat.id for seat in self._seats)

    @property
    def models(self) -> tuple[JudgeModel, ...]:
        return tuple(model for seat in self._seats for model in seat.models)

    @property
    def learned(self) -> tuple[str, ...]:
        """What the models learned of their servers before their first calls
        (`JudgeModel.learned`): one line each, for a run's notes and its manifest."""
        return tuple(dict.fromkeys(line for model in self.models for line in model.learned))

    @property
    def spent(self) -> float:
        """USD spent by this jury's calls so far (calls with a known price; the fake's cost
        nothing, though its budget counts them)."""
        return self._calls.budget.spent - self._calls.budget.fake

    async def __aenter__(self) -> Jury:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()

    async def aclose(self) -> None:
        await self._calls.aclose()

    def _over_budget(self) -> str | None:
        if not self._calls.budget.exhausted:
            return None
        said = f"budget: the run's cost limit of ${self.max_cost:g} was reached"
        if self._calls.budget.fake:  # nothing was paid: say what the limit was reached by
            said += (
                f" (${self._calls.budget.fake:.4g} of it is jury.testing's FAKE replies priced "
                "as the real API would charge them; they cost nothing)"
            )
        return said

    def _failed_over(self, seat: Seat, model: JudgeModel) -> None:
        kin = family(model)
        twins = [other.id for other in self._seats if other is not seat and other.family == kin]
        if not twins:
            return
        warning = (
            f"failover: {seat.id} was served by {model.name}, of the {kin} family like "
            f"{', '.join(twins)}: the panel lost a family"
        )
        if warning not in self.warnings:
            self.warnings.append(warning)
            self._events.warning("failover.family", juror=seat.id, model=model.name, family=kin)

    async def judge(self, case: Case) -> CaseVerdict:
        """Judge one case: its checks first, then every juror at once, then the verdict."""
        return await self._cases.judge(case)

    def decide(
        self,
        case: Case,
        votes: Sequence[Vote],
        *,
        checks: Sequence[CheckResult] = (),
        duration_s: float = 0.0,
        fresh: bool = False,
    ) -> CaseVerdict:
        """The verdict these votes and checks give under this panel's rules (no calls).

        `fresh` votes were just cast under these rules, so their own verdicts stand; recorded
        votes (a re-score) have them recomputed."""
        return self._cases.decider.decide(
            case, votes, checks=checks, duration_s=duration_s, fresh=fresh
        )

    def _log(self, verdict: CaseVerdict) -> CaseVerdict:
        if not self._events.enabled:
            return verdict
        self._events.info(
            "case",
            case=verdict.case_id,
            verdict=verdict.verdict.value,
            valid=verdict.valid_votes,
            jurors=len(self._seats),
            disagreement=verdict.disagreement,
            duration_ms=round(verdict.duration_s * 1000, 1),
            # Names only: a check's evidence can quote the answer.
            failed_checks=[c.name for c in verdict.checks if c.outcome is CheckOutcome.FAIL],
            judges_spared=verdict.judges_spared,
        )
        return verdict

    def evaluate(
        self,
        cases: Iterable[Case] | AsyncIterable[Case],
        *,
        agent: AgentLike | AgentStep | None = None,
        agent_concurrency: int = 8,
        agent_timeout: float = 60.0,
    ) -> VerdictStream:
        """Judge cases concurrently; the verdicts come as they are ready.

        Cases are read lazily, at most `panel.concurrency` at a time, so a file of any size
        streams in bounded memory. Verdicts come in completion order. Leaving ``async for``
        early (break, exception, cancellation) stops every call at once; ``async with
        jury.evaluate(cases) as verdicts:`` makes the end explicit.

        With an `agent` (the system under test) each case is first answered by it (at most
        `agent_concurrency` calls at once, `agent_timeout` seconds each), then checked and
        judged: see `jury.engine._pipeline`. The agent is what ``jury run --agent`` takes: an
        `Agent`, a SPEC (``"agent.py:answer"``, ``"package.module:function"``, a URL,
        ``"provider/model"``), or a sync or async function of the case.
        """
        if agent is None:
            return VerdictStream(self._cases.first, cases, self.panel.concurrency)
        made = None
        if not isinstance(agent, AgentStep | Agent):
            # Made here from a SPEC or a function: closed here, when the stream is left (an
            # `Agent` given is its owner's to close).
            agent = made = as_agent(agent)
        step = agent_step(agent, agent_concurrency, agent_timeout, self.panel, self._calls)
        on_close = None if made is None else made.aclose
        return pipeline(
            self._cases.first, step, cases, self.panel.concurrency, on_close, self._cases.calls_for
        )


def _checker(panel: Panel, checks: Checker | Literal["panel", False] | None) -> Checker | None:
    if checks is None or checks is False:
        return None
    if checks == PANEL_CHECKS:
        from ..checks import CheckSuite

        suite = CheckSuite.from_settings(panel.checks)
        return suite if suite.names else None
    if isinstance(checks, str):
        raise ConfigError(f"checks: expected a checker, None or False, got {checks!r}")
    return checks


def _is_suite(checks: Checker | None) -> TypeGuard[CheckSuite]:
    from ..checks import CheckSuite

    return isinstance(checks, CheckSuite)


def _runner(checks: Checker | None) -> Checker | None:
    """How the case layer runs the checks: a suite whose checks ask a model is awaited."""
    return checks.run if _is_suite(checks) and checks.is_async else checks


def _refuse_strategies(seats: Sequence[Seat], rubric: Rubric) -> None:
    """`ConfigError` for a seat whose strategy cannot judge with `rubric`."""
    for seat in seats:
        refused = seat.strategy.refuses(rubric)
        if seat.offline and (seat.strategy.fields or seat.strategy.instructions_for(rubric)):
            # An offline juror measures the answers itself: it reads no instructions and
            # writes no questions or answer of its own, so a strategy would be a label only.
            refused = (
                f"strategy {seat.strategy.name!r}: an offline juror judges by its own "
                "measures and follows no strategy; remove the strategy"
            )
        if refused is not None:
            raise ConfigError(f"juror {seat.id}: {refused}")


def _price_unknown(model: JudgeModel) -> bool:
    return not model.offline and model.price(_PROBE_REPLY) is None


def evaluate(
    cases: Iterable[Case] | AsyncIterable[Case], panel: Panel, **options: Any
) -> VerdictStream:
    """Judge `cases` with `panel`, yielding verdicts as they are ready.

    A convenience over `Jury` for one stream of cases; the jury is closed when the stream
    is. Harnesses that judge cases one at a time should keep a `Jury` so that the cases
    share provider limits.
    """
    jury = Jury(panel, **options)
    return VerdictStream(jury._cases.first, cases, panel.concurrency, on_close=jury.aclose)
