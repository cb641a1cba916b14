"""A run with ``repeat = N`` (``jury run --repeat N``): the agent asked N times per case, each
answer judged.

Each repeat is a run directory of its own (``OUT/repeat-1`` ... ``OUT/repeat-N``), complete
and resumable like any run, so that `jury compare --a OLD/repeat-* --b NEW/repeat-*` reads
them as the repeats it already knows (flaky cases, the noise between repeats). After the last
one, each case's stability is reported and kept in ``OUT/stability.json``: in how many of
the N repeats it passed (k/N, with its interval), and the distinct answers the agent gave
when they differ. A case with PASS and FAIL among its repeats is flaky, listed apart from the
failures.

With ``require = K`` (``--require K``, or ``[gate] require``), a case passes only when at least
K of its N answers pass, fails when it cannot reach K even with its inconclusive repeats
passing, and is INCONCLUSIVE otherwise; the gate (`jury.Gate`) then decides on those verdicts,
and the run's exit code is its. Without it, the exit code is the worst repeat's.
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .._errors import ConfigError, JurorUnusable
from ..panel._panel import Gate, Panel
from ..runs._records import read_cases, read_verdicts, write_atomic
from ._options import RunOptions, run_folder
from ._result import Run, total_cost

if TYPE_CHECKING:
    from ._notices import Notices

__all__ = [
    "STABILITY",
    "case_stability",
    "repeat_dirs",
    "repeats_of",
    "run_repeats",
    "stability_lines",
]

STABILITY = "stability.json"
#: Unstable cases listed in the terminal (all of them are in stability.json).
SHOWN = 30
#: Characters of each differing answer shown in the terminal.
ANSWER_CHARS = 80
#: Runs of up to this many cases show every case's k/N; larger ones the unstable and failed.
EVERY_CASE = 60


def repeat_dirs(out: Path, count: int) -> list[Path]:
    return [out / f"repeat-{index}" for index in range(1, count + 1)]


async def run_repeats(
    options: RunOptions,
    run_one: Callable[[RunOptions], Awaitable[Run]],
    *,
    agent: bool,
    said: Notices,
    gate: Gate | None = None,
) -> Run:
    """Run the N repeats (each resumed when already there), then keep each case's stability
    in ``OUT/stability.json``; the run of the repeats (its exit code: with ``require`` the
    gate's on the k-of-N verdicts, else the worst repeat's, 1 when any failed the gate, else
    3 when any was inconclusive, else 0)."""
    gate = gate or Gate()
    count = options.repeat or 0
    if count < 1:
        raise ConfigError(f"--repeat {count}: give at least 1")
    if options.require is not None and not 1 <= options.require <= count:
        raise ConfigError(f"--require {options.require}: give K from 1 to --repeat {count}")
    if not agent:
        raise ConfigError("--repeat: only with an agent (--agent, or agent = ... in the jury file)")
    if options.resume:
        raise ConfigError("--repeat: give the same --out again to resume the repeats")
    out = run_folder(options.out)
    runs = []
    for index, path in enumerate(repeat_dirs(out, count), start=1):
        said.status(f"repeat {index} of {count}: {path}")
        path.parent.mkdir(parents=True, exist_ok=True)
        # Each repeat's reports stay in its own directory: the copies asked for are the
        # repeats' as a whole (below), never the last repeat's overwriting the others'.
        one = options.replace(
            repeat=None,
            require=None,
            out=str(path),
            in_repeat=True,
            junit=None,
            html=None,
            json=None,
        )
        try:
            runs.append(await run_one(one))
        except JurorUnusable as exc:
            raise _unusable_after(exc, runs) from None
    stability = case_stability(repeat_dirs(out, count), gate, options.require)
    stability["degraded"] = _degraded(runs)
    stability["cost"] = total_cost(runs)
    text = json.dumps(stability, indent=2, ensure_ascii=False) + "\n"
    write_atomic(out / STABILITY, text)
    written = _copies(options, out, stability, gate, text, said)
    lines = stability_lines(stability, out, gate, written)
    return Run.repeated(out, runs, stability, lines, said)


def _unusable_after(stopped: JurorUnusable, runs: Sequence[Run]) -> JurorUnusable:
    """A juror whose first call in a repeat failed for good, with the fix for what is known:
    when its model gave valid votes in an earlier repeat, its base URL and model name were
    right then (the single run's fix would say to check them), so the server changed since."""
    worked = [
        number
        for number, run in enumerate(runs, start=1)
        if run.finished
        and any(
            juror.model == stopped.model and run.summary.jurors[juror.id].valid
            for juror in run.panel.jurors
            if juror.id in run.summary.jurors
        )
    ]
    if not worked:
        return stopped
    fix = (
        f"{stopped.model} gave valid votes at this URL in repeat"
        f"{'s' * (len(worked) != 1)} {', '.join(map(str, worked))} of this run of repeats, "
        "so its base URL and model name were right then: the server changed since (stopped, "
        "restarted without the model, a limit reached); check what it serves now, then give "
        "the same --out again to resume the repeats"
    )
    return JurorUnusable(
        stopped.model, stopped.endpoint, stopped.error, fix, attempts=stopped.attempts
    )


def _degraded(runs: Sequence[Run]) -> dict[str, Any]:
    """What degraded in the repeats (FAKE, OFFLINE, judge errors, families lost), from the
    summaries each repeat's own reports were written from: said once, with its repeats."""
    from ..report._repeats_lost import degraded

    return degraded({n: run.summary for n, run in enumerate(runs, start=1) if run.finished})


def _copies(
    options: RunOptions,
    out: Path,
    stability: dict[str, Any],
    gate: Gate,
    text: str,
    said: Notices,
) -> list[Path]:
    """The reports asked for of a run of repeats: ``--junit`` the repeats' JUnit (each case's
    verdict by the rule, its k/N), ``--json`` the stability; ``--html`` has no page of the
    repeats as a whole, and says where each repeat's is."""
    from io import StringIO

    from ..report._junit import write_repeats_junit

    written = []
    if options.html:  # said first: the repeats' JUnit names it with the repeats' warnings
        said.warning(
            f"--html {options.html} with --repeat: not written; each repeat's HTML report is "
            f"its own ({out / 'repeat-1' / 'report.html'} ...), and each case's k/N is in "
            f"{out / STABILITY}"
        )
    if options.junit:
        junit = StringIO()
        write_repeats_junit(junit, stability, gate, said.warnings)
        written.append(_write(Path(options.junit), junit.getvalue()))
    if options.json:
        written.append(_write(Path(options.json), text))
    return written


def _write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    write_atomic(path, text)
    return path


def repeats_of(options: RunOptions, panel: Panel) -> RunOptions:
    """The options with the jury file's ``[gate] repeats`` and ``require`` where the command
    line gives none (not for a repeat itself)."""
    if options.in_repeat:
        return options
    repeat = options.repeat if options.repeat is not None else panel.gate.repeats
    require = options.require if options.require is not None else panel.gate.require
    if require is not None and repeat is None:
        raise ConfigError(
            f"--require {require}: only with --repeat N (or [gate] repeats = N): K of N answers"
        )
    return options.replace(repeat=repeat, require=require)


def _by_rule(passed: int, inconclusive: int, require: int) -> str:
    if passed >= require:
        return "PASS"
    return "FAIL" if passed + inconclusive < require else "INCONCLUSIVE"


def case_stability(
    runs: list[Path], gate: Gate | None = None, require: int | None = None
) -> dict[str, Any]:
    """Per case: PASS count of N with its interval, each repeat's verdict, whether it is
    flaky, the distinct answers, and with `require` its verdict by the rule; with `require`,
    the gate's decision on those verdicts (``rule``)."""
    from ..report._summary import CategoryStats
    from ..report._uncertainty import decision_json, gate_outcome, interval_json

    gate = gate or Gate()
    verdicts: dict[str, list[str]] = {}
    categories: dict[str, str | None] = {}
    answers: dict[str, list[str | None]] = {}
    for run in runs:
        for verdict in read_verdicts(run):
            verdicts.setdefault(verdict.case_id, []).append(verdict.verdict.value)
            categories[verdict.case_id] = verdict.category
        for case in read_cases(run):
            answers.setdefault(case.id, []).append(case.answer)
    cases: dict[str, dict[str, Any]] = {}
    for case_id, seen in sorted(verdicts.items()):
        distinct = list(dict.fromkeys(answers.get(case_id, [])))
        passed, failed = seen.count("PASS"), seen.count("FAIL")
        interval = CategoryStats(total=len(seen), passed=passed).interval(gate)
        cases[case_id] = {
            "category": categories[case_id],
            "passed": passed,
            "repeats": len(seen),
            "verdicts": seen,
            "interval": interval_json(interval),
            "flaky": passed > 0 and failed > 0,
            "answers": distinct if len(distinct) > 1 else [],
        }
        if require is not None:
            cases[case_id]["verdict"] = _by_rule(passed, seen.count("INCONCLUSIVE"), require)
    stable = sum(1 for c in cases.values() if c["passed"] in (0, c["repeats"]))
    found: dict[str, Any] = {
        "repeats": len(runs),
        "cases": len(cases),
        "stable": stable,
        "flaky": sum(1 for c in cases.values() if c["flaky"]),
        "by_case": cases,
    }
    if require is not None:
        ruled = [c["verdict"] for c in cases.values()]
        counts = {v: ruled.count(v) for v in ("PASS", "FAIL", "INCONCLUSIVE")}
        decided = gate_outcome(counts["PASS"], counts["FAIL"], counts["INCONCLUSIVE"], gate)
        found["rule"] = {
            "require": require,
            "repeats": len(runs),
            "passed": counts["PASS"],
            "failed": counts["FAIL"],
            "inconclusive": counts["INCONCLUSIVE"],
            "pass_rate_interval": interval_json(decided.interval),
            "gate_decision": decision_json(decided),
            "exit_code": decided.code,
        }
    return found


def stability_lines(
    stability: dict[str, Any], out: Path, gate: Gate | None = None, written: Sequence[Path] = ()
) -> list[str]:
    """What the terminal says of the repeats' stability (all of it is in stability.json), and
    where the reports asked for are (`written`), the gate's line last."""
    from ..report._juror_rows import cost_text
    from ..report._repeats_lost import degraded_lines
    from ..report._uncertainty import gate_outcome, interval_heading

    gate = gate or Gate()
    count = stability["repeats"]
    by_case: dict[str, dict[str, Any]] = stability["by_case"]
    rule = stability.get("rule")
    unstable = {
        case_id
        for case_id, c in by_case.items()
        if c["passed"] not in (0, c["repeats"]) or c["answers"]
    }
    lines = [
        "",
        f"Stability over {count} repeat(s): {stability['stable']} of {stability['cases']} "
        f"case(s) gave the same verdict every time; {len(unstable)} flaky or answered "
        f"differently (all in {out / STABILITY})",
    ]
    shown = [
        case_id
        for case_id, c in by_case.items()
        if len(by_case) <= EVERY_CASE or case_id in unstable or c.get("verdict", "PASS") != "PASS"
    ]
    width = max([4, *map(len, shown)])
    heading = interval_heading(gate)
    band_width = max(len(heading), 13)
    lines.append(
        f"  {'case':<{width}}  {'passed':>6}  {heading:<{band_width}}  verdicts"
        + ("  (by the rule)" if rule else "")
    )
    for case_id in shown[:SHOWN] if len(shown) > EVERY_CASE else shown:
        c = by_case[case_id]
        low, high = c["interval"]["low"], c["interval"]["high"]
        band = "-" if low is None else f"{100 * low:.1f}–{100 * high:.1f}%"
        said = " ".join(c["verdicts"]) + (f"  -> {c['verdict']}" if rule else "")
        flaky = "  flaky" if c["flaky"] else ""
        lines.append(
            f"  {case_id:<{width}}  {c['passed']:>3}/{c['repeats']:<2}  {band:<{band_width}}  "
            f"{said}{flaky}"
        )
        if case_id in unstable:
            for answer in c["answers"]:
                text = " ".join((answer or "(no answer)").split())
                more = "…" if len(text) > ANSWER_CHARS else ""
                lines.append(f"      answer: {text[:ANSWER_CHARS]}{more}")
    if len(shown) > EVERY_CASE and len(shown) > SHOWN:
        lines.append(f"  … and {len(shown) - SHOWN} more")
    flipped = [f"{i} ({c['passed']}/{c['repeats']})" for i, c in by_case.items() if c["flaky"]]
    lines.append(
        "Flaky (PASS and FAIL among its repeats): "
        + (", ".join(flipped[:SHOWN]) or "none")
        + (f", … and {len(flipped) - SHOWN} more" if len(flipped) > SHOWN else "")
    )
    if rule is None:
        # What degraded in the repeats, said where the single run says it: before the end.
        lines += degraded_lines(stability)
        lines += [f"Report written to {path}" for path in written]
        lines.append(
            f"The repeats cost {cost_text(stability.get('cost'))}; the exit code is the worst "
            f"repeat's; --require K decides each case by K of its {count} answers passing."
        )
        return lines
    failed = [
        f"{i} ({c['passed']}/{c['repeats']})" for i, c in by_case.items() if c["verdict"] == "FAIL"
    ]
    lines.append(
        f"Failed by the rule (fewer than {rule['require']} of {count} passed): "
        + (", ".join(failed[:SHOWN]) or "none")
        + (f", … and {len(failed) - SHOWN} more" if len(failed) > SHOWN else "")
    )
    lines += degraded_lines(stability)
    lines += [f"Report written to {path}" for path in written]
    decided = gate_outcome(rule["passed"], rule["failed"], rule["inconclusive"], gate)
    if decided.why():
        lines.append(str(decided.why()))
    word = {0: "PASSED", 1: "FAILED", 3: "INCONCLUSIVE"}[decided.code]
    lines.append(
        f"Gate {word} by the rule (a case passes when at least {rule['require']} of its "
        f"{count} answers pass)  {rule['passed']} passed, {rule['failed']} failed, "
        f"{rule['inconclusive']} inconclusive of {stability['cases']}  ·  pass rate "
        f"{decided.rate_text()} ({decided.bar_text()})  ·  cost "
        f"{cost_text(stability.get('cost'))}  ·  exit {decided.code}"
    )
    return lines
