"""What a judged test comes to besides a pass: the jury's verdict was not the one asserted
(`JuryAssertionError`, a failure), or there is no verdict (`JudgeUnavailable`,
`JuryInconclusive`: outcomes of their own, never a failure of the code under test)."""

from __future__ import annotations

from .._verdict import CaseVerdict, Verdict

__all__ = ["JudgeUnavailable", "JuryAssertionError", "JuryInconclusive", "conclusive", "explain"]


class JudgeUnavailable(Exception):
    """The judges could not give a verdict: not the code under test's failure."""


class JuryInconclusive(JudgeUnavailable):
    """The judges voted, and their votes leave the case INCONCLUSIVE (a tie the panel does not
    break, too little confidence): no verdict, so not the answer's failure either. Asserting a
    verdict on it is the outcome ``inconclusive``, handled as an unavailable judge is
    (``--jury-on-unavailable``), as `jury run` keeps it apart (exit 3) from a failure."""


class JuryAssertionError(AssertionError):
    """The jury's verdict was not the one the test expected."""

    def __init__(self, message: str, verdict: CaseVerdict) -> None:
        super().__init__(message)
        self.verdict = verdict


def explain(verdict: CaseVerdict) -> str:
    """The verdict as a person reads it: reasons, scores, each juror, and the dissent."""
    lines = [f"case {verdict.case_id}: the jury said {verdict.verdict.value}"]
    lines += [f"  {reason}" for reason in verdict.reasons]
    if verdict.metrics:
        scores = ", ".join(
            f"{name} {result.value if result.value is not None else '?'}"
            for name, result in verdict.metrics.items()
        )
        lines.append(f"  scores: {scores}")
    for check in verdict.checks:
        lines.append(f"  check {check.name}: {check.outcome.value} {check.reason}".rstrip())
    lines.append("  jurors:")
    for vote in verdict.votes:
        said = vote.verdict.value if vote.verdict else vote.status.value
        scores = ", ".join(f"{k} {v}" for k, v in vote.scores.items())
        lines.append(f"    {vote.juror}: {said}" + (f" [{scores}]" if scores else ""))
        if vote.reason or vote.error:
            lines.append(f"      {vote.reason or vote.error}")
    if verdict.disagreement:
        lines.append("  disagreement: " + "; ".join(verdict.disagreement_reasons))
        for dissent in verdict.dissent:
            said = dissent.verdict.value if dissent.verdict else "-"
            lines.append(f"    dissent from {dissent.juror} ({said}): {dissent.reason}")
    return "\n".join(lines)


def conclusive(verdict: CaseVerdict) -> None:
    __tracebackhide__ = True
    if verdict.verdict is Verdict.INCONCLUSIVE:
        raise JuryInconclusive("no verdict to assert: " + explain(verdict))
