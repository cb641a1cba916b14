"""Batch mode stops with exit 2 on every account stop that stops online mode (issue 34): at
the batch's create (a key refused, no credit, a spend limit, an organization on hold, Gemini's
prepaid credits used up) and inside a batch (a request's billing error or used-up quota),
each in its provider's words as the strict fake gives them. Nothing paid is lost: the run
resumed once the account is fixed finishes, asking again only what the account refused."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from batch_helpers import (
    ANTHROPIC,
    GOOGLE,
    OPENAI,
    make_cases,
    model_id,
    request_for,
    script_jurors,
    write_cases,
)

from jury import AccountError, ProviderError, QuotaExhaustedError, Verdict
from jury.adapters import RateLimitedError, TransientError
from jury.adapters._registry import resolve_model
from jury.cli import main
from jury.runs._records import read_verdicts
from jury.testing import FakeProviderServer, Fault
from jury.testing._batches import BATCHES
from served import ServerThread

KEY = "sk-batch-account-stop-key"
#: A key the account refuses, in place of a fault.
REFUSED = "refused key"

#: (juror, fault, whether the stop can be a batched request's result, words of the output).
STOPS: dict[str, tuple[str, Fault | str, bool, str]] = {
    "openai key refused": (OPENAI, REFUSED, False, "OPENAI_API_KEY"),
    "openai insufficient_quota": (OPENAI, Fault.quota(), True, "insufficient_quota"),
    "openai payment required": (OPENAI, Fault.http(402), False, "HTTP 402"),
    "anthropic key refused": (ANTHROPIC, REFUSED, False, "ANTHROPIC_API_KEY"),
    "anthropic usage limits": (ANTHROPIC, Fault.account("usage_limits"), True, "Limits"),
    "anthropic billing_error": (ANTHROPIC, Fault.account("billing"), True, "billing_error"),
    "anthropic spend limit": (ANTHROPIC, Fault.quota(), True, "enforced_spend_limit"),
    "anthropic contract spend limit": (
        ANTHROPIC,
        Fault.account("contract_spend_limit"),
        True,
        "contract_spend_limit_reached",
    ),
    "anthropic organization_on_hold": (
        ANTHROPIC,
        Fault.account("organization_on_hold"),
        True,
        "organization_on_hold",
    ),
    "google key refused": (GOOGLE, REFUSED, False, "API_KEY_INVALID"),
    "google permission denied": (GOOGLE, Fault.http(403), False, "authentication failed"),
    "google per-day quota": (GOOGLE, Fault.quota(), True, "per-day quota"),
    "google prepaid credits": (GOOGLE, Fault.account("prepay"), True, "prepaid credits"),
}
INSIDE = [name for name, (_, _, inside, _) in STOPS.items() if inside]


@pytest.fixture
def served(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Iterator[ServerThread]:
    thread = ServerThread()
    script_jurors(thread.server)
    for name, value in thread.server.env(KEY).items():
        monkeypatch.setenv(name, value)
    monkeypatch.setenv("JURY_CACHE_DIR", str(tmp_path / "cache"))
    yield thread
    thread.stop()


def run(tmp_path: Path, juror: str, out: str, *, batch: bool) -> list[str]:
    cases = write_cases(tmp_path / "cases.jsonl", make_cases(3))
    jury_file = tmp_path / f"{out}.toml"
    table = "[batch]\npoll = 0.01\n" if batch else ""
    jury_file.write_text(
        f'jurors = ["{juror}"]\nquorum = 1\n[retry]\nattempts = 2\nbase_delay = 0.01\n{table}'
    )
    base = ["run", str(cases), "--jury", str(jury_file), "--progress", "none", "--no-checks"]
    return [*base, "--out", str(tmp_path / out)]


def stop(served: ServerThread, juror: str, fault: Fault | str, *, at: str) -> None:
    if fault == REFUSED:
        served.server.rejected_keys.add(KEY)
    else:
        assert isinstance(fault, Fault)
        served.server.inject(fault, model=at, times=None)


def clear(served: ServerThread) -> None:
    served.server.rejected_keys.clear()
    served.server.clear()
    script_jurors(served.server)


def assert_stops(code: int, capsys: pytest.CaptureFixture[str], words: str) -> None:
    """The run stopped with exit 2, saying what stopped it."""
    said = capsys.readouterr().err
    assert code == 2, said
    assert words in said, said


@pytest.mark.timeout(120)
@pytest.mark.parametrize("name", list(STOPS))
def test_an_account_stop_at_the_batch_create_stops_the_run_with_exit_2_as_online(
    served: ServerThread, tmp_path: Path, capsys: pytest.CaptureFixture[str], name: str
) -> None:
    juror, fault, _, words = STOPS[name]
    # Online mode stops on it...
    stop(served, juror, fault, at=model_id(juror))
    assert_stops(main(run(tmp_path, juror, "online", batch=False)), capsys, words)
    clear(served)
    # ...and so does batch mode, where the batch is created.
    stop(served, juror, fault, at=BATCHES)
    assert_stops(main(run(tmp_path, juror, "batch", batch=True)), capsys, words)
    assert not served.server.batches.jobs  # nothing created, nothing to pay
    assert not (tmp_path / "batch" / "summary.json").exists()


@pytest.mark.timeout(120)
@pytest.mark.parametrize("name", INSIDE)
def test_an_account_stop_inside_a_batch_stops_the_run_with_exit_2(
    served: ServerThread, tmp_path: Path, capsys: pytest.CaptureFixture[str], name: str
) -> None:
    juror, fault, _, words = STOPS[name]
    stop(served, juror, fault, at=model_id(juror))
    assert_stops(main(run(tmp_path, juror, "batch", batch=True)), capsys, words)
    assert len(served.server.batches.jobs) == 1  # read once, not sent again and again
    assert not (tmp_path / "batch" / "summary.json").exists()


@pytest.mark.timeout(120)
def test_a_run_stopped_inside_a_batch_resumes_once_fixed_asking_again_only_what_was_refused(
    served: ServerThread, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    served.server.inject(Fault.account("billing"), model=model_id(ANTHROPIC), times=1)
    assert main(run(tmp_path, ANTHROPIC, "batch", batch=True)) == 2
    assert "billing_error" in capsys.readouterr().err
    batched = len(served.server.batched)
    assert batched == 3
    assert main(["run", "--resume", str(tmp_path / "batch"), "--progress", "none"]) == 1
    verdicts = list(read_verdicts(tmp_path / "batch"))
    assert len(verdicts) == 3
    assert {v.verdict for v in verdicts} == {Verdict.PASS, Verdict.FAIL}
    # The two answered are not paid for twice: only the refused request went again.
    assert len(served.server.batched) == batched + 1
    summary = json.loads((tmp_path / "batch" / "summary.json").read_text())
    assert summary["total"] == 3


@pytest.mark.timeout(120)
def test_a_batch_refused_at_its_create_for_the_account_is_sent_by_the_resumed_run(
    served: ServerThread, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    served.server.inject(Fault.account("billing"), model=BATCHES, times=1)
    assert main(run(tmp_path, ANTHROPIC, "batch", batch=True)) == 2
    assert "billing_error" in capsys.readouterr().err
    assert not served.server.batched  # nothing created
    assert main(["run", "--resume", str(tmp_path / "batch"), "--progress", "none"]) == 1
    assert len(list(read_verdicts(tmp_path / "batch"))) == 3
    assert len(served.server.batched) == 3  # the sealed batch, sent once
    assert len(served.server.batches.jobs) == 1


@pytest.fixture(params=["sdk", "direct"])
def transport(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    monkeypatch.setenv("JURY_TRANSPORT", request.param)
    return str(request.param)


async def batched_error(spec: str, tmp_path: Path) -> ProviderError | None:
    """The error of the one request of a batch created through the juror's batch API."""
    model = resolve_model(spec)
    api = model.batches()
    assert api is not None
    path = tmp_path / "input.jsonl"
    path.write_bytes(api.entry("r-1", request_for(make_cases(1)[0])) + b"\n")
    try:
        status = await api.create(path, 1, "label")
        (outcome,) = [o async for o in api.results(await api.retrieve(status.id))]
    finally:
        await model.aclose()
    assert outcome.kind == "errored"
    return outcome.error


