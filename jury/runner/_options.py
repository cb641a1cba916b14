"""The options of a run, named as `jury run`'s flags are (``--max-cost`` is `max_cost`), and
what they make: the panel, the cases source, the subset, the checks, the report paths.

One options object for the library and the command: `jury.run` takes them as keyword
arguments, `jury run` parses them from its command line (`RunOptions.of`), and the other
commands that read cases or build a panel (`jury estimate`, `jury prompts`, `jury rescore`...)
read theirs through the same functions, so that a flag means one thing everywhere.
"""

from __future__ import annotations

import dataclasses
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any, Literal, Protocol

from .._errors import ConfigError
from .._verdict import CaseVerdict
from ..cases import CaseSource, field_map_problems, parse_map
from ..cases._case import Case
from ..cases._load import iter_cases
from ..cases._subset import Subset
from ..checks._suite import CheckSuite
from ..panel._defaults import default_panel
from ..panel._panel import Panel, load_panel, thresholds_problem
from ..report._publish import HTML_CASES, ReportPaths
from ..runs._records import new_run_dir

__all__ = [
    "CalibrateOptions",
    "Progress",
    "Reporting",
    "RunOptions",
    "Subsetting",
    "case_source",
    "checks_for",
    "files_not_dash",
    "given",
    "panel_for",
    "report_paths",
    "run_folder",
    "select_verdicts",
    "subset_from",
]

Progress = Literal["auto", "rich", "plain", "none"]


@dataclass(slots=True)
class RunOptions:
    """Every option of a run (see `jury.run` for what each does)."""

    cases: str | None = None
    jury: str | None = None
    rubric: str | None = None
    threshold: float | None = None
    concurrency: int | None = None
    max_cost: float | None = None
    dry_run: bool = False
    out: str | None = None
    resume: str | None = None
    redact: Sequence[str] = ()
    cache_dir: str | None = None
    no_cache: bool = False
    refresh: bool = False
    ids: Sequence[str] | None = None
    category: Sequence[str] | None = None
    sample: int | None = None
    limit: int | None = None
    seed: int = 0
    batch: bool = False
    submit_only: bool = False
    shard: str | None = None
    shard_limits: Literal["divided", "whole"] = "divided"
    progress: Progress = "none"
    junit: str | None = None
    html: str | None = None
    json: str | None = None
    html_cases: int = HTML_CASES
    no_html: bool = False
    otel: bool = False
    no_checks: bool = False
    judge_all: bool = False
    map: Sequence[str] = field(default_factory=list)
    format: str | None = None
    root: str | None = None
    agent: Any = None
    agent_prompt: str | None = None
    answers: str | None = None
    repeat: int | None = None
    require: int | None = None
    #: Set when the cases are a run's recorded answers (``answers``): no agent is called.
    no_agent: bool = False
    #: Set for each repeat of a run with ``repeat``: the jury file's ``[gate] repeats`` is
    #: not applied to it again.
    in_repeat: bool = False

    @classmethod
    def of(cls, namespace: object) -> RunOptions:
        """The options a parsed command line holds, the defaults for the rest."""
        return cls(**given(cls, namespace))

    def replace(self, **changes: Any) -> RunOptions:
        return dataclasses.replace(self, **changes)


def given(options: type[Any], namespace: object) -> dict[str, Any]:
    """The fields of the `options` dataclass that a parsed command line holds (its other
    attributes are not options of that kind)."""
    found = (f.name for f in fields(options))
    return {name: getattr(namespace, name) for name in found if hasattr(namespace, name)}


