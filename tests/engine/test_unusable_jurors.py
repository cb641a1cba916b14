"""A juror that cannot work stops the run before it is paid for (issue 31).

A model whose first calls fail for good (a model the server does not have, nothing listening,
a path the server does not serve, a setting the server refuses by name, the same server error
on every attempt) is a configuration that cannot work: `jury run` exits 2 naming the juror,
where its calls went, the server's own words and the fix, before the rest of the cases are
sent; `Jury.evaluate` raises the same `jury.JurorUnusable`. Once a call of a model has
worked, its failures are the quorum's business again.

Each server below behaves as the real one does (the fake's rules cite their sources):
OpenAI's 404 ``model_not_found``; llama-cpp-python's HTTP 500 for a json_schema response
format (`jury.testing._compatible`); Azure OpenAI's 400 "Unrecognized request argument
supplied" for a field it does not take; a closed port.
"""

from __future__ import annotations

import socket
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from jury import Case, Juror, JurorUnusable, Jury, Panel, iter_cases
from jury.cli import main
from jury.testing import FakeClock, FakeProviderServer, Fault, LoggedRequest, valid_reply
from served import ServerThread

EXAMPLE = Path(__file__).parents[2] / "examples" / "shopnest" / "cases.jsonl"
KEY = "test-key-not-secret"


@pytest.fixture
def server(request: pytest.FixtureRequest) -> Iterator[ServerThread]:
    thread = ServerThread(**getattr(request, "param", {}))
    yield thread
    thread.stop()


def jury_file(tmp_path: Path, juror: str, extra: str = "") -> Path:
    path = tmp_path / "jury.toml"
    path.write_text(
        f'jurors = [{juror}, "offline/reference", "offline/facts"]\nconcurrency = 4\n{extra}',
        encoding="utf-8",
    )
    return path


def run(tmp_path: Path, jury: Path) -> int:
    return main(
        [
            "run",
            str(EXAMPLE),
            "--jury",
            str(jury),
            "--out",
            str(tmp_path / "run"),
            "--no-cache",
            "--progress",
            "none",
        ]
    )


def point(monkeypatch: pytest.MonkeyPatch, base_url: str) -> None:
    monkeypatch.setenv("LOCAL_BASE_URL", base_url)
    monkeypatch.setenv("LOCAL_API_KEY", KEY)


def asked(server: ServerThread, model: str) -> list[LoggedRequest]:
    return [r for r in server.requests if r.model == model]


