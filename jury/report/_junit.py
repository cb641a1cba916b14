"""The JUnit XML report: one test case per case, for CI systems that read test results.

A FAIL is a ``<failure>``; an INCONCLUSIVE case is an ``<error>`` (the judges could not
decide, which is not the agent's failure); scores and each juror's verdict are properties.
One ``<testsuite>`` per category; cases that name a split ("dev", "heldout") are grouped by
split first (a suite named ``dev/policy``), and each says its split as a property. A juror
answered by `jury.testing`'s fake provider server is named FAKE (a ``fake`` property, and in
each vote's line). What the judges lost (a juror's missed cases and errors, cases decided
without a family) is a suite of its own, "aiojury judge errors", with zero tests: its
properties and system-err say it where CI shows a suite's output. The gate's decision and the
pass rate with its interval (the run's, each category's) are the properties of a suite "aiojury
gate", with zero tests; each suite of cases carries its own pass rate and interval. The
repeats' JUnit file (``--repeat N``) says what degraded in its repeats, each with the repeats
it happened in, in a suite "aiojury degraded".
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from collections.abc import Mapping, Sequence
from datetime import UTC, datetime
from itertools import groupby
from typing import TYPE_CHECKING, Any, TextIO

from .._verdict import CaseVerdict, Verdict
from ..panel._panel import Gate
from ._index import VerdictIndex
from ._judge_errors import error_line, family_lines, judge_error_lines, lost
from ._lines import offline_line
from ._losses import JudgeError
from ._summary import RunSummary
from ._uncertainty import INCONCLUSIVE_AS, gate_outcome, pass_rate_interval
from ._views import confidence_source, probability_text

if TYPE_CHECKING:
    from ..decide._proportion import Interval

__all__ = ["write_junit", "write_repeats_junit"]

# Characters XML 1.0 cannot carry, even escaped: a judge's reply may contain them.
_NOT_XML = re.compile("[^\t\n\r\x20-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")


def _clean(text: str) -> str:
    return _NOT_XML.sub("\ufffd", text)


def _property(parent: ET.Element, name: str, value: object) -> None:
    ET.SubElement(parent, "property", name=_clean(name), value=_clean(str(value)))


def _details(verdict: CaseVerdict) -> str:
    lines = list(verdict.reasons)
    if verdict.disagreement:
        lines.append("disagreement: " + "; ".join(verdict.disagreement_reasons))
        lines += [f"  {d.juror} ({d.verdict or '-'}): {d.reason}" for d in verdict.dissent]
    for vote in verdict.votes:
        scores = ", ".join(f"{k} {v}" for k, v in vote.scores.items())
        said = vote.verdict.value if vote.verdict else vote.status.value
        sure = (
            f" (p {probability_text(vote.probability)}, {confidence_source(vote)})"
            if vote.probability is not None
            else ""
        )
        juror = f"{vote.juror} (FAKE)" if vote.fake else vote.juror
        lines.append(f"{juror}: {said}{sure}" + (f" [{scores}]" if scores else ""))
        if vote.reason or vote.error:
            lines.append(f"  {vote.reason or vote.error}")
    return "\n".join(lines)


def _testcase(verdict: CaseVerdict) -> ET.Element:
    case = ET.Element(
        "testcase",
        name=_clean(verdict.case_id),
        classname=_clean(f"jury.{verdict.category or 'uncategorised'}"),
        time=f"{verdict.duration_s:.3f}",
    )
    properties = ET.SubElement(case, "properties")
    _property(properties, "verdict", verdict.verdict.value)
    if verdict.split is not None:
        _property(properties, "split", verdict.split)
    if verdict.score is not None:
        _property(properties, "score", f"{verdict.score:.4g}")
    for name, result in verdict.metrics.items():
        _property(properties, f"metric.{name}", result.value if result.value is not None else "")
    for vote in verdict.votes:
        said = vote.verdict.value if vote.verdict else vote.status.value
        _property(properties, f"juror.{vote.juror}", said)
        for name, value in vote.scores.items():
            _property(properties, f"juror.{vote.juror}.{name}", value)
    for check in verdict.checks:
        _property(properties, f"check.{check.name}", check.outcome.value)
    fake = [vote.juror for vote in verdict.votes if vote.fake]
    if fake:
        # Replies of jury.testing's fake provider server, not real judges': said where CI shows.
        _property(properties, "fake", ", ".join(fake))
    message = _clean("; ".join(verdict.reasons))
    if verdict.verdict is Verdict.FAIL:
        element = ET.SubElement(case, "failure", message=message, type="FAIL")
        element.text = _clean(_details(verdict))
    elif verdict.verdict is Verdict.INCONCLUSIVE:
        element = ET.SubElement(case, "error", message=message, type="INCONCLUSIVE")
        element.text = _clean(_details(verdict))
    else:
        out = ET.SubElement(case, "system-out")
        out.text = _clean(_details(verdict))
    return case


def _open_tag(element: ET.Element) -> str:
    return ET.tostring(element, encoding="unicode").removesuffix(" />") + ">"


def _run_suite(summary: RunSummary) -> ET.Element | None:
    """A suite of its own for what the run's judges lost (CI shows properties and system-err
    of a suite): each juror that missed cases, how many, its errors, and the cases decided
    without a family of the panel. None when nothing was lost."""
    lines = [*judge_error_lines(summary), *family_lines(summary)]
    if not lines:
        return None
    suite = ET.Element(
        "testsuite", name="aiojury judge errors", tests="0", failures="0", errors="0", skipped="0"
    )
    properties = ET.SubElement(suite, "properties")
    for juror, stats in lost(summary):
        _property(properties, f"judge_errors.{juror}.missed", stats.missed)
        for error in stats.errors.values():
            _property(properties, f"judge_errors.{juror}.{error.kind}", error_line(error))
    for family, loss in summary.decided_without.items():
        _property(properties, f"decided_without.{family}", loss.cases)
    err = ET.SubElement(suite, "system-err")
    err.text = _clean("\n".join(lines))
    return suite


def _interval_properties(parent: ET.Element, prefix: str, interval: Interval) -> None:
    for key, value in (
        ("", interval.estimate),
        (".low", interval.low),
        (".high", interval.high),
    ):
        _property(parent, f"{prefix}{key}", "" if value is None else f"{value:.4f}")


def _gate_suite(summary: RunSummary, gate: Gate, warnings: Sequence[str] = ()) -> ET.Element:
    """A suite of its own, with zero tests, for the gate's decision and the pass rate's
    interval (the run's and each category's), and the run's warnings, where CI shows a
    suite's properties and output."""
    decided = summary.gate_outcome(gate)
    suite = ET.Element(
        "testsuite", name="aiojury gate", tests="0", failures="0", errors="0", skipped="0"
    )
    properties = ET.SubElement(suite, "properties")
    _property(properties, "exit_code", decided.code)
    _property(properties, "gate.min_pass_rate", gate.min_pass_rate)
    _property(properties, "gate.on", gate.on)
    _interval_properties(properties, "pass_rate", decided.interval)
    _property(properties, "pass_rate.method", gate.interval)
    _property(properties, "pass_rate.level", gate.level)
    _property(properties, "pass_rate.inconclusive_counted_as", INCONCLUSIVE_AS)
    if decided.further is not None:
        _property(properties, "gate.further_cases", decided.further)
    if summary.not_judged:
        _property(properties, "not_judged", summary.not_judged)
    for name, stats in summary.by_category.items():
        _interval_properties(properties, f"category.{name}.pass_rate", stats.interval(gate))
    # Offline reference jurors are not LLM judges: CI's reader is told, as the page's is.
    offline = summary.offline_jurors
    if offline:
        _property(properties, "offline", ", ".join(offline))
    out = ET.SubElement(suite, "system-out")
    said = (
        f"pass rate {decided.rate_text()} ({decided.bar_text()})",
        decided.why(),
        offline_line(offline) if offline else "",
    )
    out.text = _clean("\n".join([*filter(None, said), *_warned(properties, warnings)]))
    return suite


