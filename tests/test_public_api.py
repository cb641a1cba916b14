"""The public API is small and pinned: a change to it is a deliberate, reviewed change."""

from __future__ import annotations

import subprocess
import sys

import jury
import jury.adapters
import jury.testing

#: What an evaluation's user needs: the engine, panels, cases, verdicts, the errors to catch.
PUBLIC = {
    "AccountError",
    # What `measure_agreement` gives: the summary, the labellers' agreement, the gate.
    "Agreement",
    "AuthenticationError",
    "Ballot",
    "CallStats",
    # What `calibrate` gives: the gold checks, the labels' agreement and drift, the exit code.
    "Calibration",
    "Case",
    "CaseFileError",
    "CaseVerdict",
    "CheckOutcome",
    "CheckResult",
    "ConfigError",
    "Dissent",
    # A case's expected tool call (name and arguments), as `ToolCall` is a made one.
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
    # How many cases a decision needs (`jury plan`): `jury.plan` returns one.
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
    # The commands that have a library meaning, each a function the command is a shell over.
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
}

#: The seams: what an adapter, a rubric kind or an agent is built from (and nothing else).
ADAPTERS = {
    "Agent",
    "AgentError",
    "AgentReply",
    "AgentUnreachable",
    "BatchAPI",
    "BatchLimits",
    "BatchOutcome",
    "BatchStatus",
    "Decision",
    # Where a judge model's calls go and how (`JudgeModel.endpoint`): part of the cache key.
    "Endpoint",
    # The header by which the fake provider server says it is one (`JudgeReply.fake`).
    "FAKE_HEADER",
    "Finish",
    # A case's image, carried by a `Message` to the judges whose models take images.
    "Image",
    "InvalidReply",
    "InvalidRequestError",
    "JudgeModel",
    "JudgeReply",
    "JudgeRequest",
    "Judgement",
    "Level",
    "Message",
    "Metric",
    "ModelProfile",
    "ModelStatus",
    "Preference",
    "Prompt",
    "RateLimitedError",
    "Rating",
    "ReferenceJudge",
    "Rubric",
    "Score",
    "SettingRefusedError",
    "Strategy",
    "TransientError",
    "UnreachableError",
    "TOP_LOGPROBS",
    "TokenLogprob",
    "Usage",
    "batch_price",
    "case_fence",
    "family_of",
    "images_refusal",
    "parse_reply",
    "price",
    "pydantic_reason",
    "register_provider",
    "register_rubric_kind",
    "register_strategy",
    "reply_from",
    "single",
    "validate_model",
}

#: Test helpers shipped as product: the fake provider server, scripted judges, clocks.
TESTING = {
    "Clock",
    "Confident",
    "FakeClock",
    "FakeProviderServer",
    "Fault",
    "LoggedRequest",
    "ScriptReply",
    "ScriptedModel",
    "retry_after_date",
    "valid_reply",
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


def test_the_testing_helpers_are_pinned() -> None:
    assert set(jury.testing.__all__) == TESTING
    for name in jury.testing.__all__:
        assert hasattr(jury.testing, name), name


def test_each_public_name_has_one_front_door() -> None:
    assert set(jury.__all__) & set(jury.adapters.__all__) == set()
    assert set(jury.__all__) & set(jury.testing.__all__) == set()
    assert set(jury.adapters.__all__) & set(jury.testing.__all__) == set()


def test_every_class_of_the_front_door_says_where_to_import_it_from() -> None:
    for module in (jury, jury.adapters):
        for name in module.__all__:
            value = getattr(module, name)
            if isinstance(value, type):
                assert value.__module__ == module.__name__, name
    assert "jury.CaseVerdict" in repr(jury.CaseVerdict)


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


def _public_modules() -> list[str]:
    """`jury` and every module of it whose dotted name has no part starting with ``_``."""
    import pkgutil

    import jury.providers
    import jury.rubrics

    found = ["jury", "jury.providers", "jury.rubrics"]
    # jury.providers and jury.rubrics are folders of their own that the build maps in: walked
    # from their own paths, as jury/ does not hold them.
    for package in (jury, jury.providers, jury.rubrics):
        found += [
            module.name
            for module in pkgutil.walk_packages(package.__path__, f"{package.__name__}.")
            if not any(part.startswith("_") for part in module.name.split(".")[1:])
        ]
    return found


def test_every_public_module_says_what_of_it_is_public() -> None:
    # An `__all__` in each (empty where nothing is): the walk below checks what it lists.
    import importlib

    modules = _public_modules()
    assert {"jury.providers", "jury.rubrics", "jury.providers.openai", "jury.engine"} <= set(
        modules
    )
    silent = [name for name in modules if not hasattr(importlib.import_module(name), "__all__")]
    assert silent == []


def test_every_public_name_prints_as_the_door_it_is_imported_from() -> None:
    # One door per name: `jury.X` or `jury.<public module>.X`, never a private module.
    import importlib
    import inspect

    wrong = {}
    for name in _public_modules():
        module = importlib.import_module(name)
        for exported in getattr(module, "__all__", ()):
            value = getattr(module, exported)
            public = inspect.isclass(value) or inspect.isfunction(value)
            if public and value.__module__ not in (name, "jury"):
                wrong[f"{name}.{exported}"] = value.__module__
    assert wrong == {}


def test_the_case_readers_have_one_home() -> None:
    import jury.cases

    for name in ("iter_cases", "load_cases", "validate_cases"):
        assert name in jury.__all__
        assert not hasattr(jury.cases, name)
