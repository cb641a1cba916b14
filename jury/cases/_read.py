"""Reading a cases file, whatever its format, as numbered records (plain mappings).

Every reader yields ``(number, record)``, or ``(number, LineError)`` for a record it cannot
read, and goes on to the next one, so that every bad line of a file is reported at once. A
problem with the file as a whole (it is not JSON at all, not a table, not Parquet) is raised.
Nothing here knows what a case is: `_source` turns records into cases.

Strictness is the point: a key given twice in one object is an error (JSON with jiter, YAML
with ruamel.yaml; Python's json and PyYAML keep the last silently), bytes that are not UTF-8
name their line and column, nesting too deep is an error rather than a RecursionError, and
NaN is not a number JSON has.
"""

from __future__ import annotations

import ast
import csv
import io
import re
from collections.abc import Callable, Iterator, Mapping
from functools import partial
from pathlib import Path
from typing import IO, Any

import jiter

from .._errors import CaseFileError, ConfigError
from .._problems import LineError, spellings, utf8_problem
from ._case import Case
from ._documents import items
from ._promptfoo import mark_shared

__all__ = ["FORMATS", "UNITS", "Item", "Opener", "format_of", "read", "sniff", "table_keys"]

Opener = Callable[[], IO[bytes]]
Item = tuple[int, "dict[str, Any] | LineError"]

#: What a record's number counts, by format.
UNITS = {
    "jsonl": "line",
    "json": "item",
    "csv": "line",
    "tsv": "line",
    "yaml": "item",
    "parquet": "row",
    "dataset": "row",
}
FORMATS = ("jsonl", "json", "csv", "tsv", "yaml", "parquet")
_EXTENSIONS = {
    ".jsonl": "jsonl",
    ".ndjson": "jsonl",
    ".jsonlines": "jsonl",
    ".json": "json",
    ".csv": "csv",
    ".tsv": "tsv",
    ".tab": "tsv",
    ".yaml": "yaml",
    ".yml": "yaml",
    ".parquet": "parquet",
    ".pq": "parquet",
}
_NAMES = {
    "jsonl": "JSONL",
    "json": "JSON",
    "csv": "CSV",
    "tsv": "TSV",
    "yaml": "YAML",
    "parquet": "Parquet",
}
_BOM = b"\xef\xbb\xbf"
_POSITION = re.compile(r"^(.*) at line (\d+) column (\d+)$")
# Case fields that hold text: a table cell for one of them is the text as it is, even when it
# starts with "[" ("[URGENT] where is my order?").
_TEXT_FIELDS = {"id", "category", "question", "answer", "answer_b", "golden_answer"}
_TEXT_FIELDS |= {"expected_behaviour", "expected_tool", "expected_source"}
_TEXT_COLUMNS = {s for s, f in spellings(Case).items() if f in _TEXT_FIELDS} | {"trace.answer"}


def format_of(name: str, head: bytes) -> str:
    """The format a file's name says, else the one its first bytes look like (JSONL at worst)."""
    for extension, found in _EXTENSIONS.items():
        if name.lower().endswith(extension):
            return found
    return sniff(head) or "jsonl"


def sniff(head: bytes) -> str | None:
    """The format the first bytes of a file look like, when they look like one."""
    if head.startswith(b"PAR1"):
        return "parquet"
    text = head.removeprefix(_BOM).lstrip()
    if text[:1] == b"#":
        # A comment: JSON and JSON Lines have none, and every promptfoo configuration starts
        # with one (# yaml-language-server: $schema=...).
        return "yaml"
    first, newline, _ = text.partition(b"\n")
    if text[:1] == b"[":
        return "json"
    if text[:1] == b"{":
        if not newline:
            return "jsonl"  # the first line is all we have: it cannot tell
        try:
            jiter.from_json(first)
        except ValueError:
            return "json"  # an object over several lines
        return "jsonl"
    if b"\t" in first:
        return "tsv"
    if re.match(rb"^(?:[\w\"'-][^:,\t]*:(?:\s|$)|- |---)", first):
        return "yaml"
    if b"," in first:
        return "csv"
    return None


