"""Scores from elsewhere: a table of ratings (CSV, TSV or JSONL) read as `Ratings`, so that
`jury agreement FILE` (and `read_scores` in code) gives on other tools' or people's ratings
what it gives on a run.

Two layouts, found from the header (or named):

- **wide**: one row per item, its first column (or `item`) the item's ID, one column per
  rater; Krippendorff's reliability-data matrix turned so that units are rows;
- **long**: one row per rating, with an item, a rater and a score column (``item``,
  ``rater``, ``score`` by default, or named with `item`, `rater`, `score`).

A cell that is empty, ``NA``, ``N/A``, ``*`` or ``.`` is a missing rating (Krippendorff writes
``*``), never a zero. A score that reads as a number is a number (``4`` and ``4.0`` are one
value); any other text is a category at the nominal level. The level of measurement is the
caller's to say (nominal by default): a table does not know whether its 1-5 is ordinal. At an
ordinal level a text cell among numbers (a judge's unparsed "garbage") has no place on the
scale, and at an interval or ratio level no text has a distance: each is an error naming its
line and value, never a new top or bottom point, nor silently missing (write ``NA`` for that).
"""

from __future__ import annotations

import csv
import io
import json
import math
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any, Literal

from .._errors import CaseFileError
from .._problems import LineError
from .._verdict import CaseVerdict, Level, Metric, Score, Verdict, Vote, VoteStatus
from ._ratings import Ratings
from ._values import _is_number, _key

__all__ = ["MISSING", "as_verdicts", "is_score_table", "metric_of", "read_scores"]

Layout = Literal["auto", "wide", "long"]

#: Cells that mean "no rating".
MISSING = frozenset({"", "na", "n/a", "nan", "*", ".", "null", "none"})
_LONG = ("item", "rater", "score")


def is_score_table(path: str | Path) -> bool:
    """Whether `path` is a table of scores rather than a run (a run directory, or the
    ``verdicts.jsonl`` a run writes)."""
    found = Path(path)
    if found.is_dir() or found.name == "verdicts.jsonl":
        return False
    if found.suffix.lower() in (".csv", ".tsv"):
        return True
    if found.suffix.lower() in (".jsonl", ".ndjson") and found.is_file():
        with open(found, encoding="utf-8") as handle:
            first = next((line for line in handle if line.strip()), "")
        try:
            record = json.loads(first)
        except ValueError:
            return True  # not a verdict: the table reader names the bad line
        return not (isinstance(record, dict) and "case_id" in record and "votes" in record)
    return False


def _cell(text: Any) -> Score | None:
    """A cell's rating: None when missing, a number when it reads as one, else the text."""
    if text is None:
        return None
    if isinstance(text, bool):
        return text
    if isinstance(text, int | float):
        return None if math.isnan(text) else text  # NaN is missing
    value = str(text).strip()
    if value.lower() in MISSING:
        return None
    try:
        number = float(value)
    except ValueError:
        return value
    return int(number) if number.is_integer() else number


def _records(path: Path) -> tuple[list[str], Iterator[tuple[int, dict[str, Any]]]]:
    """The header and the rows of a CSV, TSV or JSONL table, each with its line number."""
    text = path.read_text(encoding="utf-8-sig")
    if path.suffix.lower() in (".jsonl", ".ndjson"):
        rows: list[tuple[int, dict[str, Any]]] = []
        header: dict[str, None] = {}
        problems = []
        for number, line in enumerate(text.splitlines(), start=1):
            if not line.strip():
                continue
            try:
                record = json.loads(line)
            except json.JSONDecodeError as exc:
                problems.append(LineError(number, "", f"not JSON: {exc.msg}"))
                continue
            if not isinstance(record, dict):
                problems.append(LineError(number, "", "not a JSON object"))
                continue
            header.update(dict.fromkeys(record))
            rows.append((number, record))
        if problems:
            raise CaseFileError(str(path), problems)
        return list(header), iter(rows)
    dialect = "excel-tab" if path.suffix.lower() == ".tsv" else "excel"
    reader = csv.DictReader(io.StringIO(text), dialect=dialect)
    fields = [name.strip() for name in reader.fieldnames or ()]
    reader.fieldnames = fields
    return fields, ((reader.line_num, row) for row in reader)


def read_scores(
    path: str | Path,
    *,
    level: Level = "nominal",
    layout: Layout = "auto",
    item: str | None = None,
    rater: str | None = None,
    score: str | None = None,
    values: Sequence[Score] = (),
) -> Ratings:
    """The ratings of a CSV, TSV or JSONL table (see the module's text). `values` declares
    the scale, worst to best, when it holds values nobody used. Every bad line is named
    (`jury.CaseFileError`: a rater who rated an item twice with two scores, a row without an
    item, a file that is not a table)."""
    path = Path(path)
    header, rows = _records(path)
    columns = (item or "item", rater or "rater", score or "score")
    long = layout == "long" or (layout == "auto" and all(c in header for c in columns))
    if long:
        missing = [c for c in columns if c not in header]
        if missing:
            needed = "no such column (the long layout needs it)"
            raise CaseFileError(str(path), [LineError(1, c, needed) for c in missing])
        return _long(path, rows, columns, level, values)
    if not header:
        raise CaseFileError(str(path), [LineError(1, "", "no header: a table needs one")])
    key = item or header[0]
    if key not in header:
        raise CaseFileError(str(path), [LineError(1, key, "no such column")])
    raters = [name for name in header if name != key]
    if not raters:
        raise CaseFileError(str(path), [LineError(1, "", "no rater column besides the item's")])
    units: list[str] = []
    table: list[list[Score | None]] = []
    problems: list[LineError] = []
    seen: list[tuple[int, str, Score]] = []
    for number, row in rows:
        unit = _cell(row.get(key))
        if unit is None:
            problems.append(LineError(number, key, "no item ID"))
            continue
        if str(unit) in units:
            problems.append(LineError(number, key, f"item {unit!r} given twice"))
            continue
        units.append(str(unit))
        table.append([_cell(row.get(name)) for name in raters])
        seen.extend(
            (number, name, v) for name, v in zip(raters, table[-1], strict=True) if v is not None
        )
    problems.extend(_unplaced(seen, level, values))
    if problems:
        raise CaseFileError(str(path), problems)
    return _ratings(path, table, units, raters, level, values)


