"""Votes, verdicts and the run summary: what crosses from the engine to reports and records."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

__all__ = [
    "STAGES",
    "Ballot",
    "CallStats",
    "CaseVerdict",
    "CheckOutcome",
    "CheckResult",
    "Dissent",
    "Level",
    "Metric",
    "MetricResult",
    "Score",
    "SecondChance",
    "TiePolicy",
    "Verdict",
    "Vote",
    "VoteStatus",
    "check_reasons",
    "is_number",
    "meets",
    "single",
    "single_result",
]

#: One metric's value in a reply: an integer level, a number, a category or a yes/no.
Score = int | float | str | bool


#: Level of measurement, which decides the aggregation and the agreement statistic.
Level = Literal["nominal", "ordinal", "interval", "ratio"]
#: What a tie between the values of valid votes becomes: the case's verdict left open
#: (inconclusive), or settled by the worst (fail) or best (pass) tied value; never list order.
TiePolicy = Literal["inconclusive", "fail", "pass"]


@dataclass(frozen=True, slots=True)
class Metric:
    """One thing every ballot carries a value for.

    `values` lists the allowed values from worst to best (a 1-5 scale, or ``no``, ``cant_tell``,
    ``yes``); a tie settled by policy takes the worst ("fail") or best ("pass") tied value.
    """

    name: str
    level: Level
    values: tuple[Score, ...] = ()
    #: A numeric aggregate passes when it reaches this value.
    threshold: float | None = None
    #: How much of a spread between jurors counts as disagreement (numeric metrics).
    spread_alert: float | None = None

    def rank(self, value: Score) -> int:
        return self.values.index(value) if value in self.values else -1


class Verdict(StrEnum):
    PASS = "PASS"
    FAIL = "FAIL"
    INCONCLUSIVE = "INCONCLUSIVE"


class VoteStatus(StrEnum):
    #: The juror replied with scores that passed the schema and the rubric's rules.
    VALID = "valid"
    #: The juror replied, but still broke the rules after the allowed re-asks.
    INVALID = "invalid"
    #: The provider failed after retries and fallbacks: not the juror's opinion of the case.
    UNAVAILABLE = "unavailable"
    #: The juror declined to vote, e.g. its two pairwise orders disagreed.
    ABSTAINED = "abstained"


@dataclass(frozen=True, slots=True)
class Ballot:
    """One validated reply: a value per metric, the judge's reason, and per-metric details."""

    scores: Mapping[str, Score]
    reason: str
    #: Whatever else the rubric keeps from the reply (per-point quotes, flags...).
    details: Mapping[str, Any] = field(default_factory=dict)
    #: What this ballot alone decides, set on a juror's samples when the case is decided, so
    #: that stability (identical verdicts across samples) can be read from the record.
    verdict: Verdict | None = None
    #: What the juror's strategy had it write before its verdict (its questions, its own
    #: answer, its reasoning), by field (`jury.adapters.Strategy`); empty for ``plain``.
    generated: Mapping[str, str] = field(default_factory=dict)


