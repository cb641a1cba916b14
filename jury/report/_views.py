"""What the HTML pages show of a case, a vote and a judge error, built once from the records
(the templates only lay these out)."""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from .._verdict import CaseVerdict, CheckOutcome, Verdict, Vote, VoteStatus
from ..cases._case import Case
from ..cases._images import Image

__all__ = ["ErrorGroup", "ErrorGroups", "anchor", "case_view", "number"]

#: Failed cases first, then inconclusive, then passed: a page opens on what to look at.
VERDICT_ORDER = {Verdict.FAIL: 0, Verdict.INCONCLUSIVE: 1, Verdict.PASS: 2}

_PLAIN_ID = re.compile(r"[A-Za-z0-9._-]+")
#: "provider/model: " at the start of one model's error (a vote's error names each model
#: of its fallback chain in turn, separated by "; ").
_MODEL_PREFIX = re.compile(r"^[A-Za-z0-9][\w.-]*(?:/[\w.:@-]+)+: ")


def anchor(prefix: str, case_id: str) -> str:
    """An element ID for a case: the case ID itself where it is plain, else a readable part
    and a hash (so that two IDs can never share an anchor, and a link needs no escaping)."""
    if _PLAIN_ID.fullmatch(case_id):
        return f"{prefix}-{case_id}"
    readable = re.sub(r"[^A-Za-z0-9._-]+", "_", case_id)[:40]
    return f"{prefix}-{readable}-{hashlib.sha256(case_id.encode()).hexdigest()[:8]}"


def number(value: object) -> str:
    if isinstance(value, float):
        return f"{value:g}" if value.is_integer() else f"{value:.2f}"
    return "–" if value is None else str(value)


def _error_key(error: str) -> str:
    """A vote's error without the names of the models that raised it, so that one outage
    reads the same for every juror it hit."""
    return "; ".join(_MODEL_PREFIX.sub("", part) for part in error.split("; "))


@dataclass
class ErrorGroup:
    """One error as several votes met it: "3 jurors × 14 cases: connection refused"; or as
    the checks that ask a model met it: "the moderation check × 14 cases"."""

    number: int
    status: str
    text: str
    jurors: list[str] = field(default_factory=list)
    #: The cases it hit that the report shows (all of them unless the report leaves
    #: passing cases out), and how many it hit in all.
    cases: list[str] = field(default_factory=list)
    hit: int = 0
    votes: int = 0
    #: The checks that could not ask their model (moderation), and how many times.
    checks: list[str] = field(default_factory=list)
    results: int = 0
    #: The case it was last met on (a case's votes and checks are met together).
    last: str | None = field(default=None, repr=False)

    @property
    def title(self) -> str:
        jurors, cases = len(self.jurors), self.hit
        who = [f"{jurors} juror{'s' * (jurors != 1)}"] if jurors else []
        if self.checks:
            who.append(f"the {', '.join(self.checks)} check{'s' * (len(self.checks) != 1)}")
        return f"{' and '.join(who)} × {cases} case{'s' * (cases != 1)} ({self.status})"

    @property
    def not_shown(self) -> int:
        return self.hit - len(self.cases)


def _check_key(name: str) -> str:
    """An unavailable check's place among the erring votes' (case ID, juror) keys (a juror's
    name has no space)."""
    return f"check {name}"


class ErrorGroups:
    """The run's judge errors grouped by their text, gathered one verdict at a time; each
    erring vote's group by (case ID, juror) is kept for the cases the report shows. A check
    that could not ask its model is one more source of the same errors, by (case ID,
    "check <name>")."""

    def __init__(self) -> None:
        self.groups: dict[tuple[str, str], ErrorGroup] = {}
        self.of_vote: dict[tuple[str, str], tuple[str, str]] = {}

    def _group(self, case_id: str, source: str, status: str, error: str, shown: bool) -> ErrorGroup:
        key = (status, _error_key(error))
        group = self.groups.get(key)
        if group is None:
            group = self.groups[key] = ErrorGroup(0, key[0], key[1])
        if group.last != case_id:
            group.last = case_id
            group.hit += 1
            if shown:
                group.cases.append(case_id)
        if shown:
            self.of_vote[case_id, source] = key
        return group

    def add(self, verdict: CaseVerdict, *, shown: bool = True) -> None:
        for vote in verdict.votes:
            if not vote.error:
                continue
            group = self._group(verdict.case_id, vote.juror, vote.status.value, vote.error, shown)
            group.votes += 1
            if vote.juror not in group.jurors:
                group.jurors.append(vote.juror)
        for check in verdict.checks:
            if check.outcome is not CheckOutcome.UNAVAILABLE:
                continue
            source = _check_key(check.name)
            group = self._group(verdict.case_id, source, check.outcome.value, check.reason, shown)
            group.results += 1
            if check.name not in group.checks:
                group.checks.append(check.name)

    def result(
        self, order: Mapping[str, int] | None = None
    ) -> tuple[list[ErrorGroup], dict[Any, int]]:
        """The groups (most votes first, numbered), each with its cases in `order` (a case
        ID's place in the report) when given, and each erring vote's group number."""
        ordered = sorted(self.groups.values(), key=lambda g: (-(g.votes + g.results), g.text))
        for index, group in enumerate(ordered, start=1):
            group.number = index
            group.jurors.sort()
            if order is not None:
                group.cases.sort(key=order.__getitem__)
        return ordered, {vote: self.groups[key].number for vote, key in self.of_vote.items()}


