"""The public API is small and pinned: a change to it is a deliberate, reviewed change."""

from __future__ import annotations

import subprocess
import sys

import jury
import jury.adapters

PUBLIC = {
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
}


#: What a provider adapter or a rubric kind is built from (`jury.adapters`).
ADAPTERS = {
    # the judge-model seam
    "JudgeModel",
    "JudgeReply",
    "JudgeRequest",
    "Message",
    "ProviderLimits",
    "Usage",
    "Finish",
    "ModelStatus",
    "family_of",
    "price",
    "register_provider",
    # provider and rubric errors
    "AccountError",
    "Agent",
    "AgentError",
    "AgentReply",
    "AgentUnreachable",
    "reply_from",
    "AuthenticationError",
    "ConfigError",
    "InvalidReply",
    "InvalidRequestError",
    "MissingCredentialError",
    "ProviderError",
    "QuotaExhaustedError",
    "RateLimitedError",
    "RubricError",
    "TransientError",
    # the rubric seam and the values that cross it
    "Ballot",
    "Case",
    "Decision",
    "Level",
    "Metric",
    "MetricResult",
    "Point",
    "Prompt",
    "Rubric",
    "Score",
    "Turn",
    "Verdict",
    "case_fence",
    "register_rubric_kind",
    "single",
    # reading replies
    "parse_reply",
    "pydantic_reason",
    "validate_model",
    # reference replies (offline jurors)
    "Judgement",
    "Preference",
    "Rating",
    "ReferenceJudge",
    # provider batch APIs
    "BatchAPI",
    "BatchLimits",
    "BatchOutcome",
    "BatchStatus",
    "batch_price",
}


def test_all_is_pinned() -> None:
    assert set(jury.__all__) == PUBLIC
    for name in jury.__all__:
        assert hasattr(jury, name), name


def test_the_adapters_seam_is_pinned() -> None:
    assert set(jury.adapters.__all__) == ADAPTERS
    assert len(jury.adapters.__all__) == len(ADAPTERS)  # no name listed twice
    for name in jury.adapters.__all__:
        assert hasattr(jury.adapters, name), name
        # A name public in both places is one object, not a look-alike.
        if name in PUBLIC:
            assert getattr(jury.adapters, name) is getattr(jury, name), name


def test_the_trace_helpers_are_pinned() -> None:
    import jury.trace

    assert set(jury.trace.__all__) == {
        "Recording",
        "cited",
        "context",
        "current",
        "recording",
        "retrieved",
        "tool_call",
    }


def test_import_jury_and_its_adapters_seam_imports_no_provider_sdk() -> None:
    code = (
        "import sys, jury, jury.adapters\n"
        "heavy = [m for m in sys.modules if m.split('.')[0] in "
        "('anthropic', 'openai', 'google', 'aiohttp', 'httpx', 'httpx2', 'rich', 'numpy')]\n"
        "print(','.join(sorted(heavy)))"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=60
    )
    assert done.stdout.strip() == ""
