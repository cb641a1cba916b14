"""A cached reply is reused only for a call to the same endpoint: the same server, spoken to
the same way. A jury pointed at another server (or told another response format) asks it; a
reply of the fake is never served to a server that is not the fake, even at the same URL; a
cache written by an older aiojury (whose keys did not name the endpoint) is not trusted."""

from __future__ import annotations

import hashlib
import json
import random
import sqlite3
from collections.abc import Callable
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest
from provider_helpers import ANTHROPIC, CASE, COMPATIBLE, GOOGLE, OPENAI, model_id, panel

from conftest import FAKE_KEY, panel_of, scores
from jury import CaseVerdict, Jury, Verdict
from jury.adapters import JudgeRequest
from jury.engine._cache import SqliteCache
from jury.testing import FakeClock, FakeProviderServer, LoggedRequest, ScriptedModel, valid_reply


def scored(level: int) -> Callable[[LoggedRequest], dict[str, Any]]:
    """A judge that gives every metric `level` (5: the case passes; 1: it fails)."""

    def reply(request: LoggedRequest) -> dict[str, Any]:
        found = valid_reply(request.schema)
        return {k: level if isinstance(v, int) else v for k, v in found.items()}

    return reply


def point(monkeypatch: pytest.MonkeyPatch, server: FakeProviderServer) -> None:
    """Every provider's variables (``openai-api/acme`` too) at `server`."""
    for name, value in server.env(FAKE_KEY, service="acme").items():
        monkeypatch.setenv(name, value)


async def judged(cache_dir: Path, spec: str) -> CaseVerdict:
    cache = SqliteCache(cache_dir)
    try:
        async with Jury(panel(spec), cache=cache, clock=FakeClock(), rng=random.Random(7)) as jury:
            return await jury.judge(CASE)
    finally:
        cache.close()


