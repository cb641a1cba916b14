"""A source of cases: a file in any format, standard input, a Hugging Face dataset or a
dataset object, read record by record into validated cases.

A record goes through three steps: the field map (``[fields]``, ``--map``) moves values to
the case's fields, a recognised shape (`_shapes`) is read as a case's fields, and the case is
validated. A case without an ID gets one from its content, so that it is the same in every
format and in every run. Every problem of every record is collected, so that a file is
refused as a whole with every bad line named, never run with some lines missing.
"""

from __future__ import annotations

import hashlib
import json
import re
import shutil
import sys
import tempfile
from collections import Counter
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from typing import IO, Any

from pydantic import ValidationError

from .._errors import CaseFileError, ConfigError
from .._logging import Events
from .._problems import LineError, problems, spellings
from ._case import Case
from ._fields import FieldMap, field_map_problems, paths
from ._mt_bench import MT_BENCH_ANSWERS, Questions
from ._otlp_lines import joined_traces
from ._promptfoo import is_column
from ._read import FORMATS, UNITS, Item, format_of, read, sniff, table_keys, without_nulls
from ._shape_base import KEPT, UNAPPLIED
from ._shapes import SHAPE_KEYS, recognise
from ._source_notes import Told
from ._trace_formats import split_traces
from ._unseen import collect, restore

__all__ = ["CaseSource", "content_id"]

_ID_SPELLINGS = frozenset(k for k, field in spellings(Case).items() if field == "id")
#: A case's conversation, the one field of its own whose reading can meet a part the judges
#: cannot see (an image, audio: `_turns`).
_TURN_SPELLINGS = frozenset(k for k, field in spellings(Case).items() if field == "turns")
_UNKNOWN_HINT = " (put extra data under metadata, or say where it goes with --map or [fields])"
_HF = re.compile(r"hf://(?P<path>[^:\s]+?)(?::(?P<split>\S+))?")
_events = Events()