@dataclass(slots=True)
class CalibrateOptions:
    """The options of a calibration (`jury.calibrate`), named as `jury calibrate`'s flags
    are: the cases and panel (as a run's), the gold checks, the hand labels and their drift,
    and the learned jury (`fit` and what goes with it)."""

    cases: str | None = None
    jury: str | None = None
    rubric: str | None = None
    threshold: float | None = None
    map: Sequence[str] = field(default_factory=list)
    format: str | None = None
    root: str | None = None
    labels: Sequence[str] | None = None
    passes: int = 1
    gold_min: float = 0.9
    other_max: float = 0.2
    json: str | None = None
    baseline: str | None = None
    save_baseline: str | None = None
    drift_tolerance: float = 0.05
    fit: str | None = None
    target: str | None = None
    model: Literal["auto", "weights", "stacked"] = "auto"
    unsupervised: bool = False
    select: bool = False
    budget: float | None = None
    cascades: bool = False
    seed: int = 0
    folds: int = 5
    votes: str | None = None
    html: str | None = None

    @classmethod
    def of(cls, namespace: object) -> CalibrateOptions:
        """The options a parsed command line holds, the defaults for the rest."""
        return cls(**given(cls, namespace))

    @property
    def learns(self) -> bool:
        """Whether the calibration fits (or ranks) a learned jury rather than checking."""
        return bool(self.fit or self.select or self.unsupervised or self.cascades)

    def run_options(self) -> RunOptions:
        """The cases and the panel, as a run reads them."""
        return RunOptions(
            cases=self.cases,
            jury=self.jury,
            rubric=self.rubric,
            threshold=self.threshold,
            map=self.map,
            format=self.format,
            root=self.root,
        )


class Subsetting(Protocol):
    """Options that pick a subset of the cases (`subset_from`)."""

    ids: Sequence[str] | None
    category: Sequence[str] | None
    sample: int | None
    limit: int | None
    seed: int


class Reporting(Protocol):
    """Options that say where copies of a run's reports go (`report_paths`)."""

    junit: str | None
    html: str | None
    json: str | None
    html_cases: int
    no_html: bool


def _names(values: Sequence[str] | None) -> tuple[str, ...]:
    """Comma-separated and repeated values, in order, each once."""
    names = (name.strip() for value in values or () for name in value.split(","))
    return tuple(dict.fromkeys(name for name in names if name))


def subset_from(options: Subsetting) -> Subset:
    return Subset(
        ids=_names(options.ids),
        categories=_names(options.category),
        sample=options.sample,
        limit=options.limit,
        seed=options.seed,
    )


def run_verdicts(run: str | Path) -> list[CaseVerdict]:
    """The verdicts of a run (a directory or its verdicts.jsonl); a directory that holds none
    is named for what it is (not a run, or a run of repeats' folder) before a bare "No such
    file" would be."""
    from ..runs._records import read_verdicts, require_manifest
    from ..runs._verdict_file import VERDICTS

    if Path(run).is_dir() and not (Path(run) / VERDICTS).exists():
        require_manifest(run)
    return read_verdicts(run)


def select_verdicts(run: str | Path, subset: Subset) -> list[CaseVerdict]:
    """The recorded verdicts of a run (a directory or its verdicts.jsonl) that a subset keeps.

    The filters see the cases in the order the run recorded them (its cases.jsonl, the cases
    file's order), so that ``--limit`` and ``--sample`` pick the same cases as in `jury run`.
    """
    verdicts = run_verdicts(run)
    if subset.everything:
        return verdicts
    cases = Path(run) / "cases.jsonl"
    order = {}
    if cases.is_file():
        order = {case.id: n for n, case in enumerate(iter_cases(cases, validate=False))}
    ordered = sorted(verdicts, key=lambda v: (order.get(v.case_id, len(order)), v.case_id))
    kept = set(subset.select((v.case_id, v.category) for v in ordered))
    return [v for v in ordered if v.case_id in kept]


def checks_for(options: RunOptions, panel: Panel) -> CheckSuite | None:
    """The checks a run of these options applies: the panel's, unless ``no_checks``."""
    return None if options.no_checks else CheckSuite.from_settings(panel.checks)


