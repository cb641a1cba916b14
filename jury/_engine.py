"""The async engine: cases fan out to jurors; calls are retried, validated and re-asked; votes
are combined into verdicts that stream back to the caller.

Structure: `Jury.evaluate` runs one background task that owns a task group of cases (bounded
by the panel's concurrency); each case owns a task group of its jurors. A juror's failure is
caught inside its own task and becomes an unavailable vote, so it never cancels a sibling.
Cancellation always propagates, and leaves no task behind.
"""

from __future__ import annotations

import asyncio
import os
import random
import time
from collections.abc import AsyncIterable, AsyncIterator, Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from ._aggregate import aggregate
from ._case import Case
from ._clock import Clock
from ._decide import decide_case, sample_verdicts
from ._errors import (
    AuthenticationError,
    ConfigError,
    InvalidReply,
    JuryError,
    ProviderError,
    RateLimitedError,
    TransientError,
)
from ._limits import AccountLimiter, limits_for
from ._logging import redact, secret_values
from ._model import CallCache, JudgeModel, JudgeReply, JudgeRequest, Message, Usage, call_key
from ._panel import Juror, Panel
from ._registry import family_of, load_rubric, resolve_model
from ._rubric import Prompt, Rubric, parse_reply
from ._verdict import Ballot, CaseVerdict, CheckOutcome, CheckResult, Verdict, Vote, VoteStatus

__all__ = ["Checker", "Jury", "evaluate"]

#: Runs the deterministic checks of one case (see `jury.checks`).
Checker = Callable[[Case], Sequence[CheckResult]]


def _logger() -> Any:
    # structlog is imported on first use: importing it pulls in its console renderer (and
    # rich), which `import jury` should not pay for.
    import structlog

    return structlog.get_logger("jury")


BUDGET_REASON = "budget: the run's cost limit was reached before this call"

REASK = (
    "Your reply could not be used: {reason}. Reply again with one JSON object in the form "
    "the instructions give, and nothing else."
)


class _Exhausted(Exception):
    """A call that failed for good on one model: the last error and the attempts it took."""

    def __init__(self, model: str, error: ProviderError, attempts: int) -> None:
        super().__init__(f"{model}: {error} (after {attempts} attempt{'s' * (attempts != 1)})")
        self.error = error
        self.attempts = attempts


@dataclass(slots=True)
class _Seat:
    """A juror, resolved: its models in the order to try them, and its settings."""

    juror: Juror
    id: str
    models: tuple[JudgeModel, ...]
    weight: float
    #: The family of its first-choice model.
    family: str
    samples: int
    temperature: float
    #: Every model of the seat is an offline reference juror or a replay.
    offline: bool


@dataclass(slots=True)
class _Tally:
    """What one juror's calls on one case cost."""

    attempts: int = 0
    reasks: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    cached_tokens: int = 0
    latency: float = 0.0
    served_by: str | None = None
    raw: str | None = None
    cache_hits: int = 0
    #: USD of the calls paid for; None once any call's price is unknown.
    cost: float | None = 0.0


_PROBE_REPLY = JudgeReply(text="", model="", usage=Usage(1, 1))


class _OverBudget(Exception):
    """The run's budget is spent: no new call may start."""