def _hint(opener: Opener, fmt: str) -> str:
    """`` (the file looks like CSV: ...)`` when its content is of another format than `fmt`."""
    with opener() as handle:
        head = handle.read(1 << 20)
    found = sniff(head)
    if {found, fmt} <= {"json", "jsonl"}:
        # Said only when the whole file reads as the other one: a broken line is no format.
        found = "json" if fmt == "jsonl" else "jsonl"
        lines = head.splitlines() if found == "jsonl" else [head]
        try:
            for line in lines:
                if line.strip():
                    parse_json(line)
        except ValueError:
            return ""
    if found is None or found == fmt:
        return ""
    return f" (the file looks like {_NAMES[found]}: name it .{found} or pass --format {found})"


def json_problem(raw: bytes, message: str) -> tuple[int, str]:
    """jiter's error on `raw` as (line, reason in the project's words)."""
    try:
        raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        return utf8_problem(raw, exc)
    found = _POSITION.match(message)
    if found is None:
        return 1, f"not valid JSON: {message}"
    what, line, column = found.group(1), int(found.group(2)), int(found.group(3))
    where = f"at column {column}"
    if what.startswith("Detected duplicate key"):
        key = what.partition('"')[2].rpartition('"')[0]
        return line, f'the key "{key}" is given twice in one object ({where})'
    if what.startswith("recursion limit"):
        return line, f"nested too deeply ({where})"
    if "surrogate" in what or "unicode" in what or "hex escape" in what:
        return line, f"not valid JSON: a \\u escape that is no character ({where})"
    start = sum(len(x) + 1 for x in raw.split(b"\n")[: line - 1]) + column - 1
    if re.match(rb"-?(?:NaN|Infinity)", raw[start : start + 9]):
        return line, f"not valid JSON: NaN and Infinity are not JSON numbers ({where})"
    return line, f"not valid JSON: {what} ({where})"


#: JSON bytes parsed strictly (a key given twice, NaN refused). A `partial`, not a function
#: around the call: it runs for every record, and a Python call costs a tenth of one.
parse_json: Callable[[bytes], Any] = partial(
    jiter.from_json, allow_inf_nan=False, catch_duplicate_keys=True, cache_mode="keys"
)


def _kind(value: Any) -> str:
    kinds = {list: "a list", str: "text", bool: "true or false", type(None): "null"}
    return kinds.get(type(value), "a number" if isinstance(value, int | float) else "a value")


def read_jsonl(opener: Opener, name: str) -> Iterator[Item]:
    hinted = False  # whether the file looks like another format is said once, at the first
    with opener() as handle:
        for number, line in enumerate(handle, start=1):
            raw = line.removeprefix(_BOM) if number == 1 else line
            if raw.isspace() or not raw:  # blank, told without a stripped copy of each line
                continue
            try:
                value = parse_json(raw)
            except ValueError as exc:
                reason = json_problem(raw, str(exc))[1]
                if not hinted:
                    reason, hinted = reason + _hint(opener, "jsonl"), True
                yield number, LineError(number, "", reason)
                continue
            if not isinstance(value, dict):
                reason = f"a case must be a JSON object, not {_kind(value)}"
                yield number, LineError(number, "", reason)
            else:
                yield number, value


def _whole(opener: Opener, name: str) -> str:
    """A document's text; bytes that are not UTF-8 are a problem of the line they are on."""
    with opener() as handle:
        data = handle.read().removeprefix(_BOM)
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line, reason = utf8_problem(data, exc)
        raise CaseFileError(name, [LineError(line, "", reason)]) from None


def read_json(opener: Opener, name: str, root: str | None = None) -> Iterator[Item]:
    text = _whole(opener, name)
    if not text.strip():
        return
    raw = text.encode()
    try:
        document = parse_json(raw)
    except ValueError as exc:
        line, reason = json_problem(raw, str(exc))
        raise CaseFileError(name, [LineError(line, "", reason + _hint(opener, "json"))]) from None
    yield from items(
        document, name, "JSON", lambda: _hint(opener, "json"), _tests_loader(name), root
    )