def _warned(properties: ET.Element, warnings: Sequence[str]) -> list[str]:
    """The run's warnings as properties (``warning.N``), and as the lines of a suite's output."""
    for number, warning in enumerate(warnings, start=1):
        _property(properties, f"warning.{number}", warning)
    return [f"warning: {warning}" for warning in warnings]


def _repeats_lost_suite(degraded: Mapping[str, Any]) -> ET.Element | None:
    """What degraded in a run's repeats (`jury.report._repeats_lost.degraded`), as the single
    run's "aiojury gate" and "aiojury judge errors" suites say it (in one suite, "aiojury
    degraded"): FAKE and OFFLINE jurors, each juror's missed cases and errors, the families
    decided without, each with the repeats it happened in (properties), and its lines in
    system-err. None when nothing degraded."""
    if not degraded.get("lines"):
        return None
    suite = ET.Element(
        "testsuite", name="aiojury degraded", tests="0", failures="0", errors="0", skipped="0"
    )
    properties = ET.SubElement(suite, "properties")
    for key in ("fake", "offline"):
        if key in degraded:
            _property(properties, key, ", ".join(degraded[key]["jurors"]))
            _property(properties, f"{key}.repeats", _repeats(degraded[key]["repeats"]))
    for juror, found in degraded.get("judge_errors", {}).items():
        _property(properties, f"judge_errors.{juror}.missed", found["missed"])
        _property(properties, f"judge_errors.{juror}.repeats", _repeats(found["repeats"]))
        for error in found["errors"]:
            said = error_line(JudgeError(**{k: error[k] for k in JudgeError.__slots__}))
            _property(properties, f"judge_errors.{juror}.{error['kind']}", said)
    for family, loss in degraded.get("decided_without", {}).items():
        _property(properties, f"decided_without.{family}", loss["cases"])
        _property(properties, f"decided_without.{family}.repeats", _repeats(loss["repeats"]))
    ET.SubElement(suite, "system-err").text = _clean("\n".join(degraded["lines"]))
    return suite