def probability_text(value: float) -> str:
    """A probability in two decimals that never reads 0 or 1 unless it is: a judge 99.7 %
    sure is not certain, and the page must not say it is."""
    text = f"{value:.2f}"
    if text == "1.00" and value < 1.0:
        return ">0.99"
    if text == "0.00" and value > 0.0:
        return "<0.01"
    return text


def confidence_source(vote: Vote) -> str:
    """Where a vote's probability came from, in words: its reply's token log-probabilities
    (their mean over its samples, when it had several), or the share of its samples."""
    samples = len(vote.samples)
    if vote.probability_from == "logprobs":
        return "its reply's token log-probabilities" + (
            f", the mean over its {samples} samples" if samples > 1 else ""
        )
    if vote.probability_from == "samples":
        return f"the share of its {samples} samples"
    return vote.probability_from or "unknown"


def confidence_view(vote: Vote) -> dict[str, Any] | None:
    """How sure the juror was of its verdict (`Vote.probability`), the whole distribution
    and where it came from; None where the vote has none (never shown as 0 or 1)."""
    if vote.probability is None or vote.verdict is None:
        return None
    distribution = sorted((vote.distribution or {}).items(), key=lambda kv: (-kv[1], kv[0]))
    return {
        "verdict": vote.verdict.value,
        "probability": probability_text(vote.probability),
        "distribution": [
            {"outcome": k, "probability": probability_text(p)} for k, p in distribution
        ],
        "source": confidence_source(vote),
    }


def _vote_view(
    vote: Vote, case_id: str, dissenters: set[str], errors: Mapping[Any, int], prompt: str | None
) -> dict[str, Any]:
    return {
        "juror": vote.juror,
        "status": vote.status.value,
        "verdict": vote.verdict.value if vote.verdict else "",
        "scores": {name: number(value) for name, value in vote.scores.items()},
        "reason": vote.reason,
        "error": vote.error or "",
        "error_group": errors.get((case_id, vote.juror)),
        "raw": vote.raw if vote.status is VoteStatus.INVALID and vote.raw else "",
        "served_by": vote.served_by or "",
        "dissent": vote.juror in dissenters,
        "latency": f"{vote.calls.latency_s:.2f}s",
        "tokens": f"{vote.calls.input_tokens}/{vote.calls.output_tokens}",
        "offline": vote.offline,
        "fake": vote.fake,
        "batched": vote.calls.batched,
        "prompt": prompt,
        # What the seat's strategy had it write before its verdict (its questions, its own
        # answer, its reasoning), shown with its vote.
        "generated": dict(vote.generated),
        # Soft confidence (`jury.engine._soft`): absent where the vote has none.
        "confidence": confidence_view(vote),
    }


def _numeric(values: Iterable[object]) -> list[float]:
    return [float(v) for v in values if isinstance(v, int | float) and not isinstance(v, bool)]


def _reasons(verdict: CaseVerdict, errors: Mapping[Any, int]) -> list[dict[str, Any]]:
    """The verdict's reasons; one that only repeats a vote's error (``b unavailable: ...``)
    points at that error's listing instead of repeating it."""
    said = {
        f"{vote.juror} {vote.status.value}: {vote.error}": (
            f"{vote.juror} {vote.status.value}",
            errors[verdict.case_id, vote.juror],
        )
        for vote in verdict.votes
        if vote.error and (verdict.case_id, vote.juror) in errors
    }
    for check in verdict.checks:  # "check moderation unavailable: ..." (`check_reasons`)
        group = errors.get((verdict.case_id, _check_key(check.name)))
        if group is not None:
            said[f"check {check.name} {check.outcome.value}: {check.reason}"] = (
                f"check {check.name} {check.outcome.value}",
                group,
            )
    reasons = []
    for reason in verdict.reasons:
        text, group = said.get(reason, (reason, None))
        reasons.append({"text": text, "error_group": group})
    return reasons