def read_yaml(opener: Opener, name: str, root: str | None = None) -> Iterator[Item]:
    # ruamel.yaml rather than PyYAML: YAML 1.2 (an answer "no" stays text, not false), and a
    # key given twice is an error, as in the JavaScript parser promptfoo itself reads with.
    try:
        from ruamel.yaml import YAML
        from ruamel.yaml.error import MarkedYAMLError, YAMLError
    except ImportError:  # pragma: no cover - a dependency of aiojury
        raise ConfigError(f"{name}: reading YAML needs ruamel.yaml") from None
    text = _whole(opener, name)
    if not text.strip():
        return
    try:
        document = YAML(typ="safe").load(text)  # the C parser when ruamel.yaml.clib is there
    except MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        line = mark.line + 1 if mark is not None else 1
        problem = exc.problem or exc.context or "unreadable"
        raise CaseFileError(name, [LineError(line, "", f"not valid YAML: {problem}")]) from None
    except YAMLError as exc:
        raise CaseFileError(name, [LineError(1, "", f"not valid YAML: {exc}")]) from None
    except RecursionError:
        raise CaseFileError(name, [LineError(1, "", "not valid YAML: nested too deeply")]) from None
    yield from items(
        document, name, "YAML", lambda: _hint(opener, "yaml"), _tests_loader(name), root
    )


def _tests_loader(name: str) -> Callable[[str], list[Any]]:
    """Reads a file a promptfoo configuration's ``tests: file://...`` names, relative to the
    configuration (promptfoo resolves it so), in any format this module reads."""
    base = Path(name).parent if not name.startswith("<") else Path.cwd()

    def load(path: str) -> list[Any]:
        target = base / path
        if any(mark in path for mark in "*?["):
            raise ConfigError(f"{name}: tests: {path}: a glob; name each file of tests")
        if not target.is_file():
            raise ConfigError(f"{name}: tests: file://{path}: no such file ({target})")

        def opener() -> IO[bytes]:
            return open(target, "rb")

        with opener() as handle:
            head = handle.read(1 << 16)
        records: list[Any] = []
        bad: list[LineError] = []
        for _, item in read(format_of(str(target), head), opener, str(target)):
            if isinstance(item, LineError):
                bad.append(item)
            else:
                records.append(item)
        if bad:
            raise CaseFileError(str(target), bad)
        return records

    return load


def read_table(opener: Opener, name: str, delimiter: str) -> Iterator[Item]:
    """CSV or TSV: a header row names the columns (dotted names nest: ``trace.answer``)."""
    undecodable: dict[int, str] = {}

    def lines() -> Iterator[str]:
        with opener() as handle:
            for number, line in enumerate(handle, start=1):
                raw = line.removeprefix(_BOM) if number == 1 else line
                try:
                    yield raw.decode("utf-8")
                except UnicodeDecodeError as exc:
                    undecodable[number] = utf8_problem(raw, exc)[1]
                    yield raw.decode("utf-8", "replace")

    kind = "TSV" if delimiter == "\t" else "CSV"
    reader = csv.reader(lines(), delimiter=delimiter)
    columns: list[list[str]] | None = None
    held: list[Item] | None = None  # a promptfoo CSV's rows, until its descriptions are known
    start = 1
    while True:
        try:
            cells = next(reader)
        except StopIteration:
            if held is not None:
                mark_shared([row for _, row in held])
                yield from held
            return
        except csv.Error as exc:
            yield start, LineError(start, "", f"not valid {kind}: {exc}")
            start = reader.line_num + 1
            continue
        number, start = start, reader.line_num + 1
        bad = [undecodable[n] for n in range(number, start) if n in undecodable]
        if columns is None:
            if bad:
                raise CaseFileError(name, [LineError(number, "", bad[0])])
            columns = _header(cells, name, number)
            # Whether a description is an ID depends on the other rows' (`mark_shared`).
            held = [] if ["__description"] in columns else None
            continue
        item: Item | None = (number, LineError(number, "", bad[0])) if bad else None
        if item is None and any(cell.strip() for cell in cells):
            item = number, _row(columns, cells, number)
        if item is not None and held is not None:
            held.append(item)
        elif item is not None:
            yield item


def table_keys(head: bytes, delimiter: str) -> list[str] | None:
    """The top-level keys a table's rows can have (its header's columns, a dotted name by its
    first part), read from the file's first bytes; None when they do not hold the whole
    header row or it is not readable (then nothing is known of the rows' keys)."""
    # Lines split at b"\n" only, as `read_table` reads them (str.splitlines also splits at
    # \x0c, U+2028 ..., which a header cell may hold).
    text = (line.decode("utf-8", "replace") for line in io.BytesIO(head.removeprefix(_BOM)))
    rows = csv.reader(text, delimiter=delimiter)
    try:
        header = next(rows)
        whole = len(head) < 1 << 16 or next(rows, None) is not None
    except (csv.Error, StopIteration):
        return None
    return [cell.strip().split(".")[0] for cell in header] if whole else None


