"""What is wrong with a user's file, in the project's own words.

pydantic's errors are translated here, once, for every file a user writes (cases, jury files,
rubric files): each problem is a key path and a reason, an unknown key comes with the closest
known spelling ("did you mean"), and pydantic's own fragments ("Value error,", "Input should
be") never reach a message. TOML files are read here too, so that a file that is not UTF-8 or
nests too deeply is an error that names the file, not a traceback.
"""

from __future__ import annotations

import difflib
import json
import math
import re
import tomllib
import typing
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from pydantic import AliasChoices, BaseModel, ValidationError
from pydantic_core import ErrorDetails

__all__ = [
    "LineError",
    "key_path",
    "problems",
    "read_toml",
    "spellings",
    "suggest",
    "suggest_typo",
    "utf8_problem",
]

#: Parts of an error's location that name a branch of a union type, not a key the user wrote
#: (a model's class name, when the branch is a model, is matched separately).
_BRANCH = re.compile(
    r"^(?:str|int|float|bool|none|(?:dict|list|tuple|is-instance|json-or-python)\[.*\]|"
    r"(?:function|lax|strict)-.*)$"
)


def closest(word: str, choices: Iterable[str]) -> str | None:
    """The known spelling closest to `word`, if one is close."""
    by_lower: dict[str, str] = {}
    for choice in choices:
        by_lower.setdefault(choice.lower(), choice)
    close = difflib.get_close_matches(word.lower(), list(by_lower), n=1, cutoff=0.6)
    return by_lower[close[0]] if close else None


def suggest(word: str, choices: Iterable[str]) -> str:
    """`` (did you mean 'x'?)`` when a known spelling is close to `word`, else nothing."""
    found = closest(word, choices)
    return f" (did you mean {found!r}?)" if found else ""


def _distance(a: str, b: str) -> int:
    """Edits (a letter added, dropped, changed, or two swapped) from `a` to `b`: optimal
    string alignment, a dozen lines, not worth a compiled dependency for short names."""
    previous2: list[int] = []
    previous = list(range(len(b) + 1))
    for i, x in enumerate(a, start=1):
        row = [i] + [0] * len(b)
        for j, y in enumerate(b, start=1):
            row[j] = min(previous[j] + 1, row[j - 1] + 1, previous[j - 1] + (x != y))
            if i > 1 and j > 1 and x == b[j - 2] and a[i - 2] == y:
                row[j] = min(row[j], previous2[j - 2] + 1)
        previous2, previous = previous, row
    return previous[-1]


def _squashed(word: str) -> str:
    return word.lower().replace("_", "").replace("-", "")


def suggest_typo(word: str, choices: Iterable[str]) -> str:
    """`` (did you mean 'x'?)`` only when `word` is plausibly a typo of a known spelling:
    an edit or two away (one for a short name), and not another word made of it and more
    (``question_id`` is not a typo of ``question``, nor ``dataset`` of ``date``)."""
    typed = _squashed(word)
    best: tuple[int, int, str] | None = None
    for choice in choices:
        known = _squashed(choice)
        longer, shorter = (typed, known) if len(typed) >= len(known) else (known, typed)
        if len(longer) - len(shorter) >= 2 and (
            longer.startswith(shorter) or longer.endswith(shorter)
        ):
            continue
        edits = _distance(typed, known)
        if edits <= (1 if len(known) <= 4 else 2):
            # Of spellings as close, the one written most alike (goldenAnswer, golden_answer).
            found = (edits, _distance(word.lower(), choice.lower()), choice)
            best = found if best is None or found < best else best
    return f" (did you mean {best[2]!r}?)" if best else ""


def spellings(model: type[BaseModel]) -> dict[str, str]:
    """Every accepted spelling of a model's fields (its name and its aliases) -> the field."""
    out: dict[str, str] = {}
    for name, info in model.model_fields.items():
        alias = info.validation_alias
        choices = alias.choices if isinstance(alias, AliasChoices) else [name]
        out.update({choice: name for choice in choices if isinstance(choice, str)})
        out.setdefault(name, name)
    return out


