"""Joining the run directories of a run's shards into one (`jury merge RUN...`).

The shards must be one run cut in pieces: the same cases file, jury and rubric (their
fingerprints in the manifests), the same number of shards, each shard once, none missing, and
each finished (every one of its cases has its verdict). Anything else is refused, with what
differs, overlaps or is missing named. The merged directory holds every case and verdict,
in the cases file's order, and is then published like any run: its summary, reports,
agreement and comparisons are those of the run unsharded.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from .._errors import JuryError, MergeError
from .._verdict import CaseVerdict
from ..cases._case import Case
from ._records import (
    Redactor,
    RunRecord,
    file_digest,
    jury_identity,
    read_cases,
    read_verdicts,
    require_manifest,
)

__all__ = ["Merged", "merge_runs"]

#: How many case IDs an error names before it counts the rest.
_NAMED = 5


@dataclass(frozen=True, slots=True)
class _Shard:
    run: Path
    manifest: dict[str, Any]
    cases: list[Case]
    verdicts: list[CaseVerdict]

    @property
    def index(self) -> int:
        return int(self.manifest["shard"]["index"])

    @property
    def name(self) -> str:
        shard = self.manifest["shard"]
        return f"shard {shard['index']}/{shard['count']} ({self.run})"


@dataclass(frozen=True, slots=True)
class Merged:
    """A merged run: its directory's record, and its manifest."""

    record: RunRecord
    manifest: dict[str, Any]


def _ids(ids: Iterable[str]) -> str:
    ids = sorted(ids)
    named = ", ".join(ids[:_NAMED])
    return named + (f" and {len(ids) - _NAMED} more" if len(ids) > _NAMED else "")


def _load(runs: Sequence[Path]) -> tuple[list[_Shard], list[str]]:
    shards, problems = [], []
    for run in runs:
        manifest = require_manifest(run)
        if not manifest.get("shard"):
            problems.append(f"{run}: not a shard (it was not run with --shard i/n)")
            continue
        shards.append(_Shard(run, manifest, list(read_cases(run)), read_verdicts(run)))
    return shards, problems


#: What the shards of one run share, as their manifests record it.
_FACTS: dict[str, Callable[[dict[str, Any]], Any]] = {
    "the cases file": lambda m: m["cases"]["sha256"],
    "the jury": lambda m: jury_identity(m["jury"]),
    "the rubric": lambda m: m["rubric"]["fingerprint"],
    "the subset": lambda m: {
        k: (m.get("subset") or {}).get(k) for k in ("ids", "categories", "sample", "limit", "seed")
    },
    "the number of shards": lambda m: m["shard"]["count"],
}


def _check(shards: list[_Shard]) -> list[str]:
    """Everything that keeps the shards from being one run."""
    problems: list[str] = []
    first = shards[0]
    for shard in shards[1:]:
        then, now = (jury_identity(s.manifest["jury"]) for s in (first, shard))
        keys = sorted(k for k in then.keys() | now.keys() if then.get(k) != now.get(k))
        for what, fact in _FACTS.items():
            if what == "the rubric" and {"rubric", "thresholds"} & set(keys):
                continue  # another rubric or thresholds change its fingerprint: named once
            if fact(shard.manifest) != fact(first.manifest):
                named = f"the jury ({', '.join(keys)})" if what == "the jury" else what
                problems.append(f"{shard.name}: {named} differs from {first.name}'s")
    if problems:
        return problems
    count = int(first.manifest["shard"]["count"])
    by_index: dict[int, list[_Shard]] = {}
    for shard in shards:
        by_index.setdefault(shard.index, []).append(shard)
    for index, given in sorted(by_index.items()):
        if len(given) > 1:
            runs = ", ".join(str(s.run) for s in given)
            problems.append(f"overlap: shard {index}/{count} is given {len(given)} times ({runs})")
    missing = [i for i in range(1, count + 1) if i not in by_index]
    if missing:
        listed = ", ".join(f"{i}/{count}" for i in missing)
        problems.append(f"gap: shard{'s' * (len(missing) > 1)} {listed} missing")
    seen: dict[str, _Shard] = {}
    for shard in shards:
        twice = [case.id for case in shard.cases if case.id in seen]
        if twice:
            problems.append(f"overlap: {shard.name} repeats cases of another shard: {_ids(twice)}")
        seen.update((case.id, shard) for case in shard.cases)
        decided = {verdict.case_id for verdict in shard.verdicts}
        unfinished = [case.id for case in shard.cases if case.id not in decided]
        if unfinished:
            problems.append(
                f"gap: {shard.name} is unfinished: {len(unfinished)} case"
                f"{'s have' if len(unfinished) != 1 else ' has'} no verdict ({_ids(unfinished)}); "
                "resume it first"
            )
    return problems


def _order(shards: list[_Shard]) -> list[str]:
    """The case IDs in the cases file's order when the file is still there unchanged, else
    in the order of their IDs."""
    manifest = shards[0].manifest
    path = Path(manifest.get("cwd") or ".") / manifest["cases"]["path"]
    ids = {case.id for shard in shards for case in shard.cases}
    if path.is_file() and file_digest(path) == manifest["cases"]["sha256"]:
        from ..cases._load import iter_cases

        fields = manifest["jury"].get("fields") or {}
        reading = manifest.get("reading") or {}
        format, root = reading.get("format"), reading.get("root")
        try:
            read = iter_cases(path, validate=False, fields=fields, format=format, root=root)
            return [c.id for c in read if c.id in ids]
        except JuryError:  # a run recorded before its --format was: IDs will do
            pass
    return sorted(ids)


def merge_runs(runs: Sequence[str | Path], out: Path, argv: Sequence[str]) -> Merged:
    """Check that `runs` are the shards of one run, and write them into `out` as one run."""
    shards, problems = _load([Path(run) for run in runs])
    if shards and not problems:
        problems = _check(shards)
    if problems or not shards:
        raise MergeError(problems or ["no run given"])
    order = _order(shards)
    cases = {case.id: case for shard in shards for case in shard.cases}
    verdicts = {v.case_id: v for shard in shards for v in shard.verdicts}
    first = shards[0].manifest
    now = datetime.now(UTC).isoformat(timespec="seconds")
    manifest = {
        key: value
        for key, value in first.items()
        if key not in ("shard", "finished", "exit_code", "run_id", "command", "started")
    }
    manifest.update(
        run_id=out.name,
        started=min(str(s.manifest.get("started", now)) for s in shards),
        command=list(argv),
        cases={**first["cases"], "count": len(order)},
        # The merged run's cases, every shard's: what a report counts its verdicts against.
        subset={**(first.get("subset") or {}), "selected": len(order)},
        merged=[
            {"run": str(s.run), "shard": f"{s.index}/{first['shard']['count']}"}
            for s in sorted(shards, key=lambda s: s.index)
        ],
        # What any shard warned of, each warning once.
        warnings=[*dict.fromkeys(w for s in shards for w in s.manifest.get("warnings") or ())],
    )
    redactor = Redactor(first.get("redact", ()))
    record = RunRecord.create(out, manifest, (cases[i] for i in order), redactor)
    with record:
        for case_id in order:
            record.append(verdicts[case_id])
    return Merged(record, manifest)
