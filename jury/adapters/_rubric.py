"""The rubric seam: what a judge is asked and how its reply is read.

A rubric renders a case into prompts, declares the reply schema, turns a validated reply into
a ballot, combines one juror's ballots (samples, both pairwise orders) into its vote, and
decides the case from the per-metric aggregates. The engine does everything between: calls,
validation retries, aggregation across jurors, quorum and ties.

A rubric also writes the reply a reference juror gives (`Rubric.reference_reply`), from what
that juror measures through the `ReferenceJudge` interface: the rubric knows its own schema,
the juror only scores text.
"""

from __future__ import annotations

import hashlib
import json
import re
from abc import ABC, abstractmethod
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal, Protocol, TypeVar

import jiter
from pydantic import BaseModel, ValidationError

from .._errors import InvalidReply
from .._verdict import Level, Metric, single

if TYPE_CHECKING:
    from .._verdict import Ballot, MetricResult, Score, Verdict
    from ..cases._case import Case

__all__ = [
    "Decision",
    "Judgement",
    "Level",
    "Metric",
    "Preference",
    "Prompt",
    "Rating",
    "ReferenceJudge",
    "Rubric",
    "case_fence",
    "parse_reply",
    "pydantic_reason",
    "validate_model",
]


@dataclass(frozen=True, slots=True)
class Prompt:
    """One request a rubric makes of each juror for a case (pairwise makes two: AB and BA).

    `system` must not depend on the case, so that it can be cached by the provider and pinned
    as one golden file per rubric.
    """

    key: str
    system: str
    user: str
    schema: dict[str, Any]
    schema_name: str = "verdict"


@dataclass(frozen=True, slots=True)
class Decision:
    """What the rubric concludes from the aggregated metrics."""

    verdict: Verdict
    reasons: tuple[str, ...] = ()
    score: float | None = None


@dataclass(frozen=True, slots=True)
class Rating:
    """A reference judge's score of a text on one aspect, 1 (worst) to 5 (best), and why.

    `measured` is false when the judge could not measure the aspect (correctness with no
    golden answer to compare with): `value` is then only a neutral stand-in for arithmetic,
    and a rubric abstains on that metric rather than vote the stand-in."""

    value: int
    why: str
    measured: bool = True


@dataclass(frozen=True, slots=True)
class Judgement:
    """A reference judge's yes / no / can't tell, why, and for a "yes" the words of the text
    that show it (copied from the text, so that the quote occurs in it)."""

    verdict: Literal["yes", "no", "cant_tell"]
    why: str
    quote: str | None = None


@dataclass(frozen=True, slots=True)
class Preference:
    """Which of two texts a reference judge finds better: "1" (the first), "2", or "tie"
    when it cannot tell them apart; and why."""

    winner: Literal["1", "2", "tie"]
    why: str


class ReferenceJudge(Protocol):
    """What a reference juror (a deterministic heuristic such as an offline juror, not an LLM)
    can measure of one case's answers, for a rubric's `reference_reply`.

    The juror holds the case: every text is measured against its question, golden answer and
    evidence. It knows nothing of the rubric's kind, schema or prompts.
    """

    #: How the juror signs reasons written from its measures ("offline reference"). Reasons
    #: start with it in brackets, so that a reader knows a heuristic wrote them.
    name: str

    def rate(self, text: str, aspects: Sequence[str]) -> Mapping[str, Rating]:
        """`text`, as an answer to the case, rated on each named aspect ("correctness",
        "relevance"...); an aspect it has no measure for is rated from the others."""
        ...

    def states(self, statement: str, text: str) -> Judgement:
        """Whether `text` states `statement` (a point); a "yes" quotes the words that do."""
        ...

    def meets(self, criterion: str, text: str) -> Judgement:
        """Whether `text`, as an answer to the case, meets `criterion` (a quality of the
        answer as a whole, such as "grounded in the evidence")."""
        ...

    def prefer(self, first: str, second: str) -> Preference:
        """Which of two answers to the case is better."""
        ...

    def about(self, case: Case) -> ReferenceJudge:
        """The same juror, measuring another case: a conversation as it stood at one of its
        turns, judged on its own."""
        ...


