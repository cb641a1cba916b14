"""The vote layer: one juror's vote on one case.

A juror's vote is its samples of every prompt the rubric makes (pairwise asks both orders),
each reply validated twice (schema, then the rubric's rules) and asked again while invalid,
then combined: the rubric combines the prompts of a sample, and the samples are aggregated
within the juror. Which model answers is the fallback chain's business; what a call costs is
the call layer's.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from .._errors import CallFailed, InvalidReply, JuryError, OverBudget, TransientError
from .._logging import Events
from .._redact import redact
from .._verdict import Ballot, CallStats, Vote, VoteStatus
from ..adapters._model import JudgeModel
from ..adapters._registry import logprobs_asked
from ..adapters._request import JudgeReply, JudgeRequest, Message
from ..adapters._rubric import Prompt, Rubric, parse_reply
from ..adapters._strategy import PLAIN, Strategy
from ..cases._case import Case
from ..decide._core import Aggregation, aggregate, sample_verdicts
from ..panel._images import Blind, image_refusal, images_shown
from ..panel._panel import Juror
from ._calls import Caller
from ._confidence import confident, probability_note, scores_first, skewed
from ._soft import Odds, read_outcomes, soft_odds
from ._written import generated_fields, thought

__all__ = ["BUDGET_REASON", "REASK", "Cast", "Fallback", "Seat", "Unavailable", "Voter"]

BUDGET_REASON = "budget: the run's cost limit was reached before this call"

REASK = (
    "Your reply could not be used: {reason}. Reply again with one JSON object in the form "
    "the instructions give, and nothing else."
)

#: Why a reply ended short, in the words of an invalid vote's reason.
_ENDINGS = {
    "length": "the reply was cut off at the output limit (max_tokens {max_tokens}{thinking})",
    "refusal": "the judge refused to answer",
    "filtered": "the provider's safety filter blocked the reply",
}

#: The rubric's own prompt, for a seat built without a strategy.
_PLAIN = Strategy(PLAIN)

#: Asks one model for one ballot: the vote layer's `Voter._ballot`.
AskBallot = Callable[[Caller, "Fallback", Case, Prompt, int, CallStats], Awaitable[Ballot | str]]


@dataclass(frozen=True, slots=True)
class Seat:
    """A juror, resolved: its callers in the order to try them, and its settings."""

    juror: Juror
    id: str
    callers: tuple[Caller, ...]
    weight: float
    #: The family of its first-choice model.
    family: str
    samples: int
    temperature: float
    #: Every model of the seat is an offline reference juror or a replay.
    offline: bool
    #: The juror's own output budget and thinking effort (None: the panel's, the adapter's).
    max_tokens: int | None = None
    effort: str | None = None
    #: How the seat judges: the prompts it is sent, and what it writes before its verdict.
    strategy: Strategy = _PLAIN
    #: The rubric schemas as this seat sends them (reordered for ``scores_first``), by the
    #: identity of the rubric's own (kept in the value, so that an id is never reused).
    shaped: dict[int, tuple[dict[str, Any], dict[str, Any]]] = field(default_factory=dict)

    @property
    def models(self) -> tuple[JudgeModel, ...]:
        return tuple(caller.model for caller in self.callers)

    def schema(self, schema: dict[str, Any]) -> dict[str, Any]:
        """The reply's schema as this seat asks for it: the rubric's, with the free text
        last when the juror wants its scores first."""
        if not self.juror.scores_first:
            return schema
        found = self.shaped.get(id(schema))
        if found is None or found[0] is not schema:
            if len(self.shaped) >= 64:
                self.shaped.clear()
            found = self.shaped[id(schema)] = (schema, scores_first(schema))
        return found[1]


class Unavailable(Exception):
    """Every model of a juror failed for good; `errors` says how each did, and `transient`
    whether every one of them failed on transient errors only (5xx, timeouts, connection
    errors, 429s past their wait): then asking again later may succeed."""

    def __init__(self, errors: Sequence[str], transient: bool = False) -> None:
        super().__init__("; ".join(errors))
        self.errors = tuple(errors)
        self.transient = transient


@dataclass(frozen=True, slots=True)
class Cast:
    """A vote as the vote layer cast it, and whether it is unavailable on transient errors
    only (what earns it a second chance; see `jury.engine._second_chance`)."""

    vote: Vote
    transient: bool = False


class Fallback:
    """A juror's models in the order to try them, for one vote.

    A model that failed for good is not asked again within the vote: the next one takes
    over for what is left (the other prompts and samples), and `on_failover` hears of it.
    `last_reply` is the text of the last reply any of them gave in the vote.
    """

    __slots__ = (
        "_at",
        "_ballot",
        "_errors",
        "_on_failover",
        "_transient",
        "last_reply",
        "replies",
        "seat",
        "skewed",
        "soft",
        "unread",
    )

    def __init__(
        self, seat: Seat, ballot: AskBallot, on_failover: Callable[[Seat, JudgeModel], None]
    ) -> None:
        self.seat = seat
        self._ballot = ballot
        self._on_failover = on_failover
        self._at = 0
        self._errors: list[str] | None = None
        self._transient = True
        self.last_reply: str | None = None
        #: The last reply to each prompt, for a rubric that asks several (both pairwise
        #: orders): a vote keeps them all, not only the last order's.
        self.replies: dict[str, str] = {}
        #: The ballots each (prompt, sample) reply might have been, with their probabilities,
        #: where the reply came with log-probabilities (`jury.engine._soft`).
        self.soft: dict[tuple[str, int], list[tuple[Ballot, float]]] = {}
        #: Why a reply's log-probabilities could not be read (the first reason met).
        self.unread: str | None = None
        #: A reply at temperature 0 took a token its log-probabilities did not rank first.
        self.skewed = False

    async def ask(
        self, case: Case, prompt: Prompt, sample: int, stats: CallStats, secrets: tuple[str, ...]
    ) -> Ballot | str:
        """A ballot from the current model, then from each next one that is left while a
        model fails for good; `Unavailable` when none is left."""
        callers = self.seat.callers
        while True:
            caller = callers[self._at]
            try:
                result = await self._ballot(caller, self, case, prompt, sample, stats)
            except CallFailed as exc:
                if self._errors is None:
                    self._errors = []
                self._errors.append(redact(str(exc), secrets))
                # A 429 past its wait is a `RateLimitedError`, a kind of `TransientError`.
                self._transient = self._transient and isinstance(exc.error, TransientError)
                if self._at + 1 >= len(callers):
                    raise Unavailable(self._errors, self._transient) from None
                self._at += 1
                continue
            if self._at:
                self._on_failover(self.seat, caller.model)
            return result


class Voter:
    """Casts votes for the jurors of one panel under one rubric."""

    def __init__(
        self,
        rubric: Rubric,
        *,
        reasks: int,
        max_tokens: int,
        aggregation: Aggregation,
        secrets: tuple[str, ...],
        events: Events,
        on_failover: Callable[[Seat, JudgeModel], None],
    ) -> None:
        self.rubric = rubric
        self.reasks = reasks
        self.max_tokens = max_tokens
        self.aggregation = aggregation
        self._secrets = secrets
        self._events = events
        self._on_failover = on_failover

    async def vote(
        self, seat: Seat, case: Case, prompts: Sequence[Prompt], stats: CallStats
    ) -> Vote:
        """The seat's vote. Its calls are counted in `stats` as they happen, so that a vote cut
        short by the case's deadline still shows what it cost."""
        return (await self.cast(seat, case, prompts, stats)).vote

    async def cast(
        self, seat: Seat, case: Case, prompts: Sequence[Prompt], stats: CallStats
    ) -> Cast:
        """The seat's vote, as `vote`, and whether it failed on transient errors only."""
        chain = Fallback(seat, self._ballot, self._on_failover)
        per_sample: list[Ballot] = []
        odds: list[Odds | None] = []
        try:
            prompts = seat.strategy.apply(self.rubric, prompts)
            for sample in range(seat.samples):
                ballots: list[tuple[Prompt, Ballot]] = []
                for prompt in prompts:
                    outcome = await chain.ask(case, prompt, sample, stats, self._secrets)
                    if isinstance(outcome, str):
                        return Cast(_cast(chain, stats, VoteStatus.INVALID, error=outcome))
                    ballots.append((prompt, outcome))
                combined = self.rubric.combine(case, ballots)
                generated = generated_fields(ballots)
                if isinstance(combined, str):
                    # The ballots behind an abstention are kept: a pairwise juror's two
                    # verdicts are what its position consistency is measured from.
                    return Cast(
                        _cast(
                            chain,
                            stats,
                            VoteStatus.ABSTAINED,
                            reason=combined,
                            details={"ballots": {p.key: dict(b.scores) for p, b in ballots}},
                            generated=generated,
                        )
                    )
                if generated != combined.generated:
                    combined = replace(combined, generated=generated)
                per_sample.append(combined)
                if chain.soft:
                    odds.append(self._odds(chain, case, prompts, sample))
        except Blind as exc:
            return Cast(_cast(chain, stats, VoteStatus.ABSTAINED, reason=str(exc)))
        except Unavailable as exc:
            vote = _cast(chain, stats, VoteStatus.UNAVAILABLE, error=str(exc))
            return Cast(vote, exc.transient)
        except JuryError:
            # The run's own stops (an account that cannot serve, a juror that cannot work)
            # end the run; only a foreign exception below is one vote's bug.
            raise
        except OverBudget:
            return Cast(_cast(chain, stats, VoteStatus.UNAVAILABLE, error=BUDGET_REASON))
        except Exception as exc:
            # A bug in a rubric or an adapter must not take the other jurors down with it;
            # it is logged with its traceback and the vote is unavailable.
            self._events.exception("juror.error", case=case.id, juror=seat.id)
            error = redact(f"{type(exc).__name__}: {exc}", self._secrets)
            return Cast(_cast(chain, stats, VoteStatus.UNAVAILABLE, error=error))
        vote = self._from_samples(chain, case, per_sample, stats)
        # Most votes have neither log-probabilities nor samples: they skip this.
        if odds or seat.samples > 1:
            vote = confident(vote, odds, seat.samples)
        if seat.juror.logprobs and vote.status is VoteStatus.VALID:
            note = probability_note(vote, chain.unread, chain.skewed)
            if note is not None:
                vote = vote.model_copy(update={"probability_note": note})
        return Cast(vote)

    def _odds(
        self, chain: Fallback, case: Case, prompts: Sequence[Prompt], sample: int
    ) -> Odds | None:
        """One sample's distribution over the verdict (and each metric's over its values),
        when every prompt's reply was read with log-probabilities."""
        found = [(p, chain.soft.get((p.key, sample))) for p in prompts]
        if not found or any(ballots is None for _, ballots in found):
            return None
        odds = soft_odds(self.rubric, case, [(p, b) for p, b in found if b is not None])
        return odds if odds[0] else None

    async def _ballot(
        self,
        caller: Caller,
        chain: Fallback,
        case: Case,
        prompt: Prompt,
        sample: int,
        stats: CallStats,
    ) -> Ballot | str:
        """Ask until the reply is valid or the re-asks run out (then: why it is invalid)."""
        seat = chain.seat
        images = images_shown(case.images, prompt.user)
        if images:
            why = image_refusal(seat.juror, caller.model, caller is seat.callers[0])
            if why is not None:
                raise Blind(f"not judged: the case has {len(images)} image(s) and {why}")
        messages: tuple[Message, ...] = (Message("user", prompt.user, images),)
        reasks = 0
        while True:
            request = JudgeRequest(
                system=prompt.system,
                messages=messages,
                schema=seat.schema(prompt.schema),
                schema_name=prompt.schema_name,
                temperature=seat.temperature,
                max_tokens=seat.max_tokens or self.max_tokens,
                logprobs=seat.juror.logprobs and logprobs_asked(caller.model.name),
                seed=sample if seat.samples > 1 else None,
                effort=seat.effort,
                text_limit=seat.juror.reason_length,
                case=case,
                rubric=self.rubric,
                prompt=prompt.key,
                sample=sample,
            )
            reply = await caller.call(request, sample, stats)
            chain.last_reply = chain.replies[prompt.key] = reply.text
            try:
                data = reply.parsed if reply.parsed is not None else parse_reply(reply.text)
                generated, data = seat.strategy.read(data)
                read_ballot = ballot = self.rubric.read(case, prompt, data)
                if generated:
                    ballot = replace(ballot, generated=generated)
            except InvalidReply as exc:
                ending, mendable = self._ending(reply, request.max_tokens)
                reason = f"{ending}: {exc.reason}" if ending else exc.reason
                if not mendable or reasks >= self.reasks:
                    return reason
                reasks += 1
                stats.reasks += 1
                # An empty turn is refused by the APIs (Anthropic, Gemini): an empty reply is
                # re-asked without it.
                said = (Message("assistant", reply.text),) if reply.text.strip() else ()
                messages = (*messages, *said, Message("user", REASK.format(reason=reason)))
                continue
            if reply.logprobs:
                # The reply as the rubric read it (not read again), before the strategy's.
                read = read_outcomes(
                    self.rubric, case, prompt, data, reply.text, reply.logprobs, read_ballot
                )
                if isinstance(read, str):
                    chain.unread = chain.unread or read
                else:
                    chain.soft[prompt.key, sample] = read
                if request.temperature == 0 and not chain.skewed:
                    chain.skewed = skewed(reply.logprobs)
            elif request.logprobs:
                chain.unread = chain.unread or "the server sent no log-probabilities"
            return ballot

    def _ending(self, reply: JudgeReply, max_tokens: int | None = None) -> tuple[str, bool]:
        """How a reply ended short ("" when it did not), and whether asking again can mend
        it. A refusal or a filter answers the same request the same way. A reply cut at the
        output limit is asked again (shorter) when it got to write something; one cut before
        it wrote anything spent the limit thinking, and would again."""
        template = _ENDINGS.get(reply.finish or "")
        if template is None:
            return "", True
        thinking = reply.usage.thinking_tokens
        words = template.format(
            max_tokens=max_tokens or self.max_tokens,
            thinking=thought(reply) if thinking else "",
        )
        return words, reply.finish == "length" and bool(reply.text.strip())

    def _from_samples(
        self, chain: Fallback, case: Case, samples: list[Ballot], stats: CallStats
    ) -> Vote:
        """A juror's vote from its samples: each metric aggregated within the juror first.

        Samples that split evenly on a metric leave the juror undecided: it abstains rather
        than have the order of its samples pick a side.
        """
        if len(samples) == 1:
            ballot = samples[0]
            return _cast(
                chain,
                stats,
                VoteStatus.VALID,
                scores=dict(ballot.scores),
                verdict=self.rubric.verdict_of(case, ballot.scores),
                reason=ballot.reason,
                details=dict(ballot.details),
                generated=dict(ballot.generated),
            )
        # Each sample's own verdict is kept for the juror's stability (jury.agreement).
        samples = list(sample_verdicts(self.rubric, case, samples))
        scores = {}
        for metric in self.rubric.metrics(case):
            result = aggregate(
                metric,
                [(b.scores[metric.name], 1.0) for b in samples if metric.name in b.scores],
                self.aggregation,
                "inconclusive",
            )
            if not result.votes:  # no sample measured it: the juror abstains on this metric
                continue
            if result.value is None or result.tied:
                return _cast(
                    chain,
                    stats,
                    VoteStatus.ABSTAINED,
                    reason=f"its {len(samples)} samples split on {metric.name}",
                    samples=tuple(samples),
                )
            scores[metric.name] = result.value
        closest = next((b for b in samples if dict(b.scores) == scores), samples[0])
        return _cast(
            chain,
            stats,
            VoteStatus.VALID,
            scores=scores,
            verdict=self.rubric.verdict_of(case, scores),
            reason=closest.reason,
            details=dict(closest.details),
            generated=dict(closest.generated),
            samples=tuple(samples),
        )


def _cast(chain: Fallback, stats: CallStats, status: VoteStatus, **fields: Any) -> Vote:
    """The seat's vote, with what its calls cost and the judge's last reply (and, where it
    was asked several prompts, its last reply to each, under ``details["replies"]``)."""
    if len(chain.replies) > 1:
        fields["details"] = {**fields.get("details", {}), "replies": dict(chain.replies)}
    return Vote(
        juror=chain.seat.id,
        status=status,
        offline=chain.seat.offline,
        calls=stats,
        raw=chain.last_reply,
        **fields,
    )