def _as_model(spec: str | JudgeModel) -> JudgeModel:
    return resolve_model(spec) if isinstance(spec, str) else spec


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
        checks: Checker | None = None,
        judge_all: bool = False,
        cache: CallCache | None = None,
        max_cost: float | None = None,
    ) -> None:
        """`checks` run before the judges; a failed required check fails the case and, unless
        `judge_all`, spares the judges. `cache` keeps replies so no call is paid twice.
        `max_cost` (USD) stops new calls once spent; cases left are INCONCLUSIVE ("budget")."""
        self.panel = panel
        self.checks = checks
        self.judge_all = judge_all
        self.cache = cache
        self.rubric = rubric if rubric is not None else load_rubric(panel.rubric, panel.thresholds)
        self.clock = clock or Clock()
        self._rng = rng or random.Random()
        firsts = [_as_model(juror.model) for juror in panel.jurors]
        families = {
            juror.family or self.family(model)
            for juror, model in zip(panel.jurors, firsts, strict=True)
        }
        self._seats = tuple(
            self._seat(juror, model, families)
            for juror, model in zip(panel.jurors, firsts, strict=True)
        )
        #: Warnings about the run (failover that doubled a family...), each said once.
        self.warnings: list[str] = []
        ids = [seat.id for seat in self._seats]
        if len(set(ids)) != len(ids):
            raise ConfigError("two jurors have the same name; give one of them a 'name'")
        self._weights = {seat.id: seat.weight for seat in self._seats}
        self._limiters: dict[str, AccountLimiter] = {}
        # Bound once: a lazy proxy would re-resolve the configuration on every event.
        self._events = _logger().bind()
        # Provider errors sometimes echo what they were sent; no key may reach a vote.
        self._secrets = secret_values(os.environ)
        self.max_cost = max_cost
        #: USD spent by this jury's calls so far (calls with a known price).
        self.spent = 0.0
        if max_cost is not None:
            unpriced = [m.name for m in self.models if m.price(_PROBE_REPLY) is None]
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

    def _seat(self, juror: Juror, first: JudgeModel, panel_families: set[str]) -> _Seat:
        fallbacks = [_as_model(f) for f in juror.fallbacks]
        if self.panel.fallback_order == "family":
            # A jury's strength is its diversity: try alternates of a family not already on
            # the panel first (stable, so the listed order decides among equals).
            fallbacks.sort(key=lambda m: self.family(m) in panel_families)
        models = (first, *fallbacks)
        return _Seat(
            juror=juror,
            id=juror.id,
            models=models,
            weight=juror.weight,
            family=juror.family or self.family(first),
            samples=self.panel.samples_for(juror),
            offline=all(m.offline for m in models),
            temperature=juror.temperature
            if juror.temperature is not None
            else self.panel.temperature,
        )

    @property
    def seats(self) -> tuple[_Seat, ...]:
        return self._seats

    @property
    def jurors(self) -> tuple[str, ...]:
        return tuple(seat.id for seat in self._seats)

    @property
    def models(self) -> tuple[JudgeModel, ...]:
        return tuple(model for seat in self._seats for model in seat.models)

    def family(self, model: JudgeModel) -> str:
        return model.family if model.family != "unknown" else family_of(model.name)

    async def __aenter__(self) -> Jury:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()

    async def aclose(self) -> None:
        for model in {id(m): m for m in self.models}.values():
            await model.aclose()

    # --- one call ----------------------------------------------------------------------

    def _limiter(self, model: JudgeModel) -> AccountLimiter:
        limiter = self._limiters.get(model.account)
        if limiter is None:
            limits = limits_for(model, self.panel.providers)
            limiter = self._limiters[model.account] = AccountLimiter(limits, self.clock)
        return limiter

    def _delay(self, attempt: int, error: ProviderError) -> float | None:
        """Seconds to wait before the next attempt, or None to give up.

        Exponential backoff with full jitter; a server's retry-after is a floor, and one
        beyond the cap means the call gives up rather than stall the run.
        """
        retry = self.panel.retry
        backoff = self._rng.uniform(0, min(retry.max_delay, retry.base_delay * 2 ** (attempt - 1)))
        if isinstance(error, RateLimitedError) and error.retry_after is not None:
            if error.retry_after > retry.retry_after_cap:
                return None
            return max(error.retry_after, backoff)
        return backoff

    async def _call(
        self, model: JudgeModel, request: JudgeRequest, sample: int, tally: _Tally
    ) -> JudgeReply:
        """One call, from the cache when it holds the reply; raises `_Exhausted` when the
        model fails for good."""
        key = None
        # Offline jurors and replays cost nothing and answer the same way: not worth a row.
        if self.cache is not None and not model.offline:
            key = call_key(model.name, request, sample)
            cached = await self.cache.get(key)
            if cached is not None:
                tally.cache_hits += 1
                return cached
        reply = await self._attempts(model, request, tally)
        self._pay(model, reply, tally)  # a cached reply was paid for when it was made
        if key is not None and self.cache is not None:
            await self.cache.put(key, model.name, request, reply)
        return reply

    async def _attempts(
        self, model: JudgeModel, request: JudgeRequest, tally: _Tally
    ) -> JudgeReply:
        """One call with retries, honouring the account's limits."""
        attempt = 0
        limiter = self._limiter(model)
        while True:
            if self.max_cost is not None and self.spent >= self.max_cost:
                raise _OverBudget
            attempt += 1
            tally.attempts += 1
            started = time.perf_counter()
            try:
                # The slot is sized by the request so that a tokens-per-minute limit can
                # pace it; waiting for it does not count against the attempt's timeout.
                async with limiter.slot(request), asyncio.timeout(self.panel.timeout):
                    reply = await model.complete(request)
            except TimeoutError:
                error: ProviderError = TransientError(f"no reply within {self.panel.timeout:g}s")
            except Exception as exc:  # every foreign error goes through the classifier
                error = model.classify_error(exc)
            else:
                tally.latency += time.perf_counter() - started
                return reply
            tally.latency += time.perf_counter() - started
            if isinstance(error, AuthenticationError):
                raise error
            if isinstance(error, RateLimitedError):
                limiter.rate_limited(error.retry_after)
            if not isinstance(error, TransientError) or attempt >= self.panel.retry.attempts:
                raise _Exhausted(model.name, error, attempt)
            delay = self._delay(attempt, error)
            if delay is None:
                raise _Exhausted(model.name, error, attempt)
            await self.clock.sleep(delay)

    async def _ballot(
        self,
        model: JudgeModel,
        seat: _Seat,
        case: Case,
        prompt: Prompt,
        sample: int,
        tally: _Tally,
    ) -> Ballot | str:
        """Ask until the reply is valid or the re-asks run out (then: why it is invalid)."""
        messages: tuple[Message, ...] = (Message("user", prompt.user),)
        reasks = 0
        while True:
            request = JudgeRequest(
                system=prompt.system,
                messages=messages,
                schema=prompt.schema,
                schema_name=prompt.schema_name,
                temperature=seat.temperature,
                max_tokens=self.panel.max_tokens,
                seed=sample if seat.samples > 1 else None,
                case=case,
                rubric=self.rubric.name,
                prompt=prompt.key,
                sample=sample,
            )
            reply = await self._call(model, request, sample, tally)
            usage = reply.usage
            tally.input_tokens += usage.input_tokens
            tally.output_tokens += usage.output_tokens
            tally.cached_tokens += usage.cached_tokens
            tally.served_by = reply.model or model.name
            tally.raw = reply.text
            try:
                data = reply.parsed if reply.parsed is not None else parse_reply(reply.text)
                return self.rubric.read(case, prompt, data)
            except InvalidReply as exc:
                if reasks >= self.panel.reasks:
                    return exc.reason
                reasks += 1
                tally.reasks += 1
                messages = (
                    *messages,
                    Message("assistant", reply.text),
                    Message("user", REASK.format(reason=exc.reason)),
                )

    def _failed_over(self, seat: _Seat, model: JudgeModel) -> None:
        family = self.family(model)
        twins = [other.id for other in self._seats if other is not seat and other.family == family]
        if not twins:
            return
        warning = (
            f"failover: {seat.id} was served by {model.name}, of the {family} family like "
            f"{', '.join(twins)}: the panel lost a family"
        )
        if warning not in self.warnings:
            self.warnings.append(warning)
            self._events.warning("failover.family", juror=seat.id, model=model.name, family=family)

    def _pay(self, model: JudgeModel, reply: JudgeReply, tally: _Tally) -> None:
        cost = model.price(reply)
        if cost is None:
            tally.cost = None
            return
        self.spent += cost
        if tally.cost is not None:
            tally.cost += cost

    # --- one juror's vote ----------------------------------------------------------------

    async def _vote(self, seat: _Seat, case: Case, prompts: Sequence[Prompt]) -> Vote:
        tally = _Tally()
        per_sample: list[Ballot] = []
        errors: list[str] = []
        current = 0
        try:
            for sample in range(seat.samples):
                sample_ballots: list[tuple[Prompt, Ballot]] = []
                for prompt in prompts:
                    while True:
                        model = seat.models[current]
                        try:
                            outcome = await self._ballot(model, seat, case, prompt, sample, tally)
                        except _Exhausted as exc:
                            errors.append(redact(str(exc), self._secrets))
                            if current + 1 >= len(seat.models):
                                return self._cast(
                                    seat, tally, VoteStatus.UNAVAILABLE, error="; ".join(errors)
                                )
                            current += 1
                            continue
                        if current:
                            self._failed_over(seat, model)
                        break
                    if isinstance(outcome, str):
                        return self._cast(seat, tally, VoteStatus.INVALID, error=outcome)
                    sample_ballots.append((prompt, outcome))
                combined = self.rubric.combine(case, sample_ballots)
                if isinstance(combined, str):
                    # The ballots behind an abstention are kept: a pairwise juror's two
                    # verdicts are what its position consistency is measured from.
                    return self._cast(
                        seat,
                        tally,
                        VoteStatus.ABSTAINED,
                        reason=combined,
                        details={"ballots": {p.key: dict(b.scores) for p, b in sample_ballots}},
                    )
                per_sample.append(combined)
        except AuthenticationError:
            raise
        except _OverBudget:
            return self._cast(seat, tally, VoteStatus.UNAVAILABLE, error=BUDGET_REASON)
        except Exception as exc:
            # A bug in a rubric or an adapter must not take the other jurors down with it;
            # it is logged with its traceback and the vote is unavailable.
            _logger().exception("juror.error", case=case.id, juror=seat.id)
            error = redact(f"{type(exc).__name__}: {exc}", self._secrets)
            return self._cast(seat, tally, VoteStatus.UNAVAILABLE, error=error)
        return self._from_samples(seat, case, per_sample, tally)

    def _cast(self, seat: _Seat, tally: _Tally, status: VoteStatus, **fields: Any) -> Vote:
        """The juror's vote, with what its calls cost."""
        return Vote(
            juror=seat.id,
            status=status,
            offline=seat.offline,
            served_by=tally.served_by,
            raw=tally.raw,
            attempts=tally.attempts,
            reasks=tally.reasks,
            latency_s=tally.latency,
            input_tokens=tally.input_tokens,
            output_tokens=tally.output_tokens,
            cached_tokens=tally.cached_tokens,
            cache_hits=tally.cache_hits,
            cost=tally.cost,
            **fields,
        )

    def _from_samples(self, seat: _Seat, case: Case, samples: list[Ballot], tally: _Tally) -> Vote:
        """A juror's vote from its samples: each metric aggregated within the juror first.

        Samples that split evenly on a metric leave the juror undecided: it abstains rather
        than have the order of its samples pick a side.
        """
        if len(samples) == 1:
            scores = dict(samples[0].scores)
            reason = samples[0].reason
            details = dict(samples[0].details)
        else:
            # Each sample's own verdict is kept for the juror's stability (jury.agreement).
            samples = list(sample_verdicts(self.rubric, case, samples))
            scores = {}
            for metric in self.rubric.metrics(case):
                result = aggregate(
                    metric,
                    [(b.scores[metric.name], 1.0) for b in samples],
                    self.panel.aggregation,
                    "inconclusive",
                )
                if result.value is None or result.tied:
                    return self._cast(
                        seat,
                        tally,
                        VoteStatus.ABSTAINED,
                        reason=f"its {len(samples)} samples split on {metric.name}",
                        samples=tuple(samples),
                    )
                scores[metric.name] = result.value
            closest = next((b for b in samples if dict(b.scores) == scores), samples[0])
            reason, details = closest.reason, dict(closest.details)
        return self._cast(
            seat,
            tally,
            VoteStatus.VALID,
            scores=scores,
            verdict=self.rubric.verdict_of(case, scores),
            reason=reason,
            details=details,
            samples=tuple(samples) if len(samples) > 1 else (),
        )

    def _late(self, seat: _Seat) -> Vote:
        return Vote(
            juror=seat.id,
            status=VoteStatus.UNAVAILABLE,
            error=f"the case ran out of time ({self.panel.case_timeout:g}s)",
            offline=seat.offline,
        )

    async def _votes(self, case: Case, prompts: Sequence[Prompt]) -> list[Vote]:
        """Every juror's vote, at once. Votes still missing at the case's deadline are
        unavailable; the ones already cast are kept."""
        timeout = self.panel.case_timeout
        if len(self._seats) == 1:
            seat = self._seats[0]
            try:
                async with asyncio.timeout(timeout):
                    return [await self._vote(seat, case, prompts)]
            except TimeoutError:
                return [self._late(seat)]
        tasks: list[asyncio.Task[Vote]] = []
        try:
            async with asyncio.timeout(timeout), asyncio.TaskGroup() as group:
                tasks.extend(
                    group.create_task(self._vote(seat, case, prompts)) for seat in self._seats
                )
        except TimeoutError:
            pass
        return [
            task.result() if task.done() and not task.cancelled() else self._late(seat)
            for seat, task in zip(self._seats, tasks, strict=True)
        ]

    # --- one case ----------------------------------------------------------------------

    async def judge(self, case: Case) -> CaseVerdict:
        """Judge one case: its checks first, then every juror at once, then the verdict."""
        started = time.perf_counter()
        checks = tuple(self.checks(case)) if self.checks is not None else ()
        if not self.judge_all and any(
            c.required and c.outcome is CheckOutcome.FAIL for c in checks
        ):
            spared = self.decide(case, (), checks=checks, duration_s=time.perf_counter() - started)
            return self._finish(spared.model_copy(update={"calls_saved": self._calls_for(case)}))
        if self.max_cost is not None and self.spent >= self.max_cost:
            return self._finish(
                CaseVerdict(
                    case_id=case.id,
                    category=case.category,
                    verdict=Verdict.INCONCLUSIVE,
                    reasons=(f"budget: the run's cost limit of ${self.max_cost:g} was reached",),
                    checks=checks,
                )
            )
        try:
            prompts = self.rubric.prompts(case)
        except ValueError as exc:
            return self._finish(
                CaseVerdict(
                    case_id=case.id,
                    category=case.category,
                    verdict=Verdict.INCONCLUSIVE,
                    reasons=(f"the {self.rubric.kind} rubric cannot judge this case: {exc}",),
                    checks=checks,
                )
            )
        votes = await self._votes(case, prompts)
        return self._finish(
            self.decide(
                case, votes, checks=checks, duration_s=time.perf_counter() - started, fresh=True
            )
        )

    def _calls_for(self, case: Case) -> int:
        """The judge calls a case needs at the least: each juror's samples of each prompt."""
        try:
            prompts = len(self.rubric.prompts(case))
        except ValueError:
            return 0
        return prompts * sum(seat.samples for seat in self._seats)

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
        return decide_case(
            case,
            votes,
            self.rubric,
            jurors=len(self._seats),
            quorum=self.quorum,
            weights=self._weights,
            aggregation=self.panel.aggregation,
            ties=self.panel.ties,
            spread_alert=self.panel.disagreement_spread,
            checks=checks,
            duration_s=duration_s,
            fresh=fresh,
        )

    def _finish(self, verdict: CaseVerdict) -> CaseVerdict:
        self._log(verdict)
        return verdict

    def _log(self, verdict: CaseVerdict) -> None:
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

    # --- many cases --------------------------------------------------------------------

    async def evaluate(
        self, cases: Iterable[Case] | AsyncIterable[Case]
    ) -> AsyncIterator[CaseVerdict]:
        """Judge cases concurrently and yield each verdict as it is ready.

        Cases are read lazily, at most `panel.concurrency` at a time, so a file of any size
        streams in bounded memory. Verdicts come in completion order.
        """
        queue: asyncio.Queue[CaseVerdict | _End] = asyncio.Queue(maxsize=self.panel.concurrency)
        runner = asyncio.create_task(self._run(cases, queue), name="jury-evaluate")
        try:
            while True:
                item = await queue.get()
                if isinstance(item, _End):
                    if item.error is not None:
                        raise item.error
                    return
                yield item
        finally:
            if not runner.done():
                runner.cancel()
                await asyncio.wait([runner])

    async def _run(
        self, cases: Iterable[Case] | AsyncIterable[Case], queue: asyncio.Queue[CaseVerdict | _End]
    ) -> None:
        slots = asyncio.Semaphore(self.panel.concurrency)

        async def one(case: Case) -> None:
            try:
                verdict = await self.judge(case)
            finally:
                slots.release()
            await queue.put(verdict)

        try:
            async with asyncio.TaskGroup() as group:
                async for case in _aiter(cases):
                    await slots.acquire()
                    group.create_task(one(case))
        except BaseExceptionGroup as group_error:
            await queue.put(_End(_first_jury_error(group_error)))
            return
        except Exception as exc:
            await queue.put(_End(exc))
            return
        await queue.put(_End(None))


@dataclass(frozen=True, slots=True)
class _End:
    error: BaseException | None


def _first_jury_error(group: BaseExceptionGroup[BaseException]) -> BaseException:
    """Surface the error that stopped the run, not a nest of task-group wrappers."""
    for exc in group.exceptions:
        if isinstance(exc, BaseExceptionGroup):
            return _first_jury_error(exc)
        if isinstance(exc, JuryError):
            return exc
    return group


async def _aiter(cases: Iterable[Case] | AsyncIterable[Case]) -> AsyncIterator[Case]:
    if isinstance(cases, AsyncIterable):
        async for case in cases:
            yield case
    else:
        for case in cases:
            yield case


async def evaluate(
    cases: Iterable[Case] | AsyncIterable[Case], panel: Panel, **options: Any
) -> AsyncIterator[CaseVerdict]:
    """Judge `cases` with `panel`, yielding verdicts as they are ready.

    A convenience over `Jury` for one stream of cases; harnesses that judge cases one at a
    time should keep a `Jury` so that the cases share provider limits.
    """
    async with Jury(panel, **options) as jury:
        async for verdict in jury.evaluate(cases):
            yield verdict
