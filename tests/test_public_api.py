"""The public API is small and pinned: a change to it is a deliberate, reviewed change."""

from __future__ import annotations

import subprocess
import sys

import jury

PUBLIC = {
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
    "Panel",
    "Point",
    "Prompt",
    "ProviderError",
    "ProviderLimits",
    "RateLimitedError",
    "RetrySettings",
    "Rubric",
    "RubricError",
    "RunSummary",
    "ToolCall",
    "Trace",
    "TransientError",
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
}


def test_all_is_pinned() -> None:
    assert set(jury.__all__) == PUBLIC
    for name in jury.__all__:
        assert hasattr(jury, name), name


def test_import_jury_imports_no_provider_sdk() -> None:
    code = (
        "import sys, jury\n"
        "heavy = [m for m in sys.modules if m.split('.')[0] in "
        "('anthropic', 'openai', 'google', 'aiohttp', 'httpx', 'httpx2', 'rich', 'numpy')]\n"
        "print(','.join(sorted(heavy)))"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=60
    )
    assert done.stdout.strip() == ""