def _header(cells: list[str], name: str, number: int) -> list[list[str]]:
    names = [cell.strip() for cell in cells]
    if names and names[0].startswith(("{", "[")):
        # JSON read as a table (`--format csv` on JSONL): every line would be a problem.
        said = (
            "a JSON value where the header row should be: is the file JSON Lines? (--format jsonl)"
        )
        raise CaseFileError(name, [LineError(number, "header", said)])
    problems = []
    for index, column in enumerate(names):
        if names.index(column) != index:
            problems.append(f"the column {column!r} appears twice")
        elif any(other.startswith(f"{column}.") for other in names):
            problems.append(f"the column {column!r} is also the table of another column")
    if problems:
        raise CaseFileError(name, [LineError(number, "header", p) for p in problems])
    return [column.split(".") if column else [] for column in names]


def _row(columns: list[list[str]], cells: list[str], number: int) -> dict[str, Any] | LineError:
    if len(cells) > len(columns):
        reason = f"{len(cells)} cells, but the header names {len(columns)} columns"
        return LineError(number, "", reason)
    record: dict[str, Any] = {}
    for path, cell in zip(columns, cells, strict=False):
        if cell == "":  # an empty cell leaves the field out
            continue
        if not path:
            return LineError(number, "", "a cell under a column without a name")
        container = record
        for part in path[:-1]:
            container = container.setdefault(part, {})
        container[path[-1]] = _cell(".".join(path), cell)
    return record


def _cell(column: str, cell: str) -> Any:
    """A table cell's value: JSON for a structured field (a list, an object), else the text.

    A list or a table may also be written as Python writes one (``['a', 'b']``,
    ``{'k': 'v'}``), as pandas stores list columns in CSV and RAGAS's ``to_csv`` its cells.
    """
    text = cell.strip()
    if column in _TEXT_COLUMNS or text[:1] not in ("{", "["):
        return cell
    try:
        return parse_json(text.encode())
    except ValueError:
        pass
    try:
        value = ast.literal_eval(text)
    except (ValueError, SyntaxError, MemoryError, RecursionError):
        return cell
    # A set (``{1, 2}``) or a table keyed by numbers is no JSON value: the text is kept.
    if isinstance(value, list) or (
        isinstance(value, dict) and all(isinstance(key, str) for key in value)
    ):
        return value
    return cell


def without_nulls(value: Any) -> Any:
    """A table's record with null cells left out, as an empty CSV cell is (in a table, null
    means "not given": the column exists for other rows)."""
    if isinstance(value, Mapping):
        return {k: without_nulls(v) for k, v in value.items() if v is not None}
    if isinstance(value, list):
        return [without_nulls(v) for v in value]
    return value


def read_parquet(opener: Opener, name: str) -> Iterator[Item]:
    try:
        import pyarrow as pa
        import pyarrow.parquet as pq
    except ImportError:
        raise ConfigError(
            f"{name}: reading Parquet needs pyarrow: pip install 'aiojury[parquet]'"
        ) from None
    number = 0
    with opener() as handle:
        try:
            for batch in pq.ParquetFile(handle).iter_batches(batch_size=512):
                for record in batch.to_pylist():
                    number += 1
                    yield number, without_nulls(record)
        except (pa.ArrowException, OSError) as exc:
            raise ConfigError(f"{name}: not a Parquet file that can be read: {exc}") from None


def read(fmt: str, opener: Opener, name: str, root: str | None = None) -> Iterator[Item]:
    """The records of a file in format `fmt`; `root`, a dotted path to the list of cases
    inside a JSON or YAML document (``--root samples``)."""
    if root and fmt not in ("json", "yaml"):
        raise ConfigError(f"{name}: --root {root}: only a JSON or YAML document has a root")
    if fmt == "jsonl":
        return read_jsonl(opener, name)
    if fmt == "json":
        return read_json(opener, name, root)
    if fmt == "yaml":
        return read_yaml(opener, name, root)
    if fmt in ("csv", "tsv"):
        return read_table(opener, name, "\t" if fmt == "tsv" else ",")
    if fmt == "parquet":
        return read_parquet(opener, name)
    raise ConfigError(f"unknown format {fmt!r}; one of {', '.join(FORMATS)}")