#: A card's heading shows at most this many metrics; more (a conversation judged turn by
#: turn has a set per turn), and it shows the failed ones and how many more there are.
_MAX_CHIPS = 8


def _chips(metrics: Mapping[str, Any]) -> dict[str, Any]:
    chips = [
        {"name": name, "value": number(result.value), "failed": result.passed is False}
        for name, result in metrics.items()
    ]
    if len(chips) <= _MAX_CHIPS:
        return {"metrics": chips, "metrics_more": 0}
    failed = [chip for chip in chips if chip["failed"]]
    return {"metrics": failed, "metrics_more": len(chips) - len(failed)}


def case_view(
    verdict: CaseVerdict,
    case: Case | None,
    *,
    errors: Mapping[Any, int],
    prompt: str | None,
    position: int,
) -> dict[str, Any]:
    """A case card: verdict and why, the texts, the votes, then the checks (failed ones in a
    table, passed ones by name, the ones that did not apply folded away)."""
    dissenters = {d.juror for d in verdict.dissent}
    metrics = verdict.metrics
    numeric = _numeric(result.value for result in metrics.values())
    spreads = [r.spread for r in metrics.values() if r.spread is not None]
    checks = verdict.checks
    # The case's calls: its votes' and those of its checks that ask a model (moderation).
    calls = [v.calls for v in verdict.votes] + [c.calls for c in checks if c.calls is not None]
    cost = sum(c.cost or 0.0 for c in calls)
    unknown_cost = any(c.cost is None for c in calls)
    return {
        "id": verdict.case_id,
        "anchor": anchor("case", verdict.case_id),
        "category": verdict.category or "(none)",
        "verdict": verdict.verdict.value,
        "reasons": _reasons(verdict, errors),
        "stage": verdict.failed_stage if verdict.verdict is Verdict.FAIL else None,
        **_chips(metrics),
        "score": None if verdict.score is None else f"{verdict.score:.2f}",
        "votes": [
            _vote_view(vote, verdict.case_id, dissenters, errors, prompt) for vote in verdict.votes
        ],
        "metric_names": sorted({name for vote in verdict.votes for name in vote.scores}),
        "checks_failed": [c for c in checks if c.outcome is CheckOutcome.FAIL],
        "checks_passed": [c.name for c in checks if c.outcome is CheckOutcome.PASS],
        "checks_na": [c.name for c in checks if c.outcome is CheckOutcome.NOT_APPLICABLE],
        "checks_unavailable": [
            {"name": c.name, "error_group": errors.get((verdict.case_id, _check_key(c.name)))}
            for c in checks
            if c.outcome is CheckOutcome.UNAVAILABLE
        ],
        "spared": verdict.judges_spared,
        "calls_saved": verdict.calls_saved,
        "disagreement": verdict.disagreement,
        "disagreement_reasons": verdict.disagreement_reasons,
        "dissent": [
            {"juror": d.juror, "verdict": d.verdict.value if d.verdict else "–", "reason": d.reason}
            for d in verdict.dissent
        ],
        "question": case.question if case else "",
        "images": _images_view(case.images) if case else [],
        "answer": case.answer if case and case.answer is not None else "",
        "golden_answer": case.golden_answer if case and case.golden_answer else "",
        "duration": f"{verdict.duration_s:.2f}s",
        # What the page sorts by (empty: the case has no such value and sorts last).
        "sort": {
            "order": position,
            "score": verdict.score
            if verdict.score is not None
            else (min(numeric) if numeric else ""),
            "spread": max(spreads) if spreads else "",
            "duration": round(verdict.duration_s, 4),
            "cost": "" if unknown_cost else round(cost, 6),
        },
        "cost": None if unknown_cost else cost,
    }


#: The largest image the card shows as a thumbnail (decoded bytes): the page holds it whole.
THUMBNAIL_BYTES = 256 * 1024


def _images_view(images: tuple[Image, ...]) -> list[dict[str, Any]]:
    """A case's images on its card: each by its number, a thumbnail of an inline image not
    too big (the page's policy takes ``data:`` images and fetches nothing), else what it is."""
    views = []
    for number, image in enumerate(images, 1):
        thumbnail = image.data is not None and image.size <= THUMBNAIL_BYTES
        views.append(
            {
                "label": f"image {number}",
                "src": image.data_uri if thumbnail else None,
                "what": image.url or f"{image.media_type}, {image.size:,} bytes",
            }
        )
    return views