@pytest.mark.parametrize("server", [{"models": {"smollm2-135m"}}], indirect=True)
def test_a_model_the_server_does_not_have_stops_the_run_with_exit_2_before_the_rest_is_sent(
    server: ServerThread,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    point(monkeypatch, server.server.openai_base_url)
    started = time.monotonic()
    code = run(tmp_path, jury_file(tmp_path, '"openai-api/local/smolllm2-135m"'))
    took = time.monotonic() - started
    err = capsys.readouterr().err
    assert code == 2
    assert took < 10
    # At most one call per case in flight (4), none for the cases after them.
    assert 1 <= len(asked(server, "smolllm2-135m")) <= 4
    assert "openai-api/local/smolllm2-135m cannot work" in err
    assert f"{server.server.openai_base_url}: HTTP 404" in err
    assert "does not exist or you do not have access to it" in err  # the server's own words
    assert "check the model name" in err
    assert f"LOCAL_BASE_URL={server.server.openai_base_url}" in err
    assert "jury doctor" in err
    assert "Traceback" not in err
    # The gate did not decide without the juror: no summary was published.
    assert not (tmp_path / "run" / "summary.json").exists()


def test_a_base_url_where_nothing_listens_stops_the_run_with_exit_2_within_seconds(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    with socket.socket() as probe:  # a port nothing listens on once this is closed
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    point(monkeypatch, f"http://127.0.0.1:{port}/v1")
    started = time.monotonic()
    code = run(tmp_path, jury_file(tmp_path, '"openai-api/local/smollm2-135m"'))
    took = time.monotonic() - started
    err = capsys.readouterr().err
    assert code == 2
    # The default retries (4 attempts, backoff from 1 s with full jitter): at most 7 s.
    assert took < 15
    assert f"nothing answers at http://127.0.0.1:{port}/v1" in err
    assert "(the same on all 4 attempts)" in err


def test_a_base_url_without_v1_stops_the_run_naming_the_path(
    server: ServerThread,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    point(monkeypatch, server.server.url)  # the fake serves /v1/chat/completions, not this
    assert run(tmp_path, jury_file(tmp_path, '"openai-api/local/smollm2-135m"')) == 2
    err = capsys.readouterr().err
    assert f"{server.server.url}: HTTP 404" in err
    assert "usually ends in /v1" in err


@pytest.mark.parametrize("server", [{"compatible": "llama-cpp-python"}], indirect=True)
def test_a_response_format_the_server_refuses_stops_the_run_naming_the_variable(
    server: ServerThread,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    # The user's setting outranks what the server says it takes: refused, it stops the run.
    point(monkeypatch, server.server.openai_base_url)
    monkeypatch.setenv("LOCAL_RESPONSE_FORMAT", "json_schema")
    jury = jury_file(tmp_path, '"openai-api/local/smollm2-135m"')
    assert run(tmp_path, jury) == 2
    err = capsys.readouterr().err
    assert "HTTP 500" in err
    assert "'loc': ('body', 'response_format', 'type')" in err
    assert "fix: set LOCAL_RESPONSE_FORMAT=json_object+schema" in err
    # Refused by name: not retried (one call per case in flight, never a second attempt).
    calls = asked(server, "smollm2-135m")
    assert 1 <= len(calls) <= 4
    assert all(c.status == 500 for c in calls)
    # The fix works: the same server takes the run with the variable set as it says.
    monkeypatch.setenv("LOCAL_RESPONSE_FORMAT", "json_object+schema")
    server.server.script("smollm2-135m", lambda r: valid_reply(r.schema))
    assert run(tmp_path / "fixed", jury) in (0, 1)
    assert "cannot work" not in capsys.readouterr().err


def test_a_field_refused_by_name_stops_the_run_with_its_jury_file_setting(
    server: ServerThread,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    point(monkeypatch, server.server.openai_base_url)
    # Azure OpenAI's words for a request field its deployment does not take
    # (https://learn.microsoft.com/answers/questions/1662406): a 400 naming it.
    server.server.inject(
        Fault.http(400, message="Unrecognized request argument supplied: logprobs"),
        model="smollm2-135m",
        times=None,
    )
    juror = '{ model = "openai-api/local/smollm2-135m", logprobs = true }'
    assert run(tmp_path, jury_file(tmp_path, juror)) == 2
    err = capsys.readouterr().err
    assert "Unrecognized request argument supplied: logprobs" in err
    assert "fix: set `logprobs = false` on this juror" in err


def test_the_same_server_error_on_every_attempt_stops_the_run(
    server: ServerThread,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    point(monkeypatch, server.server.openai_base_url)
    server.server.inject(
        Fault.http(500, message="model failed to load"), model="smollm2-135m", times=None
    )
    retry = "[retry]\nbase_delay = 0.01\n"
    assert run(tmp_path, jury_file(tmp_path, '"openai-api/local/smollm2-135m"', retry)) == 2
    err = capsys.readouterr().err
    assert "HTTP 500: model failed to load (the same on all 4 attempts)" in err
    assert "the server gives the same error to every attempt" in err
    # The server answered: its base URL is not what the fix points at (a new user's trial).
    assert "check the base URL" not in err
    assert "it cannot handle this model or request (its words above say why)" in err


def panel(spec: str, **settings: Any) -> Panel:
    return Panel(
        jurors=(Juror(model=spec), Juror(model="offline/reference"), Juror(model="offline/facts")),
        **settings,
    )


#: Example cases whose required checks pass: each is put to the judges.
JUDGED = ("policy-return-01", "policy-shipping-01", "edge-return-day45", "tool-status-01")


def example(count: int) -> list[Case]:
    return [case for case in iter_cases(EXAMPLE) if case.id in JUDGED][:count]


async def test_the_library_raises_the_same_error_the_command_exits_2_for(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    async with FakeProviderServer(models={"smollm2-135m"}) as fake:
        point(monkeypatch, fake.openai_base_url)
        async with Jury(panel("openai-api/local/nosuch"), clock=FakeClock()) as jury:
            with pytest.raises(JurorUnusable) as raised:
                async for _ in jury.evaluate(example(8)):
                    pass
    error = raised.value
    assert error.model == "openai-api/local/nosuch"
    assert error.endpoint == fake.openai_base_url
    assert error.error.status == 404
    assert "check the model name" in error.fix


async def test_an_outage_whose_errors_vary_is_not_a_configuration_error(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    async with FakeProviderServer() as fake:
        point(monkeypatch, fake.openai_base_url)
        for word in ("upstream timeout", "overloaded", "bad gateway", "restarting"):
            fake.inject(Fault.http(503, message=word), model="smollm2-135m")
        settings = {"concurrency": 1}
        spec = "openai-api/local/smollm2-135m"
        async with Jury(panel(spec, **settings), clock=FakeClock()) as jury:
            verdicts = [v async for v in jury.evaluate(example(2))]
    # No stop: the first case's vote is unavailable (the offline pair decided that case
    # without asking it again), and the next case has the juror's vote.
    assert len(verdicts) == 2
    statuses = {d.case_id: [v.status.value for v in d.votes if v.juror == spec] for d in verdicts}
    assert sorted(statuses.values()) == [["unavailable"], ["valid"]]


async def test_a_model_that_worked_and_then_fails_leaves_it_to_the_quorum(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    async with FakeProviderServer() as fake:
        point(monkeypatch, fake.openai_base_url)

        def first_then_gone(request: LoggedRequest) -> dict[str, Any]:
            # After its first reply, the model is gone (a server restarted without it).
            fake.models = {"another-model"}
            return valid_reply(request.schema)

        fake.script("smollm2-135m", first_then_gone)
        settings = {"concurrency": 1, "retry": {"second_chance": False}}
        async with Jury(panel("openai-api/local/smollm2-135m", **settings)) as jury:
            verdicts = [v async for v in jury.evaluate(example(4))]
    assert len(verdicts) == 4
    statuses = [
        v.status.value for d in verdicts for v in d.votes if v.juror.startswith("openai-api")
    ]
    assert statuses.count("valid") == 1
    assert statuses.count("unavailable") == 3