class Rubric(ABC):
    """Base of every rubric kind (scale, points, criterion, pairwise)."""

    name: str = "rubric"
    kind: str = "rubric"

    @abstractmethod
    def metrics(self, case: Case) -> tuple[Metric, ...]:
        """The metrics a ballot carries for this case (points rubrics vary by case)."""

    @abstractmethod
    def prompts(self, case: Case) -> tuple[Prompt, ...]:
        """Render the case. Raise `ValueError` when the case lacks what the rubric needs."""

    @abstractmethod
    def read(self, case: Case, prompt: Prompt, data: Any) -> Ballot:
        """Validate a parsed reply against the schema and the rules; raise `InvalidReply`."""

    def read_value(
        self, case: Case, prompt: Prompt, ballot: Ballot, path: tuple[str, ...], value: Any
    ) -> Ballot | None:
        """What `read` gives for the reply `ballot` was read from with its field at `path`
        (keys from the top of the reply) set to `value`: a shortcut for soft confidence,
        which reads every value the judge might have written in a field (each alternative
        token), and would otherwise validate the whole reply again for each.

        A rubric may override it for fields it reads on their own: a value that is invalid
        there makes the reply invalid whatever its other fields say (raise `InvalidReply`),
        and a valid one changes nothing but what that field gives. Return None (the
        default) where it cannot tell: the whole reply is then read. It must agree with
        `read`.
        """
        return None

    @abstractmethod
    def decide(self, case: Case, results: Mapping[str, MetricResult]) -> Decision:
        """Decide the case from the aggregated metrics (or one juror's own values)."""

    def verdict_of(self, case: Case, scores: Mapping[str, Score]) -> Verdict:
        """One juror's own verdict: the case decided on its values alone.

        Rubrics may override this with a shortcut; it must agree with `decide`.
        """
        results = {
            m.name: single(m, scores[m.name]) for m in self.metrics(case) if m.name in scores
        }
        return self.decide(case, results).verdict

    def combine(self, case: Case, ballots: Sequence[tuple[Prompt, Ballot]]) -> Ballot | str:
        """Combine one juror's ballots for a case into its vote, or return why it abstains.

        The default expects one prompt per case; samples are aggregated by the engine.
        """
        if len(ballots) != 1:
            raise NotImplementedError(f"{self.kind} rubrics ask one prompt per case")
        return ballots[0][1]

    def reference_reply(self, case: Case, prompt: Prompt, judge: ReferenceJudge) -> dict[str, Any]:
        """The reply a reference juror gives to `prompt`, written from what `judge` measures.

        Offline reference jurors call this rather than guess the reply from the schema: only
        the rubric knows what its reply holds. The reply must pass `read`. Raise `ValueError`
        when the judge's measures cannot fill it (a criterion it cannot tell). A kind that
        does not implement it cannot be judged by reference jurors. Either way their votes
        are unavailable, with the error's message as the reason.
        """
        raise NotImplementedError(f"{self.kind} rubrics write no reference reply")

    def with_thresholds(self, thresholds: Mapping[str, float]) -> Rubric:
        """A copy whose thresholds are overridden ("*" for every metric)."""
        if thresholds:
            raise ValueError(f"{self.kind} rubrics take no thresholds")
        return self

    def fingerprint(self) -> str:
        """A hash of everything that shapes the prompts, for run manifests and caches."""
        return hashlib.sha256(repr(self.__dict__).encode()).hexdigest()[:16]


_FENCE = re.compile(r"\A```(?:json|JSON)?[ \t]*\r?\n(.*?)\r?\n?```\Z", re.DOTALL)
_DUPLICATE = re.compile(r'Detected duplicate key "(.*)" at line')


def parse_reply(text: str) -> Any:
    """Read a judge's reply text as one JSON object.

    The rule: the reply is a JSON object, optionally wrapped in one markdown code fence (a
    common habit that changes no meaning). Anything else — prose before or after, two
    objects, an array, a key given twice — is invalid and re-asked: trailing prose may
    retract a score, and of two values for one key (a metric scored twice, a point answered
    twice) neither can be chosen.
    """
    body = text.strip()
    if body.startswith("```"):
        fenced = _FENCE.match(body)
        if fenced:
            body = fenced.group(1).strip()
    try:
        # jiter (pydantic's parser) is several times faster than json's and, unlike json,
        # reports a duplicate key instead of keeping its last value; json explains failures.
        data = jiter.from_json(body.encode(), catch_duplicate_keys=True)
    except ValueError as exc:
        duplicate = _DUPLICATE.match(str(exc))
        if duplicate:
            raise InvalidReply(f"{duplicate.group(1)}: given twice") from None
        data = _explain(body)
    if not isinstance(data, dict):
        raise InvalidReply(f"expected a JSON object, got {_json_type(data)}")
    return data


def _json_type(data: Any) -> str:
    return {list: "an array", str: "a string", type(None): "null", bool: "a boolean"}.get(
        type(data), "a number"
    )


def _unique(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    data: dict[str, Any] = {}
    for key, value in pairs:
        if key in data:
            raise InvalidReply(f"{key}: given twice")
        data[key] = value
    return data


#: Read as a person reads it: a raw line break or tab inside a string (which small local
#: models write, and JSON's grammar forbids) is that character, not a broken reply.
_LENIENT = json.JSONDecoder(strict=False, object_pairs_hook=_unique)


def _explain(body: str) -> Any:
    """Why `body` is not one JSON object (or the value, where json reads what pydantic-core
    would not: control characters inside strings)."""
    try:
        return _LENIENT.decode(body)
    except json.JSONDecodeError as exc:
        if body.startswith("{"):
            try:
                _, end = _LENIENT.raw_decode(body)
            except json.JSONDecodeError:
                why = exc.msg.removesuffix(" at")
                raise InvalidReply(f"not valid JSON: {why} at column {exc.colno}") from None
            raise InvalidReply(
                f"text after the JSON object (column {end + 1}): reply with the object only"
            ) from None
        raise InvalidReply("not a JSON object: reply with the JSON object only") from None


def pydantic_reason(exc: ValidationError) -> str:
    """One line per schema problem, naming the field: what the judge is told when re-asked."""
    parts = []
    for err in exc.errors(include_url=False):
        loc = ".".join(str(p) for p in err["loc"]) or "reply"
        if err["type"] == "missing":
            parts.append(f"{loc}: missing")
        else:
            parts.append(f"{loc}: {err['msg']} (got {json.dumps(err.get('input'))[:40]})")
    return "; ".join(parts)


M = TypeVar("M", bound=BaseModel)


def validate_model(model: type[M], data: Any) -> M:
    """Schema validation (types and presence, no coercion): the first of two checks."""
    try:
        return model.model_validate(data, strict=True)
    except ValidationError as exc:
        raise InvalidReply(pydantic_reason(exc)) from None


def case_fence(*parts: str) -> str:
    """A tag suffix for the case's sections that no text inside the case can contain.

    It is derived from the case's own text, so the rendered bytes are deterministic (they can
    be pinned), and a text would need to contain a hash of itself to close its section early.
    """
    digest = hashlib.sha256("\x00".join(parts).encode()).hexdigest()
    return digest[:12]