def case_source(
    options: RunOptions,
    panel: Panel,
    each: Callable[[Case], object] | None = None,
    with_images: list[str] | None = None,
    notes: Callable[[str], None] | None = None,
    warn: Callable[[str], None] | None = None,
) -> CaseSource:
    """The cases of the options, read with the panel's field map (``[fields]`` and ``map``),
    checked whole (each valid case given to `each` as it is read, and the IDs of those with
    images put in `with_images`); how they were read is said to `notes`, and what they ask
    that nothing applies to `warn` (stderr when None: the commands that are not `jury run`
    print it so)."""
    if options.cases is None:
        raise ConfigError("give a cases file")
    source = CaseSource(
        options.cases, fields=panel.fields, format=options.format, root=options.root
    )
    unasked, first = 0, ""  # cases without a question: how many, and the first one

    def seen(case: Case) -> object:
        nonlocal unasked, first
        if with_images is not None and case.images:
            with_images.append(case.id)
        if not case.question.strip():  # a conversation's question is its user's last words
            unasked, first = unasked + 1, first or case.id
        return None if each is None else each(case)

    try:
        source.validate(seen)
    except BaseException:
        source.close()
        raise
    say = notes or (lambda note: print(f"jury: note: {note}", file=sys.stderr))
    for notice in source.notices:
        say(notice)
    for warning in source.warnings:
        (warn or (lambda text: print(f"jury: warning: {text}", file=sys.stderr)))(warning)
    if unasked:  # judged all the same (a rubric may need none), but never silently
        say(
            f"{source.name}: {unasked} case(s) have no question (such as {first}): "
            "the judges see the answer without what it answers"
        )
    return source


def panel_for(options: RunOptions) -> Panel:
    """The panel of the options: the jury file's (the offline default without one), with the
    rubric, threshold, concurrency and field map the options set."""
    panel = load_panel(options.jury) if options.jury else default_panel()
    update: dict[str, Any] = {}
    if options.rubric:
        update["rubric"] = options.rubric
    if options.threshold is not None:
        update["thresholds"] = {"*": options.threshold}
    if options.concurrency is not None:
        if options.concurrency < 1:
            raise ConfigError(f"--concurrency {options.concurrency}: give at least 1")
        update["concurrency"] = options.concurrency
    if options.map:
        try:
            found = {**panel.fields, **parse_map(options.map)}
        except ValueError as exc:
            raise ConfigError(f"--map {exc}") from None
        problems = field_map_problems(found)
        if problems:
            raise ConfigError(f"--map: {'; '.join(problems)}")
        update["fields"] = found
    panel = panel.model_copy(update=update) if update else panel
    if options.threshold is not None or options.rubric:
        problem = thresholds_problem(panel)
        if problem is not None:
            flag = (
                f"--threshold {options.threshold:g}"
                if options.threshold is not None
                else "threshold"
            )
            raise ConfigError(f"{flag}: {problem[1]}")
    return panel


def files_not_dash(*flags: tuple[str, str | Path | None], why: str) -> None:
    """Refuse "-" for a flag that names a file to write, saying `why`.

    Not standard output: the commands that write files (run, rescore, report, calibrate) print
    their terminal report there, and a file named "-" was written instead, in silence. Where
    standard output is free, "-" means it (`jury export -o -`, the cases `jury run -` reads)."""
    for flag, value in flags:
        if value is not None and str(value) == "-":
            raise ConfigError(f"{flag} -: give a file path ({why})")


def run_folder(out: str | Path | None) -> Path:
    """Where a run (a rescore, a merge, repeats) is recorded: `out`, else a new folder under
    ``runs/``."""
    if str(out) == "-":
        # A run is a folder of files, not a stream: "-" made a folder named "-" ("Run recorded
        # in -"). A table of it on standard output is `jury export RUN`'s.
        raise ConfigError(
            "--out -: give a folder (a run is recorded as files: manifest.json, "
            "verdicts.jsonl, the reports); `jury export RUN` writes a run to standard output"
        )
    return Path(out) if out else new_run_dir()


def report_paths(options: Reporting) -> ReportPaths:
    def path(value: str | None) -> Path | None:
        return Path(value) if value else None

    if options.no_html and options.html:
        raise ConfigError(f"--no-html and --html {options.html}: give one of the two")
    files_not_dash(
        ("--junit", options.junit),
        ("--html", options.html),
        ("--json", options.json),
        why="standard output carries the terminal report; the run's folder keeps summary.json, "
        "junit.xml and report.html",
    )
    return ReportPaths(
        junit=path(options.junit),
        html=path(options.html),
        json=path(options.json),
        html_cases=options.html_cases,
        no_html=options.no_html,
    )
