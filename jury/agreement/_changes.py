"""The case-by-case half of `jury compare`: what kind of change each case made, what each
side cost, and what makes a comparison weaker than it looks (see `_compare` for the rules)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Literal

from pydantic import BaseModel, ConfigDict

from .._verdict import CaseVerdict, Verdict
from ..cases._case import Case
from ..panel._panel import CompareRules

__all__ = [
    "AGENT_COST_KEY",
    "CaseChange",
    "ChangeKind",
    "CostComparison",
    "Run",
    "SideCases",
    "case_changes",
    "compare_costs",
    "number",
    "weaknesses",
]

_MODEL = ConfigDict(frozen=True)

ChangeKind = Literal["regression", "improvement", "flaky", "inconclusive"]
Run = Mapping[str, CaseVerdict]
#: Each run's cases by ID, for side A and side B.
SideCases = tuple[Sequence[Mapping[str, Case]], Sequence[Mapping[str, Case]]]

#: The case metadata key that holds what the agent spent answering it (USD), for
#: ``cost = "agent"``.
AGENT_COST_KEY = "cost_usd"


class CaseChange(BaseModel):
    """A case whose verdict differs between the sides."""

    model_config = _MODEL

    case_id: str
    category: str | None
    #: Its verdict in each run of each side (None: the run lacks the case).
    a: tuple[Verdict | None, ...]
    b: tuple[Verdict | None, ...]
    kind: ChangeKind

    @property
    def consistent(self) -> bool:
        """Every repeat of A agrees, every repeat of B agrees, and they differ."""
        return self.kind in ("regression", "improvement")


class CostComparison(BaseModel):
    """The cost rule (``cheaper``): B's cost per run against A's, on the cases both judged."""

    model_config = _MODEL

    #: "judges": what the judge calls cost, from the records; "agent": each case's
    #: ``metadata.cost_usd``.
    source: Literal["judges", "agent"]
    a: float | None
    b: float | None
    #: B's cost as a share of A's; None when either is unknown (or A's is zero).
    ratio: float | None
    #: The most B may cost, as a share of A's (1 - cheaper).
    limit: float
    #: Whether B is cheap enough; None when it cannot be told, with the reason in `why`.
    cheap_enough: bool | None
    why: str


def number(value: object) -> float | None:
    """A JSON number as a float; None for anything else (booleans included)."""
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return float(value)
    return None


def _kind(a: Sequence[Verdict | None], b: Sequence[Verdict | None]) -> ChangeKind:
    definite = (Verdict.PASS, Verdict.FAIL)
    if any({Verdict.PASS, Verdict.FAIL} <= set(side) for side in (a, b)):
        return "flaky"
    if any(v not in definite for v in (*a, *b)):
        return "inconclusive"
    return "regression" if a[0] is Verdict.PASS else "improvement"


_ORDER: dict[ChangeKind, int] = {"regression": 0, "improvement": 1, "flaky": 2, "inconclusive": 3}


def case_changes(
    side_a: Sequence[Run], side_b: Sequence[Run], common: Sequence[str]
) -> list[CaseChange]:
    """The common cases whose verdicts differ between the sides, regressions first."""
    changes = []
    for case in common:
        a = tuple(run[case].verdict if case in run else None for run in side_a)
        b = tuple(run[case].verdict if case in run else None for run in side_b)
        if {v for v in a if v} == {v for v in b if v}:
            continue
        first = next(run[case] for run in side_a if case in run)
        changes.append(
            CaseChange(case_id=case, category=first.category, a=a, b=b, kind=_kind(a, b))
        )
    return sorted(changes, key=lambda c: _ORDER[c.kind])


def _judges_cost(runs: Sequence[Run], common: Sequence[str]) -> tuple[float | None, int]:
    """Mean cost per run of the judge calls on the common cases, and the replies the runs
    took from the cache (paid for by an earlier run, so missing from this cost)."""
    total: float | None = 0.0
    cached = 0
    for run in runs:
        for case in common:
            if case not in run:
                continue
            for vote in run[case].votes:
                cached += vote.calls.cache_hits
                cost = vote.calls.cost
                total = None if total is None or cost is None else total + cost
    return (None if total is None else total / len(runs)), cached


def _agent_cost(
    cases: Sequence[Mapping[str, Case]], common: Sequence[str]
) -> tuple[float | None, str | None]:
    """Mean cost per run of the agent's answers (each case's ``metadata.cost_usd``)."""
    total = 0.0
    for run in cases:
        for case_id in common:
            value = number(run[case_id].metadata.get(AGENT_COST_KEY)) if case_id in run else None
            if value is None:
                return None, f"case {case_id} records no metadata.{AGENT_COST_KEY}"
            total += value
    return total / len(cases), None


def _costs(
    rules: CompareRules,
    side_a: Sequence[Run],
    side_b: Sequence[Run],
    common: Sequence[str],
    cases: SideCases | None,
) -> tuple[float | None, float | None, list[str]]:
    """Each side's cost per run, and why either cannot be known."""
    if rules.cost == "agent":
        if cases is None:
            return None, None, ["the runs' cases were not given"]
        (a, why_a), (b, why_b) = _agent_cost(cases[0], common), _agent_cost(cases[1], common)
        return a, b, [f"{side}: {why}" for side, why in (("A", why_a), ("B", why_b)) if why]
    (a, cached_a), (b, cached_b) = _judges_cost(side_a, common), _judges_cost(side_b, common)
    unknown = []
    for side, value, cached in (("A", a, cached_a), ("B", b, cached_b)):
        if value is None:
            unknown.append(f"{side}: a judge call's price is unknown")
        elif cached:
            unknown.append(
                f"{side}: {cached} replies came from the cache, so its recorded cost is short "
                "of what the configuration costs (compare runs made with --refresh)"
            )
    return a, b, unknown


