"""promptfoo test cases, as a configuration's ``tests`` or a test CSV's rows.

A test's ``vars`` hold the question (the var named like one, or the only var) and whatever
else the prompt template reads; its ``assert`` list holds the golden answer (``equals``,
``factuality``, ``similar``...), what a good answer does (``llm-rubric``, ``g-eval``), and
checks an ``if`` can make (``contains``, ``not-icontains``, ``regex``...: the case's
``must_find``, `jury.cases._promptfoo_asserts`); the types applied neither way are said, by
type and count. A test's ``description`` is its case's ID when no other test has the same.
``{{var}}`` in an assertion's text is rendered with the test's vars, as promptfoo renders
it (nunjucks) before grading. A CSV's own columns are ``__expected[N]``, ``__description``,
``__threshold`` and ``__metadata:KEY`` (https://www.promptfoo.dev/docs/configuration/test-cases/);
every other column is a var. The vars besides the question are shown to the judges (the
case's ``judge`` table), and kept in metadata as given.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable, Mapping
from typing import Any

from .._errors import ConfigError
from ._promptfoo_asserts import GOLDEN, JUDGED, applied
from ._shape_base import KEPT, ORIGINS, QUESTION_KEYS, UNAPPLIED, Builder, Record, one_of, typed

__all__ = ["SHARED", "is_column", "is_promptfoo", "mark_shared", "promptfoo", "promptfoo_tests"]

# promptfoo assertion types whose value is what a good answer does.
_BEHAVIOUR_ASSERTS = tuple(t for t in JUDGED if t not in GOLDEN)
_ASSERT_TEXT = re.compile(r"^([a-z][a-z-]*)(?:\([^)]*\))?:\s*(.*)$", re.DOTALL)
# A cell that is a bare type, such as promptfoo's own example's ``is-json`` (src/csv.ts reads
# ``type[:value]`` for its known types; these are the ones that need no value).
_BARE = re.compile(r"^(?:not-)?(?:is-json|contains-json|is-sql|is-xml|contains-xml|is-html|"
                   r"contains-html|is-refusal|is-valid-openai-tools-call|"
                   r"is-valid-openai-function-call)$")  # fmt: skip
# src/csv.ts's older names of `javascript:` (and `grade:`, of `llm-rubric:`).
_RENAMED = {"fn": "javascript", "eval": "javascript", "grade": "llm-rubric"}
#: The key a test is marked with when another test has the same description (not its ID).
SHARED = "\x00shared description"
_VAR = re.compile(r"\{\{\s*([A-Za-z_][\w.]*)\s*\}\}")
_LABEL = re.compile(r"[A-Za-z][\w-]{0,63}")  # a var a judge is shown under its name
#: Parts of a var's name that say it holds the user's words, most telling first.
_ASKED = ("question", "query", "message", "request", "input", "prompt", "user", "body")
_COLUMNS = ("__expected", "__metadata:", "__config:")
_NAMED_COLUMNS = frozenset({"__description", "__threshold", "__prefix", "__suffix"})
_NAMED_COLUMNS |= {"__metric", "__providerOutput"}  # promptfoo src/csv.ts, testCaseFromCsvRow
_UNESCAPED_COMMA = re.compile(r"(?<!\\),")
_OWN = ("description", "options", "threshold", "provider", "providerOutput")


def is_column(key: str) -> bool:
    """A promptfoo test CSV's own column (not any ``__`` name: pandas writes
    ``__index_level_0__`` into Parquet files)."""
    return key[:2] == "__" and (key.startswith(_COLUMNS) or key in _NAMED_COLUMNS)


def is_promptfoo(record: Record) -> bool:
    """A test (``vars``, ``assert``) or a test CSV's row (a column of promptfoo's own)."""
    return "vars" in record or "assert" in record or any(is_column(key) for key in record)


def _assertion(text: str) -> dict[str, Any]:
    """A promptfoo CSV ``__expected`` cell: ``type: value``, or an ``equals`` value."""
    if _BARE.match(text):
        return {"type": text}
    found = _ASSERT_TEXT.match(text)
    if found is None:
        return {"type": "equals", "value": text}
    kind = _RENAMED.get(found.group(1), found.group(1))
    return {"type": kind, "value": found.group(2)}


def _rendered(value: Any, variables: Mapping[str, Any]) -> Any:
    """`value` with each ``{{var}}`` of the test's vars filled in (others left as written)."""
    if not isinstance(value, str) or "{{" not in value:
        return value

    def fill(found: re.Match[str]) -> str:
        name = found.group(1)
        return str(variables[name]) if name in variables else found.group(0)

    return _VAR.sub(fill, value)


