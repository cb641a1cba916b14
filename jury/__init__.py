"""aiojury: an async, multi-model LLM jury.

A panel of judges from different model families grades each case; every vote is validated;
votes combine into PASS, FAIL or INCONCLUSIVE; and a judge error is never a failure.

    import jury

    run = await jury.run("cases.jsonl", jury="jury.toml")   # what `jury run` does
    print(run.passed, run.exit_code, run.summary.pass_rate)

    panel = jury.load_panel("jury.toml")                     # one case at a time
    async with jury.Jury(panel) as j:
        async for verdict in j.evaluate(jury.iter_cases("cases.jsonl")):
            print(verdict.case_id, verdict.verdict)

The other commands with a library meaning are functions too: `jury.rescore`, `jury.merge`,
`jury.compare`, `jury.measure_agreement` and ``await jury.calibrate(...)``, each taking its
command's flags as options and giving what the command prints.

This is the front door for evaluating: the engine, panels, cases, verdicts and the errors a
caller may catch. What an adapter, a rubric kind or an agent is built from (the seams) is in
`jury.adapters`; test helpers (the fake provider server, scripted judges, clocks) in
`jury.testing`. The path of one case through the folders is in the README's Development
section.
"""

from ._errors import (
    AccountError,
    AuthenticationError,
    CaseFileError,
    ConfigError,
    JurorUnusable,
    JuryError,
    JuryFileError,
    MissingCredentialError,
    ProviderError,
    QuotaExhaustedError,
    RubricError,
)
from ._problems import LineError
from ._verdict import (
    Ballot,
    CallStats,
    CaseVerdict,
    CheckOutcome,
    CheckResult,
    Dissent,
    MetricResult,
    Verdict,
    Vote,
    VoteStatus,
)
from ._version import __version__
from .adapters._account import ProviderLimits
from .adapters._registry import load_rubric
from .cases._case import Case, ExpectedToolCall, Point, ToolCall, Trace
from .cases._load import iter_cases, load_cases, validate_cases
from .cases._seed_fields import MustFind
from .cases._turns import Turn
from .engine._jury import Jury, evaluate
from .engine._stream import VerdictStream
from .panel._defaults import default_panel
from .panel._panel import Gate, Juror, Panel, RetrySettings, load_panel
from .report._summary import RunSummary, summarize
from .runner._agreement import Agreement, measure_agreement
from .runner._calibrate import Calibration, calibrate
from .runner._compare import compare
from .runner._main import run
from .runner._merge import merge
from .runner._plan import Plan, plan
from .runner._rescore import rescore
from .runner._result import Run

__all__ = [
    "AccountError",
    "Agreement",
    "AuthenticationError",
    "Ballot",
    "Calibration",
    "CallStats",
    "Case",
    "CaseFileError",
    "CaseVerdict",
    "CheckOutcome",
    "CheckResult",
    "ConfigError",
    "Dissent",
    "ExpectedToolCall",
    "Gate",
    "Juror",
    "JurorUnusable",
    "Jury",
    "JuryError",
    "JuryFileError",
    "LineError",
    "MetricResult",
    "MissingCredentialError",
    "MustFind",
    "Panel",
    "Plan",
    "Point",
    "ProviderError",
    "ProviderLimits",
    "QuotaExhaustedError",
    "RetrySettings",
    "RubricError",
    "Run",
    "RunSummary",
    "ToolCall",
    "Trace",
    "Turn",
    "Verdict",
    "VerdictStream",
    "Vote",
    "VoteStatus",
    "__version__",
    "calibrate",
    "compare",
    "default_panel",
    "evaluate",
    "iter_cases",
    "load_cases",
    "load_panel",
    "load_rubric",
    "measure_agreement",
    "merge",
    "plan",
    "rescore",
    "run",
    "summarize",
    "validate_cases",
]


# Each exported class and function says where to import it from: reprs, tracebacks and docs
# read ``jury.CaseVerdict``, not the private module that defines it (as httpx does).
for _name in __all__:
    if isinstance(_value := globals()[_name], type) or callable(_value):
        _value.__module__ = __name__
del _name, _value
