"""Subsets of a cases file: a fast subset on pull requests, the full suite before a release.

A `Subset` picks cases by ID, by category, the first N, or a random sample of N stratified by
category. The filters apply in that order (``ids``, ``categories``, ``sample``, ``limit``); the
cases kept stay in file order. The sample is reproducible: the same file, the same filters and
the same seed pick the same cases.

Stratified sampling: when the sample is at least as large as the number of categories, every
category gets one case; the rest are shared in proportion to each category's size (largest
remainder, ties to the category named first). A smaller sample takes one case from each of a
random choice of categories. Within a category the cases are drawn at random. Cases without a
category form a stratum of their own.
"""

from __future__ import annotations

import math
import random
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from .._errors import ConfigError
from ._case import Case

__all__ = ["Selection", "Subset", "stratified_sample"]


@dataclass(frozen=True, slots=True)
class Subset:
    """Which cases to take; the default takes every case."""

    ids: tuple[str, ...] = ()
    categories: tuple[str, ...] = ()
    #: A random sample of this many cases, stratified by category.
    sample: int | None = None
    #: The first this many cases (after the other filters).
    limit: int | None = None
    seed: int = 0

    @property
    def everything(self) -> bool:
        return not (self.ids or self.categories or self.sample or self.limit)

    def select(self, cases: Iterable[tuple[str, str | None]]) -> list[str]:
        """The IDs kept, in the order given, from (ID, category) pairs.

        An ID or a category that names no case is an error: a typo must not quietly judge
        nothing, or everything.
        """
        pairs = list(cases)
        if self.ids:
            ids = set(self.ids)
            missing = ids - {case_id for case_id, _ in pairs}
            if missing:
                raise ConfigError(f"--ids: no case with the ID {', '.join(sorted(missing))}")
            pairs = [p for p in pairs if p[0] in ids]
        if self.categories:
            categories = set(self.categories)
            present = {category for _, category in pairs}
            missing = categories - present
            if missing:
                there = ", ".join(sorted(c for c in present if c is not None)) or "none"
                raise ConfigError(
                    f"--category: no case in the category {', '.join(sorted(missing))} "
                    f"(there are: {there})"
                )
            pairs = [p for p in pairs if p[1] in categories]
        if self.sample is not None:
            chosen = set(stratified_sample(pairs, self.sample, random.Random(self.seed)))
            pairs = [p for p in pairs if p[0] in chosen]
        if self.limit is not None:
            pairs = pairs[: self.limit]
        return [case_id for case_id, _ in pairs]

    def filters(self) -> dict[str, Any]:
        """The filters, as JSON."""
        return {
            "ids": list(self.ids),
            "categories": list(self.categories),
            "sample": self.sample,
            "limit": self.limit,
            "seed": self.seed,
        }

    def record(self, selected: int, total: int) -> dict[str, Any]:
        """The subset as the run's manifest keeps it: the filters, and how many of how many
        cases they kept."""
        return {**self.filters(), "selected": selected, "of": total}

    def same_filters(self, record: dict[str, Any]) -> bool:
        """Whether a manifest's subset (none: every case) has these filters."""
        recorded = {**Subset().filters(), **record}
        return all(recorded[key] == value for key, value in self.filters().items())


def stratified_sample(
    cases: Sequence[tuple[str, str | None]], size: int, rng: random.Random
) -> list[str]:
    """`size` IDs drawn from (ID, category) pairs, stratified by category (see the module)."""
    if size >= len(cases):
        return [case_id for case_id, _ in cases]
    strata: dict[str | None, list[str]] = {}
    for case_id, category in cases:
        strata.setdefault(category, []).append(case_id)
    names = sorted(strata, key=lambda c: (c is not None, c or ""))
    if size < len(names):
        return [
            rng.choice(strata[name]) for name in sorted(rng.sample(names, size), key=names.index)
        ]
    share = dict.fromkeys(names, 1)
    rest = size - len(names)
    room = {name: len(strata[name]) - 1 for name in names}
    total_room = sum(room.values())
    quota = {name: rest * room[name] / total_room for name in names}
    for name in names:
        share[name] += math.floor(quota[name])
    left = size - sum(share.values())
    by_remainder = sorted(names, key=lambda n: quota[n] - math.floor(quota[n]), reverse=True)
    for name in by_remainder[:left]:
        share[name] += 1
    return [case_id for name in names for case_id in rng.sample(strata[name], share[name])]


@dataclass(frozen=True, slots=True)
class Selection:
    """The cases of a source a subset keeps: how many, and an iterator over them."""

    #: The cases, read again on each pass (a `jury.cases.CaseSource`, or a list).
    source: Iterable[Case]
    subset: Subset
    #: The IDs kept, or None for every case of the file.
    ids: frozenset[str] | None
    count: int
    total: int

    def cases(self) -> Iterator[Case]:
        """The kept cases, in the source's order (it was validated when it was selected)."""
        for case in self.source:
            if self.ids is None or case.id in self.ids:
                yield case

    @classmethod
    def of(cls, source: Iterable[Case], subset: Subset, total: int) -> Selection:
        """Select from a validated source of `total` cases."""
        if subset.everything:
            return cls(source, subset, None, total, total)
        ids = subset.select((c.id, c.category) for c in source)
        return cls(source, subset, frozenset(ids), len(ids), total)

    def record(self) -> dict[str, Any]:
        """The subset as the run's manifest keeps it."""
        return self.subset.record(self.count, self.total)