def content_id(case: Case) -> str:
    """An ID from what a case says (not how its file spelled it): the same case gets the same
    ID from JSONL, CSV or Parquet, and in every run."""
    data = case.model_dump(mode="json", exclude_defaults=True, exclude={"id"})
    if case.expects_no_tool:  # an explicit null, which the defaults hide
        data["expected_tool"] = None
    text = json.dumps(data, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    return "case-" + hashlib.sha256(text.encode()).hexdigest()[:12]


def _is_dataset(source: object) -> bool:
    return type(source).__module__.split(".")[0] == "datasets"


def _dataset_records(dataset: Any) -> Iterator[Item]:
    for number, record in enumerate(dataset, start=1):
        yield number, without_nulls(record)


def _load_hf(spec: str) -> Any:
    """``hf://owner/name[/config][:split]`` loaded with the `datasets` package."""
    found = _HF.fullmatch(spec)
    if found is None:
        raise ConfigError(f"{spec}: expected hf://owner/name, hf://owner/name:split")
    path, split = found.group("path"), found.group("split")
    parts = path.split("/")
    config = parts.pop() if len(parts) == 3 else None
    try:
        import datasets
    except ImportError:
        raise ConfigError(
            f"{spec}: reading a Hugging Face dataset needs the datasets package: "
            "pip install 'aiojury[datasets]'"
        ) from None
    bars = datasets.is_progress_bar_enabled()
    datasets.disable_progress_bars()  # a library prints nothing
    try:
        loaded = datasets.load_dataset("/".join(parts), name=config, split=split)
    except (OSError, ValueError) as exc:
        raise ConfigError(f"{spec}: cannot load the dataset: {exc}") from None
    finally:
        if bars:
            datasets.enable_progress_bars()
    if isinstance(loaded, Mapping):
        if len(loaded) != 1:
            splits = ", ".join(loaded)
            raise ConfigError(
                f"{spec}: name a split, such as {spec}:{next(iter(loaded))} ({splits})"
            )
        loaded = next(iter(loaded.values()))
    return loaded


def _plain_table(head: bytes, fmt: str) -> bool:
    """Whether a table's header (in `head`) is known to name no promptfoo test CSV column."""
    keys = table_keys(head, "\t" if fmt == "tsv" else ",")
    return keys is not None and not any(is_column(key) for key in keys)


def _collected(
    read_case: Callable[[int, dict[str, Any], FieldMap | None], Case | _Read],
    number: int,
    record: dict[str, Any],
    mapped: FieldMap | None,
    unseen: list[str],
    as_is: tuple[bool, str, Path | None],
) -> list[Case | _Read]:
    """What a record gives, the parts its reading meets that judges cannot see (an image) kept
    in `unseen`. `as_is`: may it be validated as it is; its unit; its file's folder, if any."""
    token = collect(unseen, as_is[2])
    try:
        if as_is[0] and SHAPE_KEYS.isdisjoint(record) and not _ID_SPELLINGS.isdisjoint(record):
            try:
                return [Case.model_validate(record)]
            except ValidationError as exc:
                return [_Read(None, _problems(exc, number, as_is[1], {}))]
        # An OTLP export of several traces: a case each (told by its key first).
        if "resourceSpans" in record or "resource_spans" in record:
            return [read_case(number, part, mapped) for part in split_traces(record)]
        return [read_case(number, record, mapped)]
    finally:
        restore(token)


class CaseSource:
    """Cases from `source`: a path (JSONL, JSON, CSV, TSV, YAML, Parquet: by its extension,
    else by its content, or `format`), ``-`` (standard input), ``hf://owner/name[:split]``, or
    a ``datasets.Dataset``. `fields` maps case fields to paths in each record; `root` is
    the dotted path of the list of cases inside a JSON or YAML document.

    Iterate it as often as needed: each pass reads the source again (standard input is kept in
    a temporary file for the purpose). `validate` reads it all and raises `CaseFileError`
    listing every problem of every bad record; iterating raises at the first.
    """

    def __init__(
        self,
        source: Any,
        *,
        fields: Mapping[str, str] | None = None,
        format: str | None = None,
        root: str | None = None,
    ) -> None:
        self.fields = dict(fields or {})
        self.root = root
        bad_map = field_map_problems(self.fields)
        if bad_map:
            raise ConfigError(f"field map: {'; '.join(bad_map)}")
        #: Notes on how the cases were read (shapes recognised, IDs made from content).
        self.notices: list[str] = []
        #: What the cases' reading could not apply (a promptfoo assertion), for the reports.
        self.warnings: list[str] = []
        #: The number of cases, once `validate` has counted them.
        self.count = 0
        self._total = 0  # records read by the last pass
        self._kept: Counter[str] = Counter()
        self._unapplied: Counter[str] = Counter()
        self._unseen: dict[int, list[str]] = {}  # record number: kinds the judges cannot see
        self._spool: IO[bytes] | None = None
        self._dataset: Any = None
        head = b""
        if _is_dataset(source) or (isinstance(source, str) and source.startswith("hf://")):
            self._dataset = _load_hf(source) if isinstance(source, str) else source
            if isinstance(self._dataset, Mapping):
                raise ConfigError("a dataset of several splits: pass one, such as dataset['test']")
            self.name = source if isinstance(source, str) else "<dataset>"
            self.format = "dataset"
        else:
            stdin = str(source) == "-"
            self.name = "<stdin>" if stdin else str(source)
            self._path = self._stdin() if stdin else Path(source)
            head = self._head()
            if format is None:
                format = (sniff(head) or "jsonl") if stdin else format_of(self.name, head)
            if format not in FORMATS:
                raise ConfigError(f"unknown format {format!r}; one of {', '.join(FORMATS)}")
            self.format = format
        self.unit = UNITS[self.format]
        self._table = self.format in ("csv", "tsv")
        # Told once, from the first bytes read above: a table's rows in a case's own fields.
        self._plain = self._table and _plain_table(head, self.format)
        # An MT-Bench answer file's questions are in its folder's question.jsonl.
        folder = self._dataset is None and self.name != "<stdin>"
        self._questions = Questions(self._path if folder else None)

    def _stdin(self) -> Path:
        if sys.stdin is None or sys.stdin.isatty():
            raise ConfigError(
                "- reads cases from standard input, which is a terminal: pipe them in"
            )
        self._spool = tempfile.NamedTemporaryFile(prefix="jury-stdin-")  # noqa: SIM115
        shutil.copyfileobj(sys.stdin.buffer, self._spool)
        self._spool.flush()
        return Path(self._spool.name)

    def _open(self) -> IO[bytes]:
        try:
            return open(self._path, "rb")
        except OSError as exc:
            raise ConfigError(f"{self.name}: {exc.strerror or exc}") from None

    def _head(self) -> bytes:
        with self._open() as handle:
            return handle.read(1 << 16)

    def close(self) -> None:
        if self._spool is not None:
            self._spool.close()
            self._spool = None

    def records(self) -> Iterator[Item]:
        """The raw records, numbered (or the reason a record cannot be read)."""
        if self._dataset is not None:
            return _dataset_records(self._dataset)
        return read(self.format, self._open, self.name, self.root)

    def digest(self) -> str | None:
        """A hash of the source's content, to tell whether a resumed run has the same cases."""
        if self._dataset is not None:
            return getattr(self._dataset, "_fingerprint", None)
        digest = hashlib.sha256()
        with self._open() as handle:
            for block in iter(lambda: handle.read(1 << 20), b""):
                digest.update(block)
        return digest.hexdigest()

    # --- records to cases --------------------------------------------------------------------

    def _case(self, number: int, record: dict[str, Any], fields: FieldMap | None) -> Case | _Read:
        """What a record gives: the usual one (a case's own fields with an ID, nothing noted)
        its `Case` alone, any other a `_Read` (a `_Read` a record costs a tenth more)."""
        unit = self.unit
        found: list[LineError] = []
        if fields is not None:
            record, mapped = fields.apply(record)
            found += [LineError(number, key, reason, unit) for key, reason in mapped]
        try:
            renamed = fields.fields if fields is not None else None
            shape, data, origins = recognise(record, self._table, renamed)
            if shape == MT_BENCH_ANSWERS and "question" not in data:
                data = self._questions.join(data)
        except ValueError as exc:
            return _Read(None, [*found, LineError(number, "", str(exc), unit)])
        kept = origins.pop(KEPT, None) if origins else None
        if origins and UNAPPLIED in origins:  # the record's types, one a line, one an assertion
            self._unapplied.update(origins.pop(UNAPPLIED).splitlines())
        made = data.keys().isdisjoint(_ID_SPELLINGS)
        try:
            case = Case.model_validate({**data, "id": "-"} if made else data)
        except ValidationError as exc:
            return _Read(None, found + _problems(exc, number, unit, origins), shape)
        if made:
            case = case.model_copy(update={"id": content_id(case)})
        elif not (found or shape or kept):
            return case
        return _Read(None if found else case, found, shape, made, kept)

    def _cases(self, errors: list[LineError] | None) -> Iterator[Case]:
        """The valid cases; problems go to `errors`, or are raised at the first bad record."""
        fields = FieldMap(self.fields)
        mapped = fields if fields else None  # told once, not by a Python call a record
        # A JSON record in a case's own fields, with an ID and no field map, is validated as
        # it is, told by two set operations: what `_case` does for it, without its calls (the
        # usual record; this runs for every one).
        # So is a table's row, when its header names no promptfoo column (told once, from the
        # header, rather than by a scan of every row's keys: a CSV row cost a tenth more).
        as_is = mapped is None and (not self._table or self._plain)
        unit = self.unit
        read_as = (as_is, unit, self._path.parent if self._questions.path else None)
        seen: dict[str, int] = {}
        shapes: Counter[str] = Counter()
        made: list[str] = []  # IDs made from content
        keys: set[str] = set()
        total = self._total = 0
        self._kept, self._unapplied = Counter(), Counter()
        self._unseen = {}
        unseen: list[str] = []
        for number, record in joined_traces(self.records()):
            results: list[Case | _Read]
            if isinstance(record, LineError):
                results = [_Read(None, [record])]
            else:
                if mapped is not None and len(keys) < 1000:
                    keys.update(paths(record))
                if (
                    as_is
                    and SHAPE_KEYS.isdisjoint(record)
                    and not _ID_SPELLINGS.isdisjoint(record)
                    and _TURN_SPELLINGS.isdisjoint(record)
                ):
                    # No conversation: its reading meets no part to collect, so it is done
                    # without the collector (whose four context variable calls were a tenth
                    # of the usual record's loading).
                    try:
                        results = [Case.model_validate(record)]
                    except ValidationError as exc:
                        results = [_Read(None, _problems(exc, number, unit, {}))]
                else:
                    results = _collected(self._case, number, record, mapped, unseen, read_as)
                    if unseen:
                        self._unseen[number] = unseen
                        unseen = []
            for result in results:
                total += 1
                self._total = total
                if isinstance(result, Case):
                    if seen.setdefault(result.id, number) == number:
                        yield result
                        continue
                    read = _Read(result, [])  # its duplicate ID is said by `_checked`
                else:
                    read = result
                case = _checked(read, number, self.unit, seen, (shapes, self._kept, made))
                if read.problems:
                    if errors is None:
                        raise CaseFileError(self.name, read.problems)
                    errors.extend(read.problems)
                elif case is not None:
                    yield case
        if errors is not None:
            unused = fields.unused(keys)
            if unused:
                raise ConfigError(f"{self.name}: field map: {'; '.join(unused)}")
            self._note(total, shapes, made)

    def _note(self, total: int, shapes: Counter[str], made: list[str]) -> None:
        questions = self._questions.path if self._questions.used else None
        told = Told(self.name, self.unit, total, shapes, self._kept, self._unapplied)
        self.notices, self.warnings = told.said(questions, self._unseen, made)
        for notice in [*self.notices, *self.warnings]:
            _events.info("cases_read", source=self.name, notice=notice)

    def validate(self, each: Callable[[Case], object] | None = None) -> int:
        """Read every record; the number of cases, or `CaseFileError` listing every problem.
        `each` is given every valid case as it is read, so that a caller that needs the cases
        once (`jury run` writing its run's ``cases.jsonl``) does not parse them again; what it
        was given is to be thrown away when this raises."""
        errors: list[LineError] = []
        count = 0
        for case in self._cases(errors):
            count += 1
            if each is not None:
                each(case)
        if errors:
            raise CaseFileError(self.name, errors, self._total)
        if not count:
            raise ConfigError(f"{self.name}: no cases (the file has no record)")
        self.count = count
        return count

    def load(self) -> list[Case]:
        """Every case, or `CaseFileError` listing every problem."""
        errors: list[LineError] = []
        cases = list(self._cases(errors))
        if errors:
            raise CaseFileError(self.name, errors, self._total)
        return cases

    def __iter__(self) -> Iterator[Case]:
        return self._cases(None)


def _checked(
    read: _Read,
    number: int,
    unit: str,
    seen: dict[str, int],
    tally: tuple[Counter[str], Counter[str], list[str]],
) -> Case | None:
    """The case a record gave, unless it has problems (or its ID was seen before, a problem
    added to the record's); `tally` counts its shape, its keys kept in metadata and its ID
    made from content. A function, not a generator: one a record cost a tenth more."""
    shapes, kept, made = tally
    if read.shape:
        shapes[read.shape] += 1
    if read.kept:
        kept[read.kept] += 1
    case = read.case
    if case is not None:
        first = seen.setdefault(case.id, number)
        if first != number:
            reason = (
                f"the same content as {unit} {first} (give the cases IDs)"
                if read.made
                else f"duplicate id {case.id!r} (first on {unit} {first})"
            )
            read.problems.append(LineError(number, "id", reason, unit))
            case = None
        elif read.made:
            made.append(case.id)
    return case


def _problems(
    exc: ValidationError, number: int, unit: str, origins: Mapping[str, str]
) -> list[LineError]:
    """A record's validation problems, each named by the record's own key."""
    found = []
    for problem in problems(exc, Case, unknown_key="unknown field",
                            unknown_hint=_UNKNOWN_HINT, typos=True):  # fmt: skip
        key, reason = _in_their_words(*problem, origins)
        found.append(LineError(number, key, reason, unit))
    return found


def _in_their_words(key: str, reason: str, origins: Mapping[str, str]) -> tuple[str, str]:
    """A problem of a field read from another key of the record (a shape's ``expected`` read
    as the golden answer) named by that key, the user's own, with the field it was read as."""
    head = re.split(r"[.\[]", key, maxsplit=1)[0]
    if head not in origins:
        return key, reason
    return origins[head] + key[len(head) :], f"{reason} (read as {head.replace('_', ' ')})"


class _Read:
    """What one record gave: its case (None when it has problems), the problems, the shape it
    was recognised as, and whether its ID was made from its content."""

    __slots__ = ("case", "kept", "made", "problems", "shape")

    def __init__(
        self,
        case: Case | None,
        problems: list[LineError],
        shape: str | None = None,
        made: bool = False,
        kept: str | None = None,
    ) -> None:
        self.case, self.problems, self.shape, self.made = case, problems, shape, made
        #: The record's keys kept in metadata (no case field takes them), for a notice.
        self.kept = kept
