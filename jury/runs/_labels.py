"""The labels file: hand labels as data that lasts (append-only JSONL, one writer).

One line per label::

    {"case_id": "c7", "labels": {"pass": false, "correctness": 2}, "labeller": "ana",
     "time": "2026-12-01T15:40:02+00:00", "case_hash": "3f2a9c01d4e5b6a7", "note": "wrong date"}

``labels`` has the keys of a case's ``labels`` (``pass``, or a metric of the rubric with one of
its values). A relabel is a new line and the latest line of a labeller for a case wins; a
line with ``"withdrawn": true`` (what the page's undo writes) takes that labeller's label of
the case back. Lines are appended, never rewritten: a crash loses at most the label being
typed. Two labellers are two names in one file, or two files.

``case_hash`` is `case_hash` of the case as the labeller saw it (every field but its own
``labels``). When the case's content changes afterwards, its label is *stale*: it is flagged
and not used, rather than silently reused for an answer nobody labelled. The field is optional
in hand-written files (a line without it is never stale).

One writer: `LabelWriter` holds an exclusive ``flock`` on the file for its life, as a run
directory's writer does (`_lock`), so two pages on one file are refused; the kernel drops the
lock when the process ends, however it ends.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections import Counter
from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from .._errors import ConfigError, LabelsFileError, LabelsLockedError
from .._verdict import Metric
from ..adapters._rubric import Rubric
from ..cases._case import Case
from ._lock import can_lock, lock_at_once

__all__ = [
    "LABELS",
    "VERDICT_KEYS",
    "Label",
    "LabelWriter",
    "LabelsLockedError",
    "case_hash",
    "check_label",
    "check_only",
    "current_labels",
    "label_fields",
    "load_labels",
    "majority_labels",
    "read_labels",
    "validate_labels",
    "with_file_labels",
]

LABELS = "labels.jsonl"
#: Label keys that mean the case's verdict rather than one metric.
VERDICT_KEYS = ("pass", "verdict")
_PASS = Metric(name="pass", level="nominal", values=(False, True))
_FIELDS = {"case_id", "labels", "labeller", "time", "case_hash", "note", "withdrawn", "asked"}


@dataclass(frozen=True, slots=True)
class Label:
    """One line of a labels file. `labels` is None for a withdrawal."""

    case_id: str
    labeller: str
    time: str
    labels: Mapping[str, Any] | None
    case_hash: str | None = None
    note: str | None = None
    #: The fields the labelling page asked for (a pass/fail-only page asks ``pass`` alone);
    #: `labels` may hold more, kept from the labeller's earlier label of the case. None in a
    #: line that does not say (written by hand, or before pages took a subset).
    asked: tuple[str, ...] | None = None
    #: The line it was read from (0 for a label not read from a file).
    line: int = 0

    def record(self) -> dict[str, Any]:
        data: dict[str, Any] = {"case_id": self.case_id}
        if self.labels is None:
            data["withdrawn"] = True
        else:
            data["labels"] = dict(self.labels)
        data.update(labeller=self.labeller, time=self.time)
        if self.case_hash is not None:
            data["case_hash"] = self.case_hash
        if self.asked is not None:
            data["asked"] = list(self.asked)
        if self.note:
            data["note"] = self.note
        return data


def case_hash(case: Case) -> str:
    """What a label is about, as 16 hex digits: the SHA-256 of the case's canonical JSON
    (sorted keys) without its own ``labels``, which are not content."""
    content = case.model_dump(mode="json", exclude={"labels"}, exclude_defaults=True)
    text = json.dumps(content, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


# --- reading ---------------------------------------------------------------------------------


def _parse(number: int, text: str) -> tuple[Label | None, str | None]:
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        return None, f"not JSON ({exc.msg})"
    if not isinstance(data, dict):
        return None, "a line must be a JSON object"
    unknown = sorted(set(data) - _FIELDS)
    if unknown:
        return None, f"unknown field {', '.join(unknown)}"
    for key in ("case_id", "labeller", "time"):
        if not isinstance(data.get(key), str) or not data[key].strip():
            return None, f"{key}: a non-empty string is required"
    withdrawn = data.get("withdrawn", False)
    if not isinstance(withdrawn, bool):
        return None, "withdrawn: must be true or false"
    labels = data.get("labels")
    if withdrawn:
        labels = None
    elif not isinstance(labels, dict) or not labels:
        return None, "labels: an object with at least one label is required"
    for key in ("case_hash", "note"):
        if data.get(key) is not None and not isinstance(data[key], str):
            return None, f"{key}: must be a string"
    asked = data.get("asked")
    if asked is not None and (
        not isinstance(asked, list) or not asked or not all(isinstance(a, str) for a in asked)
    ):
        return None, "asked: a list of the label fields the page asked for is required"
    label = Label(
        case_id=data["case_id"],
        labeller=data["labeller"],
        time=data["time"],
        labels=labels,
        case_hash=data.get("case_hash"),
        note=data.get("note"),
        asked=None if asked is None else tuple(asked),
        line=number,
    )
    return label, None


def read_labels(path: str | Path) -> list[Label]:
    """Every line of a labels file, in order; a malformed line is refused with its number
    (all of them are listed). A torn last line (a machine crash mid-write: no newline, not
    JSON) is left out, as run records do."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return []
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"{path}: cannot read the labels file: {exc}") from None
    lines = text.split("\n")
    labels: list[Label] = []
    problems: list[str] = []
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        label, problem = _parse(number, line)
        if problem is not None:
            if number == len(lines) and problem.startswith("not JSON"):
                continue  # torn tail: the label being written when the machine stopped
            problems.append(f"{path}:{number}: {problem}")
        elif label is not None:
            labels.append(label)
    if problems:
        raise LabelsFileError(problems)
    return labels