def compare_costs(
    rules: CompareRules,
    side_a: Sequence[Run],
    side_b: Sequence[Run],
    common: Sequence[str],
    cases: SideCases | None,
) -> CostComparison | None:
    """The cost rule's finding, or None when the rules set no ``cheaper``."""
    if rules.cheaper is None:
        return None
    limit = 1.0 - rules.cheaper
    a, b, unknown = _costs(rules, side_a, side_b, common, cases)
    ratio = None if a is None or b is None or a <= 0 else b / a
    cheap: bool | None = None
    if a is None or b is None or unknown:
        why = "cost unknown: " + "; ".join(unknown)
    elif ratio is None:
        cheap, why = b <= 0, f"A cost nothing; B costs ${b:.4g}"
    else:
        cheap = ratio <= limit + 1e-12
        relation = "at most" if cheap else "more than"
        why = f"B costs {ratio:.0%} of A ({relation} the {limit:.0%} the rules allow)"
    return CostComparison(
        source=rules.cost, a=a, b=b, ratio=ratio, limit=limit, cheap_enough=cheap, why=why
    )


def _cache_warnings(side: str, runs: Sequence[Run]) -> list[str]:
    if len(runs) < 2:
        return []
    hits = sum(vote.calls.cache_hits for run in runs for v in run.values() for vote in v.votes)
    if not hits:
        return []
    return [
        f"{side}'s repeats took {hits} replies from the cache: a cached reply never moves, so "
        "the noise between them is understated (repeat with --refresh or --no-cache)"
    ]


def weaknesses(side_a: Sequence[Run], side_b: Sequence[Run]) -> list[str]:
    """What makes the comparison weaker than it looks: repeats served from the cache, or no
    repeats at all."""
    warnings = [*_cache_warnings("A", side_a), *_cache_warnings("B", side_b)]
    if len(side_a) == 1 or len(side_b) == 1:
        warnings.append(
            "one run on a side: whether a change is stable or noise is not measured "
            "(run each side three times: --a RUN RUN RUN --b RUN RUN RUN)"
        )
    return warnings
