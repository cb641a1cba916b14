"""What tells the engine that a server is `jury.testing`'s fake: a live reply, else one probe
(a GET the fake answers with its mark, whatever the path); and how the cache keeps the fake's
replies (marked) and refuses a file of a newer format than it knows."""

from __future__ import annotations

import asyncio
import sqlite3
from pathlib import Path

import pytest

from jury import ConfigError
from jury.adapters import Endpoint, JudgeReply, JudgeRequest, Message
from jury.engine import _fake_servers
from jury.engine._cache import SqliteCache
from jury.engine._fake_servers import FakeServers, probe
from jury.testing import FakeProviderServer


async def test_a_probe_tells_the_fake_from_a_server_that_does_not_mark_its_answers() -> None:
    async with FakeProviderServer() as fake, FakeProviderServer(mark=False) as other:
        assert await probe(Endpoint(f"{fake.url}/v1beta"))
        assert not await probe(Endpoint(f"{other.url}/v1beta"))
        # A probe judges nothing: neither server logged a call.
        assert fake.requests == other.requests == []


async def test_a_probe_of_nothing_or_of_no_http_server_says_not_the_fake() -> None:
    async with FakeProviderServer() as gone:
        url = gone.url
    assert not await probe(Endpoint(f"{url}/v1"))
    assert not await probe(Endpoint("adapter:somewhere.Judge"))


async def test_concurrent_calls_that_need_to_know_probe_a_server_once(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    asked: list[str] = []

    async def slow_probe(endpoint: Endpoint) -> bool:
        asked.append(endpoint.url)
        await asyncio.sleep(0.01)
        return True

    monkeypatch.setattr(_fake_servers, "probe", slow_probe)
    servers = FakeServers()
    at = Endpoint("http://127.0.0.1:9/v1")
    # Another path on the same server: one process, one answer.
    same = Endpoint("http://127.0.0.1:9/v1beta")
    found = await asyncio.gather(*(servers.is_fake(e) for e in [at, same] * 5))
    assert found == [True] * 10
    assert len(asked) == 1
    assert servers.known(same) is True


async def test_a_live_reply_outranks_what_a_probe_found() -> None:
    servers = FakeServers()
    at = Endpoint("http://127.0.0.1:9/v1")
    assert servers.known(at) is None
    servers.learn(at, False)
    assert await servers.is_fake(at) is False  # known: no probe made


async def test_a_reply_of_the_fake_is_cached_as_the_fakes(tmp_path: Path) -> None:
    request = JudgeRequest("s", (Message("user", "u"),), {})
    with SqliteCache(tmp_path) as cache:
        await cache.put("k", "m", request, JudgeReply(text="{}", model="m", fake=True))
    with SqliteCache(tmp_path) as cache:
        reply = await cache.get("k")
    assert reply is not None
    assert reply.fake is True


def test_a_cache_of_a_newer_format_is_refused_with_the_fix(tmp_path: Path) -> None:
    database = sqlite3.connect(tmp_path / "calls.sqlite")
    database.execute("PRAGMA user_version=99")
    database.close()
    with pytest.raises(ConfigError, match=r"newer than this aiojury's .*upgrade aiojury"):
        SqliteCache(tmp_path)