def key_path(loc: Iterable[int | str]) -> str:
    """``jurors[1].weight`` from pydantic's ``("jurors", 1, "weight")``."""
    path = ""
    for part in loc:
        if isinstance(part, int):
            path += f"[{part}]"
        else:
            path += f".{part}" if path else part
    return path


def _models_in(annotation: Any) -> tuple[type[BaseModel] | None, bool]:
    """The model a field holds (directly, in a tuple or list, or as a dict's values) and
    whether it sits behind a dict key."""
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return annotation, False
    origin = typing.get_origin(annotation)
    for arg in typing.get_args(annotation):
        model, _ = _models_in(arg)
        if model is not None:
            return model, origin is dict
    return None, False


def _known_keys(model: type[BaseModel], loc: tuple[int | str, ...]) -> list[str]:
    """The keys accepted where `loc` ends, for a "did you mean" on an unknown key."""
    current = model
    skip_key = False
    for part in loc[:-1]:
        if isinstance(part, int):
            continue
        if skip_key:
            skip_key = False
            continue
        info = current.model_fields.get(spellings(current).get(part, part))
        if info is None:
            return []
        inner, skip_key = _models_in(info.annotation)
        if inner is None:
            return []
        current = inner
    return list(spellings(current))


def _model_names(model: type[BaseModel], seen: set[str] | None = None) -> set[str]:
    """The class names of every model reachable from `model`'s fields."""
    seen = set() if seen is None else seen
    seen.add(model.__name__)
    for info in model.model_fields.values():
        stack = [info.annotation]
        while stack:
            annotation = stack.pop()
            if isinstance(annotation, type) and issubclass(annotation, BaseModel):
                if annotation.__name__ not in seen:
                    _model_names(annotation, seen)
            else:
                stack.extend(typing.get_args(annotation))
    return seen


def _is_branch(part: str, models: set[str]) -> bool:
    return part in models or _BRANCH.match(part) is not None


def _shown(value: Any) -> str:
    try:
        text = json.dumps(value, ensure_ascii=False, default=str)
    except (TypeError, ValueError):
        text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


#: Reasons in the project's words, by pydantic error type; ``{got}`` is the value given.
_WORDS = {
    "int_type": "expected a whole number, got {got}",
    "int_parsing": "expected a whole number, got {got}",
    "int_from_float": "expected a whole number, got {got}",
    "float_type": "expected a number, got {got}",
    "float_parsing": "expected a number, got {got}",
    "bool_type": "expected true or false, got {got}",
    "bool_parsing": "expected true or false, got {got}",
    "string_type": "expected text, got {got}",
    "dict_type": "expected a table of keys and values, got {got}",
    "model_type": "expected a table of keys and values, got {got}",
    "model_attributes_type": "expected a table of keys and values, got {got}",
    "list_type": "expected a list, got {got}",
    "tuple_type": "expected a list, got {got}",
    "greater_than": "must be more than {gt}, got {got}",
    "greater_than_equal": "must be at least {ge}, got {got}",
    "less_than": "must be less than {lt}, got {got}",
    "less_than_equal": "must be at most {le}, got {got}",
    "too_short": "needs at least {min_length} item(s)",
    "string_too_short": "must not be empty",
    "string_pattern_mismatch": "{got} does not match the pattern {pattern}",
}


#: The pydantic error types of a number's bounds.
_BOUNDS = frozenset({"greater_than", "greater_than_equal", "less_than", "less_than_equal"})


def _reason(
    err: ErrorDetails, known: list[str], unknown: tuple[str, str], typos: bool = False
) -> str:
    kind = err["type"]
    ctx = err.get("ctx") or {}
    if kind == "extra_forbidden":
        loc = err["loc"]
        hint = (suggest_typo if typos else suggest)(str(loc[-1]) if loc else "", known)
        return unknown[0] + (hint or unknown[1])
    if kind == "missing":
        return "missing"
    if kind in ("value_error", "assertion_error"):
        return str(ctx.get("error", err["msg"]))
    if kind in ("literal_error", "enum"):
        choices = re.findall(r"'([^']*)'", str(ctx.get("expected", "")))
        got = err.get("input")
        hint = suggest(got, choices) if isinstance(got, str) else ""
        return f"{_shown(got)} is not one of {', '.join(choices)}{hint}"
    template = _WORDS.get(kind)
    got = err.get("input")
    if kind in _BOUNDS and isinstance(got, float) and math.isnan(got):
        # NaN fails every bound: the one pydantic checked ("must be at most 1") is no fix.
        return "expected a number, got NaN"
    if template is not None:
        limits = {k: f"{v:g}" if isinstance(v, float) else str(v) for k, v in ctx.items()}
        return template.format(got=_shown(err.get("input")), **limits)
    return re.sub(r"^Input should be", "should be", err["msg"])