@dataclass(slots=True)
class CallStats:
    """What calls cost, and who served them. Adds up: `add` folds one record into another.

    `attempts` counts requests sent (retries included), `reasks` the requests that asked an
    invalid reply again, `cache_hits` the replies taken from the cache instead. Tokens and
    latency are those of every reply received (a cached reply's tokens are counted: they are
    what the judge read and wrote). `cost` is the USD of the calls paid for here (a cached
    reply was paid for when it was made); None once any paid call's price is unknown.
    `served_by` lists the models that replied, in the order they first did. `batched` counts
    the replies that came through a provider batch, and `batch_saving` what those calls would
    have cost more online (USD; None once a price is unknown). `thinking_tokens` is the part of
    `output_tokens` the models spent thinking, where their providers say. `fake` counts the
    replies (made or cached) that came from `jury.testing`'s fake provider server, priced $0;
    `cached_from` lists where the cached replies were first made (each endpoint's URL,
    ``FAKE <url>`` for the fake's), in the order they were first served.
    """

    attempts: int = 0
    reasks: int = 0
    cache_hits: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    cached_tokens: int = 0
    latency_s: float = 0.0
    cost: float | None = 0.0
    served_by: tuple[str, ...] = ()
    batched: int = 0
    batch_saving: float | None = 0.0
    thinking_tokens: int = 0
    fake: int = 0
    cached_from: tuple[str, ...] = ()

    def add(self, other: CallStats) -> None:
        self.attempts += other.attempts
        self.reasks += other.reasks
        self.cache_hits += other.cache_hits
        self.input_tokens += other.input_tokens
        self.output_tokens += other.output_tokens
        self.cached_tokens += other.cached_tokens
        self.thinking_tokens += other.thinking_tokens
        self.latency_s += other.latency_s
        self.cost = None if self.cost is None or other.cost is None else self.cost + other.cost
        if other.batched:
            self.batched += other.batched
            self.saved(other.batch_saving)
        for model in other.served_by:
            self.served(model)
        self.fake += other.fake
        for source in other.cached_from:
            self.cached(source)

    def cached(self, source: str) -> None:
        if source not in self.cached_from:
            self.cached_from = (*self.cached_from, source)

    def served(self, model: str) -> None:
        if model not in self.served_by:
            self.served_by = (*self.served_by, model)

    def paid(self, cost: float | None) -> None:
        self.cost = None if self.cost is None or cost is None else self.cost + cost

    def saved(self, saving: float | None) -> None:
        self.batch_saving = (
            None if self.batch_saving is None or saving is None else self.batch_saving + saving
        )


_MODEL = ConfigDict(frozen=True, arbitrary_types_allowed=True)


class SecondChance(BaseModel):
    """A vote asked once more at the end of the run: its first asking ended unavailable after
    transient errors (5xx, timeouts, 429s past their wait), and its case's verdict waited."""

    model_config = _MODEL

    #: Why the first asking failed, as its unavailable vote said.
    first_error: str
    #: Requests the first asking sent (retries included); the vote's `calls` counts both.
    first_attempts: int
    #: Seconds from the first asking's failure to the second (at least the cool-down).
    waited_s: float = 0.0


class Vote(BaseModel):
    """One juror's vote on one case."""

    model_config = _MODEL

    juror: str
    status: VoteStatus
    #: Its values, after combining its samples (and, for pairwise, both orders).
    scores: dict[str, Score] = {}
    #: The juror's own verdict: what the case would be if it were the only juror.
    verdict: Verdict | None = None
    reason: str = ""
    details: dict[str, Any] = {}
    #: Each sample's ballot, in sample order, for stability and agreement across samples.
    samples: tuple[Ballot, ...] = ()
    #: What went wrong, for invalid and unavailable votes (every fallback's error, summarised).
    error: str | None = None
    #: The judge's last reply, verbatim: kept so an invalid vote can be read and re-scored.
    raw: str | None = None
    #: What the juror's calls on this case cost, and the models that served them.
    calls: CallStats = Field(default_factory=CallStats)
    #: A deterministic reference juror or a replayed record, not a live LLM judge.
    offline: bool = False
    #: What the juror's strategy had it write before its verdict (its questions, its own
    #: answer, its reasoning), by field; ``<prompt>.<field>`` when the rubric asks several
    #: prompts (pairwise: ``AB.questions``, ``BA.questions``). Empty for ``plain``.
    generated: dict[str, str] = {}
    #: How sure the juror was of its verdict: the probability of `verdict`, read from the
    #: reply's token log-probabilities (``logprobs = true``) or, without them, the share of
    #: its samples that reached it (``samples = N``); None when neither was there.
    probability: float | None = None
    #: The whole distribution behind `probability`: verdict ("PASS", "FAIL", "INCONCLUSIVE",
    #: "abstained") -> probability (None with `probability`: a mutable default is copied for
    #: every vote, which cost a third more per vote).
    distribution: dict[str, float] | None = None
    #: Each metric's distribution over its values, from the same log-probabilities or samples
    #: (metric -> value, spelt as a fit file spells it -> probability; a pairwise winner
    #: after both orders are combined): what a learned jury fitted on a metric reads.
    value_distribution: dict[str, dict[str, float]] | None = None
    #: Where `probability` came from: "logprobs" or "samples".
    probability_from: str | None = None
    #: Why a valid vote of a juror that asked for log-probabilities (``logprobs = true``)
    #: carries no probability read from them, or what is doubtful about the one it carries
    #: (its own verdict less likely than another); None when nothing is wrong.
    probability_note: str | None = None
    #: Set when the vote was asked a second time (see `SecondChance`); None otherwise.
    second_chance: SecondChance | None = None

    @property
    def served_by(self) -> str | None:
        """The model that served the vote's last reply (a fallback, when the first failed)."""
        return self.calls.served_by[-1] if self.calls.served_by else None

    @property
    def fake(self) -> bool:
        """Some reply of the vote came from `jury.testing`'s fake provider server."""
        return self.calls.fake > 0