def promptfoo(record: Record, renamed: Mapping[str, str] | None = None) -> Record:
    """A test as a case's fields. `renamed`: case field -> the path a field map read it
    from (``--map question=customer_message``), so that ``{{customer_message}}`` in an
    assertion is still rendered once that var has become the question."""
    record = dict(record)
    shared = bool(record.pop(SHARED, False))
    nested = bool(record.get("vars"))  # vars as a table (YAML), not a CSV row's columns
    variables = dict(typed(record, "vars", dict, {}))
    asserts = list(typed(record, "assert", list, []))
    metadata = dict(typed(record, "metadata", dict, {}))
    for key in list(record):
        if key.startswith("__expected"):
            asserts.append(_assertion(str(record.pop(key))))
        elif key.startswith("__metadata:") and key.endswith("[]"):
            # A list, as promptfoo's processMetadataKey splits it: at commas not escaped (\\,).
            items = _UNESCAPED_COMMA.split(str(record.pop(key)))
            name = key.removeprefix("__metadata:").removesuffix("[]")
            metadata[name] = [item.strip().replace("\\,", ",") for item in items]
        elif key.startswith("__metadata:"):
            metadata[key.removeprefix("__metadata:")] = record.pop(key)
        elif key.startswith("__config:") or key == "__metric":
            metadata[key[2:]] = record.pop(key)
        elif key == "__providerOutput":
            record["providerOutput"] = record.pop(key)
        elif key in ("__description", "__threshold"):
            record[key[2:]] = record.pop(key)
        elif key in ("__prefix", "__suffix"):  # text around the prompt, not a var
            metadata[key[2:]] = record.pop(key)
        elif key not in _OWN:
            variables[key] = record.pop(key)
    case = Builder(variables)
    for key in QUESTION_KEYS:
        if "question" not in case.out:
            case.text(key, "question")
    if "question" not in case.out and len(case.rest) == 1:
        case.text(next(iter(case.rest)), "question")
    if "question" not in case.out and len(case.rest) > 1:
        names = sorted(case.rest)
        where = "vars." if nested else ""
        # The line to paste names the var most likely the user's words (customer_message,
        # not context): a suggestion, said as one, which the user checks against the names.
        likely = next((n for w in _ASKED for n in names if w in n.lower()), names[0])
        raise ValueError(
            f"vars {', '.join(names)}: none is clearly the question; say which with "
            f'--map question={where}{likely} (or [fields] question = "{where}{likely}")'
        )
    case.answers("answer", "answer")
    if "providerOutput" in record:
        case.put("answer", record.pop("providerOutput"), "providerOutput")
    every = {**variables}
    for field, path in (renamed or {}).items():
        if field in variables:
            every.setdefault(path.split(".")[-1], variables[field])
    asserts = [
        {**a, "value": _rendered(a.get("value"), every)} if isinstance(a, Mapping) else a
        for a in asserts
    ]
    golden = [a.get("value") for a in asserts if isinstance(a, Mapping) and a.get("type") in
              GOLDEN]  # fmt: skip
    if golden:
        case.put("golden_answer", one_of(golden), "assert")
    behaviour = [str(a.get("value")) for a in asserts if isinstance(a, Mapping) and
                 a.get("type") in _BEHAVIOUR_ASSERTS]  # fmt: skip
    if behaviour:
        case.put("expected_behaviour", "\n".join(behaviour), "assert")
    if case.rest:
        # The other vars are what the prompt template filled in around the question (a
        # tone, a language, a document): the judges are shown them, each under its name.
        shown = {k: v for k, v in case.rest.items() if _LABEL.fullmatch(k) and v is not None}
        if shown:
            case.out["judge"] = shown
        case.metadata["vars"] = case.rest
        case.rest = {}
    checks, unapplied = applied(asserts)
    if checks:
        case.put("must_find", checks, "assert")
    if asserts:
        case.metadata["assert"] = asserts
    notes = []
    described = record.get("description")
    if isinstance(described, str) and described.strip() and "id" not in variables:
        if shared:
            notes.append("description (not the ID: another test has the same one)")
        else:
            case.put("id", described, "description")
    for key in ("description", "options", "threshold", "provider"):
        if key in record:
            case.metadata[key] = record.pop(key)
    case.metadata.update(metadata)
    out = case.done()
    origins = out.setdefault(ORIGINS, {})
    if notes:  # said with the keys kept in metadata (the loader's notice)
        origins[KEPT] = "; ".join([*filter(None, [origins.get(KEPT)]), *notes])
    if unapplied:  # a warning, in the reports: a gate would pass without them
        origins[UNAPPLIED] = "\n".join(unapplied.elements())
    if not origins:
        del out[ORIGINS]
    return out