def problems(
    exc: ValidationError,
    model: type[BaseModel],
    *,
    unknown_key: str = "unknown key",
    unknown_hint: str = "",
    typos: bool = False,
) -> list[tuple[str, str]]:
    """Every problem of a validation as (key path, reason), in the project's words. An
    unknown key is `unknown_key` with the closest known spelling, or else `unknown_hint`
    (with `typos`, only a spelling it is plausibly a typo of: a data file's columns are
    other tools' names, not attempts at ours)."""
    out: list[tuple[str, str]] = []
    models = _model_names(model)
    errors = exc.errors(include_url=False)
    parents = {err["loc"][:n] for err in errors for n in range(len(err["loc"]))}
    for err in errors:
        if err["type"] == "too_short" and err["loc"] in parents:
            continue  # a list short only of the items refused inside it: those are named
        *inner, last = err["loc"] or ("",)
        if err["type"] != "extra_forbidden":  # else the last part is the key the user wrote
            inner.append(last)
            last = ""
        loc = tuple(p for p in inner if isinstance(p, int) or not _is_branch(p, models))
        loc += (last,) if last != "" else ()
        known = _known_keys(model, loc) if err["type"] == "extra_forbidden" else []
        problem = (key_path(loc), _reason(err, known, (unknown_key, unknown_hint), typos))
        if problem not in out:  # a union reports one problem once per branch
            out.append(problem)
    return out


def utf8_problem(data: bytes, exc: UnicodeDecodeError) -> tuple[int, str]:
    """Where bytes stop being UTF-8: the line, and the byte and its column."""
    line = data.count(b"\n", 0, exc.start) + 1
    column = exc.start - (data.rfind(b"\n", 0, exc.start) + 1) + 1
    return line, f"not valid UTF-8 (byte 0x{data[exc.start]:02x} at column {column})"


def read_toml(path: Path, error: Callable[[str], Exception]) -> dict[str, Any]:
    """A TOML file's contents; any problem reading it is `error(reason)`."""
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise error(exc.strerror or str(exc)) from None
    try:
        text = data.decode("utf-8").removeprefix("\ufeff")
    except UnicodeDecodeError as exc:
        line, reason = utf8_problem(data, exc)
        raise error(f"line {line}: {reason}") from None
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise error(f"not valid TOML: {exc}") from None
    except RecursionError:
        raise error("not valid TOML: nested too deeply") from None


class LineError:
    """One problem of a cases file: where (a line, a row, an item), which field, and why.

    `unit` says what `line` counts: ``line`` in a text file (JSONL, CSV), ``item`` in a JSON or
    YAML list, ``row`` in a table (Parquet, a dataset), ``test`` in a promptfoo file.
    """

    __slots__ = ("field", "line", "reason", "unit")

    def __init__(self, line: int, field: str, reason: str, unit: str = "line") -> None:
        self.line = line
        self.field = field
        self.reason = reason
        self.unit = unit

    def __str__(self) -> str:
        where = f"{self.unit} {self.line}"
        return f"{where}: {self.field}: {self.reason}" if self.field else f"{where}: {self.reason}"

    def __repr__(self) -> str:
        return f"LineError({self.line!r}, {self.field!r}, {self.reason!r}, {self.unit!r})"

    def _key(self) -> tuple[int, str, str, str]:
        return (self.line, self.field, self.reason, self.unit)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, LineError):
            return NotImplemented
        return self._key() == other._key()

    def __hash__(self) -> int:
        return hash(self._key())