@pytest.mark.parametrize(
    ("spec", "fault", "kind", "status"),
    [
        # The SDK's types/shared/error_type.py: each type read at its status, not as a 500.
        (ANTHROPIC, Fault.http(504), TransientError, 504),  # timeout_error
        (ANTHROPIC, Fault.http(409), TransientError, 409),  # conflict_error
        (ANTHROPIC, Fault.account("billing"), QuotaExhaustedError, 402),
        (ANTHROPIC, Fault.account("ramp_limit"), RateLimitedError, 429),
        (ANTHROPIC, Fault.account("organization_on_hold"), AccountError, 400),
        (OPENAI, Fault.quota(), QuotaExhaustedError, 429),  # insufficient_quota
        (GOOGLE, Fault.quota(), QuotaExhaustedError, 429),  # a per-day QuotaFailure
        (GOOGLE, Fault.account("prepay"), QuotaExhaustedError, 429),  # RESOURCE_EXHAUSTED
    ],
)
async def test_a_batched_requests_error_is_read_as_its_online_calls(
    server: FakeProviderServer,
    transport: str,
    tmp_path: Path,
    spec: str,
    fault: Fault,
    kind: type[ProviderError],
    status: int,
) -> None:
    server.inject(fault, model=model_id(spec))
    error = await batched_error(spec, tmp_path)
    assert type(error) is kind, error
    assert error.status == status