@pytest.mark.parametrize("spec", [ANTHROPIC, OPENAI, GOOGLE, COMPATIBLE])
async def test_a_jury_pointed_at_another_server_asks_it_instead_of_replaying_the_first(
    spec: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    async with FakeProviderServer() as first, FakeProviderServer() as second:
        first.script(model_id(spec), scored(5))
        second.script(model_id(spec), scored(1))
        point(monkeypatch, first)
        assert (await judged(tmp_path, spec)).verdict is Verdict.PASS
        point(monkeypatch, second)
        other = await judged(tmp_path, spec)
        # The second server was asked, and its own reply decided.
        assert len(second.requests) == 1
        assert other.verdict is Verdict.FAIL
        assert other.votes[0].calls.cache_hits == 0
        # Back at the first: its reply is served again, and the vote says from where.
        point(monkeypatch, first)
        again = await judged(tmp_path, spec)
        assert len(first.requests) == 1
        assert again.verdict is Verdict.PASS
        (vote,) = again.votes
        assert vote.calls.cache_hits == 1
        assert vote.calls.cached_from == (f"FAKE {first.url}{vote_path(spec)}",)


def vote_path(spec: str) -> str:
    """The path prefix of each API's endpoint on the fake."""
    return "/v1beta" if spec == GOOGLE else "/v1"


async def test_a_changed_response_format_is_asked_again_not_replayed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def by_format(request: LoggedRequest) -> dict[str, Any]:
        # Answers as a server might that reads the two formats differently.
        body = request.body if isinstance(request.body, dict) else {}
        kind = body.get("response_format", {}).get("type")
        return scores(5 if kind == "json_schema" else 1)

    async with FakeProviderServer() as server:
        server.script(model_id(COMPATIBLE), by_format)
        point(monkeypatch, server)
        monkeypatch.setenv("ACME_RESPONSE_FORMAT", "json_schema")
        assert (await judged(tmp_path, COMPATIBLE)).verdict is Verdict.PASS
        monkeypatch.setenv("ACME_RESPONSE_FORMAT", "json_object")
        changed = await judged(tmp_path, COMPATIBLE)
        assert [r.body["response_format"]["type"] for r in server.requests] == [
            "json_schema",
            "json_object",
        ]
        assert changed.verdict is Verdict.FAIL
        assert changed.votes[0].calls.cache_hits == 0


async def test_a_reply_of_the_fake_is_never_served_to_a_real_server_at_the_same_url(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    async with FakeProviderServer() as fake:
        fake.script(model_id(OPENAI), scored(5))
        point(monkeypatch, fake)
        first = await judged(tmp_path, OPENAI)
        port = urlsplit(fake.url).port
    assert first.votes[0].fake
    # The same URL, now a server that does not say it is the fake (a fixed port reused).
    async with FakeProviderServer(port=port or 0, mark=False) as real:
        assert real.url == fake.url
        real.script(model_id(OPENAI), scored(1))
        point(monkeypatch, real)
        asked = await judged(tmp_path, OPENAI)
        assert len(real.requests) == 1
        assert asked.verdict is Verdict.FAIL
        assert not asked.votes[0].fake
        # Its own reply is the one kept for it from now on.
        kept = await judged(tmp_path, OPENAI)
        assert len(real.requests) == 1
        assert kept.verdict is Verdict.FAIL
        assert kept.votes[0].calls.cached_from == (f"{real.url}/v1",)


async def test_a_reply_of_the_fake_is_served_again_to_the_fake_without_a_judge_call(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    async with FakeProviderServer() as fake:
        point(monkeypatch, fake)
        await judged(tmp_path, ANTHROPIC)
        again = await judged(tmp_path, ANTHROPIC)
        # A rerun against the fake pays nothing twice: the probe that tells it is the fake
        # (a GET it answers with its mark) judges nothing.
        assert len(fake.requests) == 1
        assert again.votes[0].calls.cache_hits == 1
        assert again.votes[0].fake


def format_1_key(model: str, request: JudgeRequest, sample: int) -> str:
    """A call's address as aiojury wrote it in cache format 1 (before keys named the
    endpoint): the model, the request and the sample, one JSON array."""
    fields = [request.schema_name, request.temperature, request.max_tokens, request.seed, sample]
    messages = [[m.role, m.content] for m in request.messages]
    whole = [model, request.system, messages, request.schema, *fields]
    return hashlib.sha256(
        json.dumps(whole, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode()
    ).hexdigest()


def format_1_cache(directory: Path, key: str, model: str, reply: dict[str, Any]) -> None:
    """A cache file as aiojury wrote it in format 1, holding one reply."""
    directory.mkdir()
    database = sqlite3.connect(directory / "calls.sqlite")
    database.execute(
        "CREATE TABLE calls (key TEXT PRIMARY KEY, model TEXT NOT NULL, request TEXT NOT NULL,"
        " reply TEXT NOT NULL, created REAL NOT NULL) WITHOUT ROWID"
    )
    row = {"text": json.dumps(reply), "model": model, "usage": [10, 10, 0]}
    database.execute("INSERT INTO calls VALUES (?, ?, '{}', ?, 0)", (key, model, json.dumps(row)))
    database.execute("PRAGMA user_version=1")
    database.commit()
    database.close()


async def test_a_cache_written_by_an_older_aiojury_is_not_trusted_and_says_so_once(
    tmp_path: Path,
) -> None:
    judge = ScriptedModel([scores(5)])
    async with Jury(panel_of(judge)) as jury:
        assert (await jury.judge(CASE)).verdict is Verdict.PASS
    (request,) = judge.requests
    # The file holds, under the very key format 1 gave this call, a reply that fails it.
    cache_dir = tmp_path / "cache"
    format_1_cache(cache_dir, format_1_key(judge.name, request, 0), judge.name, scores(1))

    cache = SqliteCache(cache_dir)
    assert cache.stale == 1
    assert cache.notice is not None
    assert "1 cached replies were written by an older aiojury" in cache.notice
    try:
        async with Jury(panel_of(judge), cache=cache) as jury:
            verdict = await jury.judge(CASE)
    finally:
        cache.close()
    # Asked again, not replayed: the judge's own reply decides.
    assert len(judge.requests) == 2
    assert verdict.verdict is Verdict.PASS
    assert verdict.votes[0].calls.cache_hits == 0
    # Said once, when the file was taken over; the old row is kept, never served.
    with SqliteCache(cache_dir) as reopened:
        assert reopened.notice is None
        assert len(reopened.keys()) == 2