@dataclass(slots=True)
class MetricResult:
    """One metric, aggregated across the valid votes. Treat it as read-only: it is not frozen
    only because frozen dataclasses cost three times as much to build, and the engine builds
    several per vote."""

    name: str
    #: The aggregate, or None when valid votes tied and the tie policy left it open.
    value: Score | None
    #: For an even-sized median, the two middle values; otherwise both equal `value`.
    low: Score | None = None
    high: Score | None = None
    #: The values that tied for a majority (empty when there was no tie).
    tied: tuple[Score, ...] = ()
    #: How the tie was settled, when the policy settled it ("ties=fail").
    tie_rule: str | None = None
    votes: int = 0
    #: Highest minus lowest value, for numeric metrics.
    spread: float | None = None
    #: Whether the aggregate meets the rubric's threshold; None when undetermined or not
    #: applicable.
    passed: bool | None = None


class Dissent(BaseModel):
    """A juror that voted against the panel, with its own words."""

    model_config = _MODEL

    juror: str
    verdict: Verdict | None
    reason: str
    scores: dict[str, Score] = {}


#: The stages an agent's request goes through, in the order to debug them (the seed article's):
#: a wrong document retrieved explains a wrong tool chosen, which explains a wrong argument,
#: which explains a wrong answer. Every check belongs to one of them.
STAGES = ("retrieval", "tool choice", "tool argument", "generation")


class CheckOutcome(StrEnum):
    PASS = "pass"
    FAIL = "fail"
    NOT_APPLICABLE = "n/a"
    #: A check that asks a model (moderation) could not get an answer: not a pass, not a
    #: fail. A required one leaves a case the jury passed INCONCLUSIVE.
    UNAVAILABLE = "unavailable"


class CheckResult(BaseModel):
    """A deterministic check's result. `evidence` is truncated, never a whole secret."""

    model_config = _MODEL

    name: str
    outcome: CheckOutcome
    reason: str = ""
    evidence: str | None = None
    #: The debugging stage it belongs to: retrieval, tool choice, tool argument, generation.
    stage: str = "generation"
    required: bool = True
    #: A check that asks a model (moderation): the model, as ``provider/model``, and what its
    #: calls on this case cost (the run's accounting adds them up: `RunSummary.check_calls`).
    model: str | None = None
    calls: CallStats | None = None


def check_reasons(checks: Sequence[CheckResult], outcome: CheckOutcome) -> tuple[str, ...]:
    """Why the required checks with this outcome count: "check pii failed: ..."."""
    word = "failed" if outcome is CheckOutcome.FAIL else outcome.value
    return tuple(
        f"check {c.name} {word}: {c.reason}" if c.reason else f"check {c.name} {word}"
        for c in checks
        if c.required and c.outcome is outcome
    )