def _unplaced(
    seen: Sequence[tuple[int, str, Score]], level: Level, declared: Sequence[Score]
) -> list[LineError]:
    """Each rating that the level or the declared scale cannot place, at its line.

    `Ratings` checks the same rules on the whole table, but knows no lines: its error was
    reported at line 1 (the header) while the bad value stood on line 116. So each rule on a
    single value is checked here, where the value's line is known."""
    numbers = any(_is_number(v) for _, _, v in seen)
    known = {_key(v) for v in declared}
    problems = []
    for number, column, value in seen:
        reason = _misplaced(value, level, declared, known, numbers=numbers)
        if reason:
            problems.append(LineError(number, column, reason))
    return problems


def _misplaced(
    value: Score,
    level: Level,
    declared: Sequence[Score],
    known: set[tuple[str, Any]],
    *,
    numbers: bool,
) -> str | None:
    """Why `value` has no place (None when it has one).

    Without a declared scale, an ordinal level orders numbers by size, and a text value among
    them has no known rank: sorting it after the numbers made a judge's "garbage" the top
    point (alpha 0.300 where the numbers alone disagree otherwise). A declared scale places
    its own values; whether those suit the level is the declaration's fault, not a line's."""
    if _is_number(value) and math.isinf(float(value)):
        return f"{value!r} is not a finite rating (no distance to it is finite)"
    if declared:
        if _key(value) in known:
            return None
        scale = ", ".join(repr(v) for v in declared[:6]) + (", ..." if len(declared) > 6 else "")
        return f"{value!r} is not on the declared {level} scale ({scale})"
    if level == "nominal":
        return None
    if not _is_number(value):
        if level == "ordinal" and not numbers:
            return None  # text alone: its order is the caller's declaration
        scale = (
            "ordinal scale of numbers" if level == "ordinal" else f"{level} level (numbers only)"
        )
        return f"{value!r} is text: it has no place on the {scale} (NA marks a missing rating)"
    if level == "ratio" and float(value) < 0:
        return f"{value!r} is below zero: the ratio level needs values >= 0 (a true zero)"
    return None


def _long(
    path: Path,
    rows: Iterator[tuple[int, dict[str, Any]]],
    columns: tuple[str, str, str],
    level: Level,
    values: Sequence[Score],
) -> Ratings:
    key, who, what = columns
    cells: dict[str, dict[str, Score]] = {}
    raters: dict[str, None] = {}
    problems: list[LineError] = []
    seen: list[tuple[int, str, Score]] = []
    for number, row in rows:
        unit, name, value = _cell(row.get(key)), _cell(row.get(who)), _cell(row.get(what))
        if unit is None or name is None:
            problems.append(LineError(number, key if unit is None else who, "missing"))
            continue
        raters[str(name)] = None
        given = cells.setdefault(str(unit), {})
        if value is None:
            continue
        seen.append((number, what, value))
        if str(name) in given and given[str(name)] != value:
            problems.append(
                LineError(
                    number, what, f"{name} rated {unit} twice, {given[str(name)]!r} and {value!r}"
                )
            )
            continue
        given[str(name)] = value
    problems.extend(_unplaced(seen, level, values))
    if problems:
        raise CaseFileError(str(path), problems)
    names = list(raters)
    table = [[row.get(name) for name in names] for row in cells.values()]
    return _ratings(path, table, list(cells), names, level, values)


def _ratings(
    path: Path,
    table: list[list[Score | None]],
    units: list[str],
    raters: list[str],
    level: Level,
    values: Sequence[Score],
) -> Ratings:
    try:
        return Ratings.from_rows(
            table, level=level, values=values, raters=raters, units=units, name=path.stem
        )
    except ValueError as exc:
        raise CaseFileError(str(path), [LineError(1, "", str(exc))]) from None


def metric_of(ratings: Ratings) -> Metric:
    """The one metric a table of scores rates, at the level it was read at."""
    values = ratings.values if ratings.declared else ()
    return Metric(name=ratings.name or "score", level=ratings.level, values=values)


def as_verdicts(ratings: Ratings) -> list[CaseVerdict]:
    """The table as a run's verdicts would hold it (each rater a juror, each rating a valid
    vote on the table's one metric, no verdict of its own), so that agreement on it is
    measured and reported as on a run."""
    name = metric_of(ratings).name
    return [
        CaseVerdict(
            case_id=unit,
            verdict=Verdict.INCONCLUSIVE,
            reasons=("scores from a table: no verdict",),
            votes=tuple(
                Vote(
                    juror=rater,
                    status=VoteStatus.VALID,
                    scores={name: ratings.values[code]},
                )
                for rater, code in zip(ratings.raters, ratings.codes[row], strict=True)
                if code >= 0
            ),
        )
        for row, unit in enumerate(ratings.units)
    ]