def current_labels(labels: Iterable[Label]) -> dict[tuple[str, str], Label]:
    """(case ID, labeller) -> that labeller's label in force: the latest line wins, and a
    withdrawal removes it."""
    found: dict[tuple[str, str], Label] = {}
    for label in labels:
        key = (label.case_id, label.labeller)
        if label.labels is None:
            found.pop(key, None)
        else:
            found[key] = label
    return found


# --- checking against the cases and the rubric ------------------------------------------------


def label_fields(
    rubric: Rubric, case: Case, only: Collection[str] | None = None
) -> tuple[Metric, ...]:
    """What a labeller gives for `case`: the pass/fail verdict and each of the rubric's
    metrics; a rubric whose one metric already is the verdict (a criterion's ``pass``, a
    pairwise ``winner``) asks only for that. `only` keeps the fields it names (a
    pass/fail-only page: ``{"pass"}``), in the rubric's order."""
    metrics = rubric.metrics(case)
    fields: tuple[Metric, ...] = metrics
    if len(metrics) != 1 or metrics[0].level != "nominal":
        fields = (_PASS, *(m for m in metrics if m.name != "pass"))
    return fields if only is None else tuple(m for m in fields if m.name in only)


def check_only(rubric: Rubric, cases: Iterable[Case], only: Sequence[str]) -> tuple[str, ...]:
    """The label fields a page asks for, `only` checked against what the rubric asks of
    these cases: ``pass`` and/or any of its metrics. An unknown name is refused, naming the
    fields there are."""
    names = tuple(dict.fromkeys(name.strip() for name in only if name.strip()))
    known = list(dict.fromkeys(m.name for case in cases for m in label_fields(rubric, case)))
    unknown = [name for name in names if name not in known]
    if not names or unknown:
        what = f"{', '.join(unknown)} is not a label of {rubric.name}" if unknown else "empty"
        raise ConfigError(f"--only: {what} (it has {', '.join(known)})")
    return names


def _allowed(value: Any, metric: Metric) -> bool:
    # bool is an int in Python: True must not pass for a score of 1, nor 1 for true.
    return any(type(value) is type(v) and value == v for v in metric.values)


def check_label(values: Mapping[str, Any], fields: Sequence[Metric]) -> str | None:
    """Why `values` is not a label the rubric allows, or None."""
    by_name = {m.name: m for m in fields}
    for key, value in values.items():
        if key == "verdict" and "pass" in by_name:
            if value not in ("PASS", "FAIL"):
                return f"labels.verdict: {value!r} is not PASS or FAIL"
            continue
        metric = by_name.get(key)
        if metric is None:
            known = ", ".join(by_name)
            return f"labels.{key}: not a label of this rubric (it has {known})"
        if not _allowed(value, metric):
            scale = ", ".join(json.dumps(v) for v in metric.values)
            return f"labels.{key}: {json.dumps(value)} is not on the rubric's scale ({scale})"
    return None