def _repeats(numbers: Sequence[int]) -> str:
    return " ".join(map(str, numbers))


def write_junit(
    out: TextIO,
    index: VerdictIndex,
    summary: RunSummary,
    *,
    name: str,
    gate: Gate | None = None,
    warnings: Sequence[str] = (),
) -> None:
    """The JUnit document of a run to `out`, one test case at a time (verdicts are read from
    `index` as each is written); the run's `warnings` are in the "aiojury gate" suite."""
    gate = gate or Gate()
    stamp = datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%S")
    root = ET.Element(
        "testsuites",
        name=_clean(name),
        tests=str(summary.total),
        failures=str(summary.failed),
        errors=str(summary.inconclusive),
        time=f"{sum(e.duration_s for e in index.entries):.3f}",
    )
    out.write("<?xml version='1.0' encoding='utf-8'?>\n" + _open_tag(root) + "\n")
    for suite_name, group in groupby(index.by_suite(), key=lambda e: e.suite):
        members = list(group)
        suite = ET.Element(
            "testsuite",
            name=_clean(suite_name),
            tests=str(len(members)),
            failures=str(sum(e.verdict is Verdict.FAIL for e in members)),
            errors=str(sum(e.verdict is Verdict.INCONCLUSIVE for e in members)),
            skipped="0",
            time=f"{sum(e.duration_s for e in members):.3f}",
            timestamp=stamp,
        )
        passed = sum(e.verdict is Verdict.PASS for e in members)
        properties = ET.Element("properties")
        rate = pass_rate_interval(passed, len(members), gate)
        _interval_properties(properties, "pass_rate", rate)
        ET.indent(properties, level=2)
        out.write("  " + _open_tag(suite) + "\n")
        out.write("    " + ET.tostring(properties, encoding="unicode").rstrip() + "\n")
        for verdict in index.verdicts(members):
            case = _testcase(verdict)
            ET.indent(case, level=2)
            out.write("    " + ET.tostring(case, encoding="unicode").rstrip() + "\n")
        out.write("  </testsuite>\n")
    gate_suite = _gate_suite(summary, gate, warnings)
    ET.indent(gate_suite, level=1)
    out.write("  " + ET.tostring(gate_suite, encoding="unicode").rstrip() + "\n")
    lost_suite = _run_suite(summary)
    if lost_suite is not None:
        ET.indent(lost_suite, level=1)
        out.write("  " + ET.tostring(lost_suite, encoding="unicode").rstrip() + "\n")
    out.write("</testsuites>\n")