def mark_shared(tests: list[Any]) -> None:
    """Marks with `SHARED` the tests whose description another test has too: a description
    is a case's ID only where it names one test (the others get IDs from their content)."""

    def described(test: Any) -> Any:
        if not isinstance(test, dict):
            return None
        return test.get("description", test.get("__description"))

    counts = Counter(d for d in map(described, tests) if isinstance(d, str))
    for test in tests:
        description = described(test)
        if isinstance(description, str) and counts[description] > 1:
            test[SHARED] = True


#: Reads the tests of a file a configuration points to (``file://tests.csv``).
Loader = Callable[[str], list[Any]]


def _tests(value: Any, name: str, load: Loader | None) -> Any:
    """A configuration's ``tests``: a list, or ``file://`` paths followed with `load`."""
    paths = [value] if isinstance(value, str) else value
    if not (isinstance(paths, list) and paths and all(isinstance(p, str) for p in paths)):
        return value
    if load is None:
        raise ConfigError(
            f"{name}: tests points to another file ({value}): give that file to jury instead"
        )
    tests: list[Any] = []
    for path in paths:
        tests.extend(load(path.removeprefix("file://")))
    return tests


def _resolved(assertion: Any, config: Mapping[str, Any]) -> Any:
    """An assertion ``{$ref: '#/assertionTemplates/name'}`` as the template it points to in
    the configuration (promptfoo's JSON pointer); any other (one it cannot find) as given."""
    ref = assertion.get("$ref") if isinstance(assertion, Mapping) else None
    if not (isinstance(ref, str) and ref.startswith("#/")):
        return assertion
    found: Any = config
    for part in ref[2:].split("/"):
        if not isinstance(found, Mapping):
            return assertion
        found = found.get(part.replace("~1", "/").replace("~0", "~"))
    return dict(found) if isinstance(found, Mapping) else assertion


def promptfoo_tests(config: Mapping[str, Any], name: str, load: Loader | None = None) -> list[Any]:
    """A promptfoo configuration's tests, each merged with its ``defaultTest``; ``tests:
    file://tests.csv`` (or a list of such paths) is read with `load`."""
    tests, default = _tests(config.get("tests"), name, load), config.get("defaultTest") or {}
    if isinstance(default, str):
        raise ConfigError(
            f"{name}: defaultTest points to another file ({default}): write it in the file"
        )
    if not isinstance(tests, list) or not isinstance(default, Mapping):
        raise ConfigError(f"{name}: tests: expected a list of tests")
    merged = []
    for given in tests:
        if not isinstance(given, Mapping):
            merged.append(given)
            continue
        test = dict(given)
        for key in ("vars", "metadata", "options"):
            if isinstance(default.get(key), Mapping):
                test[key] = {**default[key], **(test.get(key) or {})}
        if isinstance(default.get("assert"), list):
            test["assert"] = [*default["assert"], *(test.get("assert") or [])]
        if isinstance(test.get("assert"), list):
            test["assert"] = [_resolved(a, config) for a in test["assert"]]
        # A test CSV's row is a promptfoo test by where it came from: an empty `vars` says so
        # whatever its columns (they are its vars).
        if "vars" not in test and "assert" not in test:
            test["vars"] = {}
        merged.append(test)
    mark_shared(merged)
    return merged
