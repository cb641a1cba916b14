"""aiojury: an async, multi-model LLM jury.

A panel of judges from different model families grades each case; every vote is validated;
votes combine into PASS, FAIL or INCONCLUSIVE; and a judge error is never a failure.

    import jury

    panel = jury.load_panel("jury.toml")
    async with jury.Jury(panel) as j:
        async for verdict in j.evaluate(jury.iter_cases("cases.jsonl")):
            print(verdict.case_id, verdict.verdict)

One case through the engine: `cases` (read into a `_case.Case`) -> `_judging` (the case
layer: checks from `checks/_suite`, prompts from the rubric in `rubrics/`, one task per
juror) -> `_votes` (the vote layer: re-asks, validation, fallback) -> `_calls` (the call
layer: cache, budget, limits, timeout, retry, price) -> `_decide` (aggregation and the
verdict) -> `_records` (the run directory). `Jury` (`_jury`) wires the layers; `_stream`
streams verdicts.
"""

from ._clock import Clock, FakeClock
from ._errors import (
    AccountError,
    AuthenticationError,
    CaseFileError,
    ConfigError,
    InvalidReply,
    InvalidRequestError,
    JuryError,
    JuryFileError,
    MissingCredentialError,
    ProviderError,
    QuotaExhaustedError,
    RateLimitedError,
    RubricError,
    TransientError,
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
from .adapters._model import JudgeModel
from .adapters._registry import family_of, load_rubric, register_provider, register_rubric_kind
from .adapters._request import JudgeReply, JudgeRequest, Message, Usage
from .adapters._rubric import Decision, Metric, Prompt, Rubric
from .cases import iter_cases, load_cases, validate_cases
from .cases._case import Case, Point, ToolCall, Trace
from .cases._seed_fields import MustFind
from .cases._turns import Turn
from .engine._jury import Jury, evaluate
from .engine._stream import VerdictStream
from .panel._defaults import default_panel
from .panel._panel import Gate, Juror, Panel, RetrySettings, load_panel
from .report._summary import RunSummary, summarize

__all__ = [
    "AccountError",
    "AuthenticationError",
    "Ballot",
    "CallStats",
    "Case",
    "CaseFileError",
    "CaseVerdict",
    "CheckOutcome",
    "CheckResult",
    "Clock",
    "ConfigError",
    "Decision",
    "Dissent",
    "FakeClock",
    "Gate",
    "InvalidReply",
    "InvalidRequestError",
    "JudgeModel",
    "JudgeReply",
    "JudgeRequest",
    "Juror",
    "Jury",
    "JuryError",
    "JuryFileError",
    "LineError",
    "Message",
    "Metric",
    "MetricResult",
    "MissingCredentialError",
    "MustFind",
    "Panel",
    "Point",
    "Prompt",
    "ProviderError",
    "ProviderLimits",
    "QuotaExhaustedError",
    "RateLimitedError",
    "RetrySettings",
    "Rubric",
    "RubricError",
    "RunSummary",
    "ToolCall",
    "Trace",
    "TransientError",
    "Turn",
    "Usage",
    "Verdict",
    "VerdictStream",
    "Vote",
    "VoteStatus",
    "__version__",
    "default_panel",
    "evaluate",
    "family_of",
    "iter_cases",
    "load_cases",
    "load_panel",
    "load_rubric",
    "register_provider",
    "register_rubric_kind",
    "summarize",
    "validate_cases",
]
