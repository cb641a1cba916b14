"""The SQLite call cache: replay, the engine's use of it, and processes sharing one file."""

from __future__ import annotations

import sqlite3
import subprocess
import sys
from pathlib import Path

from conftest import case, panel_of, scores, scripted
from jury import Jury
from jury.adapters import Endpoint, JudgeReply, JudgeRequest, Message, Usage
from jury.adapters._request import call_key
from jury.engine._cache import SqliteCache


def request(text: str = "the case") -> JudgeRequest:
    return JudgeRequest(system="rubric", messages=(Message("user", text),), schema={})


async def test_a_reply_is_replayed_exactly(tmp_path: Path) -> None:
    reply = JudgeReply(text='{"a": 1}', model="m/served", usage=Usage(10, 2, 3), parsed={"a": 1})
    with SqliteCache(tmp_path) as cache:
        assert await cache.get("k") is None
        await cache.put("k", "m/x", request(), reply)
        assert await cache.get("k") == reply
        # Committed when `put` returns: another process's cache sees it at once.
        with SqliteCache(tmp_path) as other:
            assert await other.get("k") == reply
    with SqliteCache(tmp_path) as again:
        assert await again.get("k") == reply
        assert (again.hits, again.misses) == (1, 0)
        [(key, model, stored, _)] = list(again.calls())
    assert (key, model, stored["messages"]) == ("k", "m/x", [["user", "the case"]])


async def test_refresh_ignores_and_replaces_stored_replies(tmp_path: Path) -> None:
    old = JudgeReply(text="old", model="m")
    new = JudgeReply(text="new", model="m")
    with SqliteCache(tmp_path) as cache:
        await cache.put("k", "m", request(), old)
    with SqliteCache(tmp_path, refresh=True) as cache:
        assert await cache.get("k") is None
        await cache.put("k", "m", request(), new)
    with SqliteCache(tmp_path) as cache:
        assert await cache.get("k") == new


async def test_stored_requests_are_redacted_but_keys_are_not(tmp_path: Path) -> None:
    with SqliteCache(tmp_path, redact=lambda t: t.replace("secret", "[redacted]")) as cache:
        key = call_key("m", request("a secret case"), 0, endpoint=Endpoint("http://127.0.0.1:1"))
        await cache.put(key, "m", request("a secret case"), JudgeReply(text="r", model="m"))
        [(stored_key, _, stored, _)] = list(cache.calls())
    assert stored_key == key
    assert stored["messages"] == [["user", "a [redacted] case"]]


async def test_the_engine_pays_each_call_once(tmp_path: Path) -> None:
    judge = scripted([scores(5)])
    panel = panel_of(judge)
    with SqliteCache(tmp_path) as cache:
        async with Jury(panel, cache=cache) as jury:
            first = await jury.judge(case("a"))
            second = await jury.judge(case("a"))
    with SqliteCache(tmp_path) as cache:
        async with Jury(panel, cache=cache) as jury:
            third = await jury.judge(case("a"))
    assert judge.calls == 1
    assert [v.votes[0].calls.cache_hits for v in (first, second, third)] == [0, 1, 1]
    assert third.verdict == first.verdict


WRITER = """
import asyncio, sys
sys.path.insert(0, sys.argv[3])
from jury.adapters import JudgeReply, JudgeRequest, Message
from jury.engine._cache import SqliteCache

async def main(directory, tag):
    request = JudgeRequest(system="s", messages=(Message("user", "u"),), schema={})
    with SqliteCache(directory) as cache:
        for n in range(400):
            # Half the keys are shared with the other process, half are its own.
            key = f"shared-{n}" if n % 2 else f"{tag}-{n}"
            await cache.put(key, "m", request, JudgeReply(text=f"{tag}-{n}", model="m"))
            if n % 50 == 0:
                await asyncio.sleep(0)

asyncio.run(main(sys.argv[1], sys.argv[2]))
"""


def test_two_processes_share_one_cache_without_corrupting_it(tmp_path: Path) -> None:
    root = str(Path(__file__).resolve().parents[2])
    writers = [
        subprocess.Popen([sys.executable, "-c", WRITER, str(tmp_path), tag, root])
        for tag in ("left", "right")
    ]
    assert [w.wait(timeout=60) for w in writers] == [0, 0]
    with sqlite3.connect(tmp_path / "calls.sqlite") as db:
        assert db.execute("PRAGMA integrity_check").fetchone() == ("ok",)
        assert db.execute("PRAGMA journal_mode").fetchone() == ("wal",)
        keys = {row[0] for row in db.execute("SELECT key FROM calls")}
        shared = db.execute("SELECT reply FROM calls WHERE key = 'shared-1'").fetchone()[0]
    assert len(keys) == 200 + 200 + 200
    # The first reply stored for a shared key is kept, whichever process wrote it.
    assert '"text":"left-1"' in shared or '"text":"right-1"' in shared