class CaseVerdict(BaseModel):
    """The panel's verdict on one case, with everything that led to it."""

    model_config = _MODEL

    case_id: str
    category: str | None = None
    #: The case's set: "dev" or "heldout" (reports give results per split).
    split: str | None = None
    verdict: Verdict
    reasons: tuple[str, ...] = ()
    metrics: dict[str, MetricResult] = {}
    #: A rubric-level score where the rubric has one (points: earned / total).
    score: float | None = None
    votes: tuple[Vote, ...] = ()
    checks: tuple[CheckResult, ...] = ()
    #: True when the judges were not asked because a required check already failed.
    judges_spared: bool = False
    #: The judge calls a spared case did not make (each juror's samples times its prompts).
    calls_saved: int = 0
    disagreement: bool = False
    disagreement_reasons: tuple[str, ...] = ()
    dissent: tuple[Dissent, ...] = ()
    duration_s: float = 0.0
    #: Every vote came from an offline reference juror or replayed record.
    offline: bool = False
    #: A learned jury's confidence in its verdict: the estimated chance that it agrees with
    #: the labels it was fitted on (`aggregation = "learned"`); None under other aggregations.
    confidence: float | None = None
    #: Why each later tier of a cascade was asked, in order (``[[tier]]`` in the jury file).
    escalations: tuple[str, ...] = ()
    #: Jurors of later tiers a cascade did not need to ask, and the calls that spared.
    not_asked: tuple[str, ...] = ()
    tier_calls_saved: int = 0

    def with_checks(self, checks: Sequence[CheckResult]) -> CaseVerdict:
        """This jury verdict joined with the case's checks (AND): a failed required check
        fails the case; one that could not run (errors are neither failures nor passes)
        leaves a case the jury passed INCONCLUSIVE."""
        failed = check_reasons(checks, CheckOutcome.FAIL)
        unavailable = check_reasons(checks, CheckOutcome.UNAVAILABLE)
        if not failed and not (unavailable and self.verdict is Verdict.PASS):
            return self.model_copy(update={"checks": tuple(checks)})
        jury_said = f"the jury said {self.verdict.value}" + (
            f": {'; '.join(self.reasons)}" if self.reasons else ""
        )
        return self.model_copy(
            update={
                "verdict": Verdict.FAIL if failed else Verdict.INCONCLUSIVE,
                "reasons": (*(failed or unavailable), jury_said),
                "checks": tuple(checks),
            }
        )

    @property
    def valid_votes(self) -> int:
        return sum(1 for vote in self.votes if vote.status is VoteStatus.VALID)

    @property
    def failed_stage(self) -> str | None:
        """The first stage, in `STAGES` order, where the case went wrong.

        That is the earliest stage with a failed required check; a case whose checks all
        passed but which the jury failed went wrong at generation. None when it did not fail.
        """
        failed = {c.stage for c in self.checks if c.required and c.outcome is CheckOutcome.FAIL}
        if "agent" in failed:  # the system under test broke before any other stage ran
            return "agent"
        for stage in STAGES:
            if stage in failed:
                return stage
        if failed:
            return min(failed)
        return "generation" if self.verdict is Verdict.FAIL else None


# --- one value as a result ----------------------------------------------------------------
# Here, beside the types, because both sides need them: the rubric seam decides one juror's
# own values with `single`, and the decision step's reducers build every result on them.


def is_number(value: Score) -> bool:
    # Exact types: bool is an int subclass but a category here (and this is a hot path).
    return type(value) is int or type(value) is float


def meets(metric: Metric, value: Score | None) -> bool | None:
    if metric.threshold is None or value is None or not is_number(value):
        return None
    return float(value) >= metric.threshold


def single(metric: Metric, value: Score) -> MetricResult:
    """One value, as a result: a juror's own values, before any aggregation."""
    return single_result(metric, value, is_number(value))


def single_result(metric: Metric, value: Score, numeric: bool) -> MetricResult:
    return MetricResult(
        name=metric.name,
        value=value,
        low=value,
        high=value,
        votes=1,
        spread=0.0 if numeric else None,
        passed=meets(metric, value),
    )