def validate_labels(
    labels: Sequence[Label], cases: Mapping[str, Case], rubric: Rubric, source: str | Path
) -> tuple[list[Label], list[str]]:
    """(labels to use, warnings). A label of an unknown case or a value off the rubric's
    scale is refused with its line (every bad line listed); a label whose case changed
    since (`case_hash`) is left out with a warning, never silently reused."""
    problems: list[str] = []
    usable: list[Label] = []
    warnings: list[str] = []
    for label in labels:
        where = f"{source}:{label.line}"
        case = cases.get(label.case_id)
        if case is None:
            problems.append(f"{where}: case_id: no case with the ID {label.case_id!r}")
            continue
        if label.labels is not None:
            problem = check_label(label.labels, label_fields(rubric, case))
            if problem is not None:
                problems.append(f"{where}: {problem}")
                continue
        usable.append(label)
    if problems:
        raise LabelsFileError(problems)
    kept: list[Label] = []
    for label in current_labels(usable).values():
        if label.case_hash is not None and label.case_hash != case_hash(cases[label.case_id]):
            warnings.append(
                f"{source}:{label.line}: case {label.case_id} changed since {label.labeller} "
                "labelled it; the label is not used (label it again)"
            )
            continue
        kept.append(label)
    return kept, warnings


# --- writing ---------------------------------------------------------------------------------


class LabelWriter:
    """The one writer of a labels file: each label is one ``write`` on an ``O_APPEND``
    descriptor, flushed to disk at once (labels come at a person's pace, and each one cost
    them thought)."""

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
        if not lock_at_once(fd):
            os.close(fd)
            raise LabelsLockedError(self.path)
        self._fd = fd
        if can_lock():  # only once the file is ours (unlocked elsewhere, as run directories)
            _cut_torn_tail(self.path)

    def append(self, label: Label) -> None:
        line = json.dumps(label.record(), ensure_ascii=False) + "\n"
        os.write(self._fd, line.encode())
        os.fsync(self._fd)

    def close(self) -> None:
        if self._fd >= 0:
            os.close(self._fd)
            self._fd = -1

    def __enter__(self) -> LabelWriter:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _cut_torn_tail(path: Path) -> None:
    """A last line without its newline is a write the machine did not finish: cut it off
    before appending, or the next label would be glued to it."""
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        return
    if data and not data.endswith(b"\n"):
        with path.open("r+b") as handle:
            handle.truncate(data.rfind(b"\n") + 1)


# --- using labels ------------------------------------------------------------------------------


def load_labels(
    paths: Sequence[str | Path], cases: Mapping[str, Case], rubric: Rubric
) -> tuple[dict[str, dict[str, dict[str, Any]]], list[str]]:
    """Every labels file read and checked (`validate_labels`): (case ID -> labeller -> their
    labels in force, with ``verdict`` read as ``pass``; warnings). Files are read in order, so
    a labeller found in two files keeps the later file's label."""
    found: dict[str, dict[str, dict[str, Any]]] = {}
    warnings: list[str] = []
    for path in paths:
        kept, said = validate_labels(read_labels(path), cases, rubric, path)
        warnings += said
        for label in kept:
            values = dict(label.labels or {})
            if "verdict" in values and "pass" not in values:
                values["pass"] = values.pop("verdict") == "PASS"
            found.setdefault(label.case_id, {})[label.labeller] = values
    return found, warnings


def majority_labels(
    labels: Mapping[str, Mapping[str, Mapping[str, Any]]],
) -> tuple[dict[str, dict[str, Any]], list[str]]:
    """(case ID -> key -> the labellers' most common value; "case · key" where they tied).
    A tie is no label: choosing one would decide what the jury is measured against."""
    merged: dict[str, dict[str, Any]] = {}
    ties: list[str] = []
    for case_id, by in labels.items():
        keys = dict.fromkeys(key for given in by.values() for key in given)
        for key in keys:
            counts = Counter(json.dumps(given[key]) for given in by.values() if key in given)
            ranked = counts.most_common()
            if len(ranked) > 1 and ranked[0][1] == ranked[1][1]:
                ties.append(f"{case_id} · {key}")
                continue
            merged.setdefault(case_id, {})[key] = json.loads(ranked[0][0])
    return merged, ties


def with_file_labels(
    cases: Sequence[Case], paths: Sequence[str | Path], rubric: Rubric
) -> tuple[list[Case], list[str]]:
    """The cases with the labels files' labels (the labellers' majority) over their own
    ``labels``, key by key; and the warnings (stale labels, ties)."""
    found, warnings = load_labels(paths, {case.id: case for case in cases}, rubric)
    merged, ties = majority_labels(found)
    warnings += [f"the labellers tied on {tie}: no label there" for tie in ties]
    labelled = [
        case.model_copy(update={"labels": {**case.labels, **merged[case.id]}})
        if case.id in merged
        else case
        for case in cases
    ]
    return labelled, warnings
