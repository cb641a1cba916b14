"""`jury.run`: judge a cases file, record the run, write its reports, and say what the gate
decided, as one awaitable call. `jury run` is this call behind a command line.

The steps: the panel (`panel_for`), the agent, the cache, the record (a new run directory, or
the one being resumed), the judging loop (verdicts recorded as they arrive; provider batches
in batch mode) and the reports (summary, HTML, JUnit, from the records alone). Nothing is
printed: warnings and notes go to the run (`Run.warnings`, `Run.notes`) and, as they are
said, to `notify`; live progress only when asked (`progress`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from .._errors import ConfigError
from .._verdict import CaseVerdict
from ..adapters._agent import Agent
from ..batch._run import batch_jurors
from ..cases._case import Case
from ..cases._subset import Selection, Subset
from ..engine._cache import SqliteCache, default_cache_dir
from ..engine._jury import Jury
from ..panel._agent_spec import AgentSettings
from ..panel._panel import Panel
from ..report._judged import JudgedCases
from ..report._progress import RunProgress
from ..report._publish import publish
from ..runs._cases_file import CasesFile
from ..runs._records import Redactor
from ..runs._shards import Shard
from ._agent import AnswerNotice, agent_for, answers_source, refuse_nothing_to_judge, resumed_agent
from ._batches import batch_run, judge_batches, pending_lines, resumed_arguments
from ._notices import Kind, Notices
from ._options import RunOptions, case_source, checks_for, panel_for, report_paths, subset_from
from ._record import cases_file, judge_cases, open_record, run_dir
from ._repeat import repeats_of, run_repeats
from ._result import Run

__all__ = ["run"]


async def run(
    cases: str | Path | Iterable[Case | dict[str, Any]] | None = None,
    *,
    notify: Callable[[Kind, str], None] | None = None,
    on_verdict: Callable[[CaseVerdict], None] | None = None,
    **options: Any,
) -> Run:
    """Run the release gate: judge every case of `cases` (a file: JSONL, JSON, CSV, TSV, YAML,
    Parquet, or ``hf://owner/name``; or the cases themselves) with a jury, record the run in a
    directory, write its reports, and return the `Run` (its verdicts, summary, the gate's
    `passed` and `exit_code`, its cost and directory).

    The options are `jury run`'s, named as its flags are (``--max-cost`` is `max_cost`):
    `jury` (a jury file; the offline default panel without one), `agent` (what ``--agent``
    takes: a SPEC, an `jury.adapters.Agent`, a sync or async function of the case), `out`,
    `resume`, `rubric`, `threshold`, `concurrency`, `max_cost`, `dry_run`, `redact`,
    `cache_dir`, `no_cache`, `refresh`, `ids`, `category`, `sample`, `limit`, `seed`,
    `batch`, `submit_only`, `shard`, `shard_limits`, `junit`, `html`, `json`, `html_cases`,
    `no_html` (no HTML report in the run directory: the page's templates and the cases it
    shows, 5 MB more at the peak of a 1,000-case run; `jury.report.write_html` writes it
    later),
    `otel`, `no_checks`, `judge_all`, `map`, `format`, `root`, `agent_prompt`, `answers`,
    `repeat`, `require` (with `repeat` N: a case passes when at least K of its N answers
    pass), and `progress` ("none" by default: a library prints nothing; "auto", "rich"
    or "plain" show live progress on stderr). `notify(kind, text)` hears each warning and
    note as it is said; `on_verdict` each verdict as it is recorded.

    A configuration that cannot work raises `jury.ConfigError` before anything is paid (a
    juror that cannot work, `jury.JurorUnusable`, on its first call). Cancelling the task
    cancels every call in flight and keeps every finished verdict: `resume` continues it.
    """
    unknown = sorted(set(options) - set(RunOptions.__dataclass_fields__))
    if unknown:
        raise ConfigError(f"jury.run: unknown option{'s' * (len(unknown) > 1)} {unknown}")
    if cases is not None and not isinstance(cases, str | Path):
        return await _in_memory(cases, notify, on_verdict, options)
    given = RunOptions(cases=None if cases is None else str(cases), **options)
    return await run_options(given, Notices(notify), on_verdict)


async def _in_memory(
    cases: Iterable[Case | dict[str, Any]],
    notify: Callable[[Kind, str], None] | None,
    on_verdict: Callable[[CaseVerdict], None] | None,
    options: dict[str, Any],
) -> Run:
    """Cases given in memory are written to a JSONL file first: a run reads, records and
    resumes its cases from a file (its digest says a resumed run judges the same cases)."""
    import tempfile

    with tempfile.TemporaryDirectory(prefix="jury-cases-") as folder:
        path = Path(folder) / "cases.jsonl"
        _write_cases(cases, path)
        given = RunOptions(cases=str(path), **options)
        return await run_options(given, Notices(notify), on_verdict)


def _write_cases(cases: Iterable[Case | dict[str, Any]], path: Path) -> None:
    import json

    with open(path, "w", encoding="utf-8") as out:
        for case in cases:
            data = (
                case.model_dump(mode="json", exclude_unset=True) if isinstance(case, Case) else case
            )
            out.write(json.dumps(data, ensure_ascii=False) + "\n")


async def run_options(
    options: RunOptions,
    said: Notices,
    on_verdict: Callable[[CaseVerdict], None] | None = None,
) -> Run:
    """`run` with its options gathered (the command builds them from its flags)."""
    options = options.replace()  # what a resumed run takes from its manifest goes here
    report_paths(options)  # options that contradict each other stop before anything is paid
    if options.max_cost is not None and not options.max_cost >= 0:  # NaN too
        raise ConfigError(
            f"--max-cost {options.max_cost:g}: give the most to spend in USD, 0 or more"
        )
    answers_source(options)
    resumed_arguments(options)
    resumed_agent(options)
    if not options.cases:
        raise ConfigError("give a cases file, or --resume RUN")
    panel = panel_for(options)
    shard = Shard.parse(options.shard, options.shard_limits) if options.shard else None
    if shard is not None:
        panel = shard.panel(panel)
    # Resolved first: a missing file, module or function stops the run before any call.
    agent, agent_settings = agent_for(options, panel)
    options = repeats_of(options, panel)
    if options.repeat is not None:

        async def one(repeat: RunOptions) -> Run:
            # A repeat's reports say what that repeat warned of (not the repeats' before it);
            # the run of repeats keeps each warning once.
            own = Notices(said.notify)
            try:
                return await run_options(repeat, own, on_verdict)
            finally:
                said.absorb(own)

        return await run_repeats(options, one, agent=agent is not None, said=said, gate=panel.gate)
    subset, redactor = subset_from(options), Redactor(options.redact)
    where = run_dir(options)
    # A new run's cases.jsonl is written as the cases are validated: one parse, not two (with
    # an agent, the record writes each case as the agent answers it).
    written = None if agent is not None else cases_file(options, where, subset, shard, redactor)
    try:
        return await _run(
            options,
            said,
            on_verdict,
            panel,
            shard,
            subset,
            redactor,
            where,
            written,
            agent,
            agent_settings,
        )
    finally:
        if written is not None:
            written.discard()  # a no-op once the record holds it


def open_cache(options: RunOptions, redactor: Redactor) -> SqliteCache | None:
    if options.no_cache:
        return None
    return SqliteCache(
        options.cache_dir or default_cache_dir(), refresh=options.refresh, redact=redactor.text
    )


async def _run(
    options: RunOptions,
    said: Notices,
    on_verdict: Callable[[CaseVerdict], None] | None,
    panel: Panel,
    shard: Shard | None,
    subset: Subset,
    redactor: Redactor,
    where: tuple[Path, bool],
    written: CasesFile | None,
    agent: Agent | None,
    agent_settings: AgentSettings,
) -> Run:
    with_images: list[str] = []
    source = case_source(
        options,
        panel,
        None if written is None else written.add,
        with_images,
        said.note,
        said.warning,
    )
    try:
        selection = Selection.of(source, subset, source.count)
        if shard is not None:
            selection = shard.narrow(selection)
        checks = checks_for(options, panel)
        batch = any(batch_jurors(panel, all_jurors=options.batch))
        _refuse_combinations(options, batch, agent)
        if options.dry_run:
            from ..report._estimate import estimated

            found = estimated(
                panel, selection.cases(), checks=checks, judge_all=options.judge_all, batch=batch
            )
            return Run.estimated(found, said)
        # Without an agent a case must have an answer; the cases written as they were
        # validated say so without reading them again.
        if agent is None and not options.resume and (written is None or not written.answered):
            refuse_nothing_to_judge(selection.cases())
        for warning in _warnings(panel, agent, selection, with_images):
            said.warning(warning)
        return await _judged(
            options,
            said,
            on_verdict,
            panel,
            shard,
            selection,
            redactor,
            where,
            written,
            agent,
            agent_settings,
            source,
            checks,
            batch,
        )
    finally:
        source.close()


def _refuse_combinations(options: RunOptions, batch: bool, agent: Agent | None) -> None:
    if batch and agent is not None:
        raise ConfigError("--agent: not in batch mode yet; run the agent online")
    if options.submit_only and not batch:
        raise ConfigError("--submit-only: only in batch mode (--batch, or a [batch] table)")
    if batch and options.max_cost is not None:
        raise ConfigError(
            "--max-cost: a batch's cost is committed when it is sent; check it first with "
            "`jury estimate --batch`"
        )


def _warnings(
    panel: Panel, agent: Agent | None, selection: Selection, with_images: list[str]
) -> list[str]:
    """What the panel and the cases deserve a word about, before anything is judged."""
    from ..panel._images import agent_images, image_warnings
    from ..panel._lifecycle import agent_lifecycle
    from ..panel._warnings import panel_warnings

    warnings = panel_warnings(panel, agent)
    if panel.aggregation == "learned" and panel.calibration is not None:
        from ..decide._learned import load_fit

        warnings += load_fit(panel.calibration).skipped_warnings(panel.calibration)
    # Only the cases this run takes count (--ids, --shard, --limit ... may leave the
    # image cases out).
    if selection.ids is not None:
        with_images = [case_id for case_id in with_images if case_id in selection.ids]
    warnings += image_warnings(panel, with_images)
    warnings += agent_images(agent, with_images)
    if agent is not None and (found := agent_lifecycle(agent, panel)) is not None:
        warnings.append(found)
    return warnings


async def _judged(
    options: RunOptions,
    said: Notices,
    on_verdict: Callable[[CaseVerdict], None] | None,
    panel: Panel,
    shard: Shard | None,
    selection: Selection,
    redactor: Redactor,
    where: tuple[Path, bool],
    written: CasesFile | None,
    agent: Agent | None,
    agent_settings: AgentSettings,
    source: Any,
    checks: Any,
    batch: bool,
) -> Run:
    cache = open_cache(options, redactor)
    if cache is not None and cache.notice is not None:
        said.status(cache.notice)
    if report_paths(options).page():
        # The page's templates compiled now, not after the judging: the compiler's 5 MB,
        # freed again, is reused by the run instead of adding to its peak (issue 36).
        from ..report._html import TEMPLATE
        from ..report._page import prepare_template

        prepare_template(TEMPLATE)
    try:
        jury = Jury(
            panel,
            cache=cache,
            max_cost=options.max_cost,
            checks=checks,
            judge_all=options.judge_all,
        )
        hooked = _otel_hook(options, on_verdict)
        calling = (agent, agent_settings) if agent is not None else None
        notice = AnswerNotice()
        with open_record(
            options,
            jury,
            panel,
            source,
            selection,
            redactor,
            cache,
            shard,
            calling,
            where,
            written,
        ) as record:
            done = len(record.finished())
            judged: JudgedCases | None = None
            with RunProgress(selection.count, done=done, mode=options.progress) as progress:
                if batch:
                    batched = batch_run(options, panel, record.path, cache, checks, said.status)
                    jury = batched.jury
                    result = await judge_batches(
                        batched, record, selection, progress, hooked, options.submit_only
                    )
                    if not result.finished:
                        lines = pending_lines(result, record.path, batched.settings.in_flight)
                        return Run.pending_batches(record.path, lines, said)
                else:
                    # A new run's cases all pass through here (a resumed one's only in
                    # part); with an agent, the judged case is the answered one, which the
                    # record holds: the reports read it there.
                    if agent is None:
                        paths = report_paths(options)
                        judged = JudgedCases(redactor, paths.html_cases, paths.page())
                    await judge_cases(
                        jury, record, selection, progress, hooked, calling, notice, judged
                    )
            if (text := notice.said()) is not None:
                said.status(text)
            for line in jury.learned:
                said.note(line)
            _say_resumed(said, record.path, done, selection.count)
            if cache is not None:
                cache.close()
                if cache.error is not None:
                    said.status(f"some replies were not cached: {cache.error}")
            published = publish(
                record.path,
                panel,
                jury.rubric,  # loaded once, by the jury: the reports reuse it
                jurors=jury.jurors,
                warnings=[*said.warnings, *jury.warnings],
                checks=checks.names if checks is not None else (),
                judge_all=options.judge_all,
                paths=report_paths(options),
                offline_hint=options.jury is None,
                judged=judged,
            )
            code = published.summary.exit_code(panel.gate)
            # What the servers said of themselves (a local server's dialect, slots, file), and
            # what the run warned of: `jury report` says them again.
            record.finish(
                exit_code=code, servers=list(jury.learned), warnings=list(published.warnings)
            )
            return Run.published_as(record.path, published, said)
    finally:
        if cache is not None:
            cache.close()


def _say_resumed(said: Notices, path: Path, done: int, count: int) -> None:
    """On a resumed run, say what was already there (a finished run is reported again with
    no call, and says so rather than staying silent)."""
    if done >= count:
        said.status(f"{path} already complete: {done} verdicts, 0 calls")
    elif done:
        said.status(f"resumed {path}: {done} verdicts already recorded, {count - done} judged now")


def _otel_hook(
    options: RunOptions, on_verdict: Callable[[CaseVerdict], None] | None
) -> Callable[[CaseVerdict], None] | None:
    import os

    if not (options.otel or os.environ.get("JURY_OTEL") == "1"):
        return on_verdict
    from ..report._otel_events import VerdictEvents

    emit = VerdictEvents().emit
    if on_verdict is None:
        return emit

    def both(verdict: CaseVerdict) -> None:
        emit(verdict)
        on_verdict(verdict)

    return both