def write_repeats_junit(
    out: TextIO,
    stability: Mapping[str, Any],
    gate: Gate | None = None,
    warnings: Sequence[str] = (),
) -> None:
    """The JUnit document of a run of repeats (``jury run --repeat N``): one test case per
    case, its verdict by the rule with ``--require K`` (else FAIL when any repeat failed,
    INCONCLUSIVE when none failed and any was), its k/N with the interval and each repeat's
    verdict as properties; the gate's decision on the rule's verdicts in "aiojury gate"; what
    the repeats warned of in "aiojury warnings"."""
    gate = gate or Gate()
    rule: Mapping[str, Any] | None = stability.get("rule")
    count = stability["repeats"]
    cases: dict[str, Any] = stability["by_case"]

    def verdict_of(case: Mapping[str, Any]) -> str:
        seen = case["verdicts"]
        if rule is not None:
            return str(case["verdict"])
        return next((v for v in ("FAIL", "INCONCLUSIVE") if v in seen), "PASS")

    verdicts = {case_id: verdict_of(case) for case_id, case in cases.items()}
    root = ET.Element(
        "testsuites",
        name=f"aiojury {count} repeats",
        tests=str(len(cases)),
        failures=str(sum(v == "FAIL" for v in verdicts.values())),
        errors=str(sum(v == "INCONCLUSIVE" for v in verdicts.values())),
    )

    def category(item: tuple[str, Mapping[str, Any]]) -> str:
        return str(item[1]["category"] or "uncategorised")

    for name, group in groupby(sorted(cases.items(), key=category), key=category):
        members = list(group)
        suite = ET.SubElement(
            root,
            "testsuite",
            name=_clean(name),
            tests=str(len(members)),
            failures=str(sum(verdicts[i] == "FAIL" for i, _ in members)),
            errors=str(sum(verdicts[i] == "INCONCLUSIVE" for i, _ in members)),
            skipped="0",
        )
        for case_id, case in members:
            element = ET.SubElement(suite, "testcase", name=_clean(case_id))
            element.set("classname", _clean(f"jury.{name}"))
            properties = ET.SubElement(element, "properties")
            _property(properties, "verdict", verdicts[case_id])
            _property(properties, "passed", f"{case['passed']}/{case['repeats']}")
            interval = case["interval"]
            for key in ("low", "high"):
                value = interval[key]
                _property(properties, f"pass_rate.{key}", "" if value is None else f"{value:.4f}")
            _property(properties, "verdicts", " ".join(case["verdicts"]))
            _property(properties, "flaky", str(case["flaky"]).lower())
            said = f"{case['passed']} of {case['repeats']} repeats passed" + (
                f"; at least {rule['require']} must" if rule is not None else ""
            )
            if verdicts[case_id] == "FAIL":
                ET.SubElement(element, "failure", message=said, type="FAIL")
            elif verdicts[case_id] == "INCONCLUSIVE":
                ET.SubElement(element, "error", message=said, type="INCONCLUSIVE")
    if rule is not None:
        decided = gate_outcome(rule["passed"], rule["failed"], rule["inconclusive"], gate)
        suite = ET.SubElement(
            root, "testsuite", name="aiojury gate", tests="0", failures="0", errors="0"
        )
        properties = ET.SubElement(suite, "properties")
        _property(properties, "exit_code", decided.code)
        _property(properties, "gate.require", f"{rule['require']} of {count}")
        _property(properties, "gate.min_pass_rate", gate.min_pass_rate)
        _property(properties, "gate.on", gate.on)
        _interval_properties(properties, "pass_rate", decided.interval)
        _property(properties, "pass_rate.method", gate.interval)
        _property(properties, "pass_rate.level", gate.level)
        if decided.further is not None:
            _property(properties, "gate.further_cases", decided.further)
    lost_suite = _repeats_lost_suite(stability.get("degraded", {}))
    if lost_suite is not None:
        root.append(lost_suite)
    if warnings:
        suite = ET.SubElement(
            root, "testsuite", name="aiojury warnings", tests="0", failures="0", errors="0"
        )
        lines = _warned(ET.SubElement(suite, "properties"), warnings)
        ET.SubElement(suite, "system-out").text = _clean("\n".join(lines))
    ET.indent(root)
    out.write("<?xml version='1.0' encoding='utf-8'?>\n")
    out.write(ET.tostring(root, encoding="unicode") + "\n")
