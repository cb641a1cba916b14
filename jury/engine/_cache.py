"""The call cache: every judge request and reply, kept in SQLite by content address.

Keyed by `jury.adapters._request.call_key` (the endpoint: where the call goes and every
setting that shapes it; provider/model, the exact request bytes, sampling settings, sample
index), so a reply serves exactly the calls that would have sent the same bytes to the same
server. A reply from `jury.testing`'s fake is kept under its own key (`fake_key`) and says so
(``"fake": true``). It is also the record of every request and reply, and what lets a killed run
resume without paying again: a reply is stored as soon as it arrives, before its case finishes.

Format 2 (this one) keys calls by endpoint. A format 1 file (whose keys did not name the
endpoint) is taken over: its rows stay, but no key of format 2 can match them, so none is
served again; `stale` says how many there were, once, when the file is taken over.

Concurrency. The database runs in WAL mode, so readers never wait for writers, and any
number of processes can share one cache. Reads are done inline on the event loop thread: a
primary-key lookup costs tens of microseconds, less than a hop to a worker thread would
(see ``benchmarks/cache.py``). Writes go to one writer thread that commits them in batches
(one ``BEGIN IMMEDIATE`` transaction per batch), so a write that waits for another process's
lock never stalls the event loop; `put` awaits its commit without blocking the loop, so when
a case's verdict is recorded every one of its calls is already in the cache. Until its batch
commits, a reply is also served from memory to identical calls.
``INSERT OR IGNORE`` keeps the first reply for a key: two runs racing on one call both
succeed and the cache keeps one answer.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import queue
import sqlite3
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..adapters._request import JudgeReply, JudgeRequest, TokenLogprob, Usage

__all__ = ["CACHE_FILE", "SqliteCache", "default_cache_dir"]

CACHE_FILE = "calls.sqlite"
_SCHEMA_VERSION = 2
#: Formats whose files are taken over (their rows kept, never served: see the module's text).
_OLDER = (1,)
_BUSY_MS = 60_000
_BATCH = 256
_CACHE_KIB = -256

_SCHEMA = """
CREATE TABLE IF NOT EXISTS calls (
    key TEXT PRIMARY KEY,
    model TEXT NOT NULL,
    request TEXT NOT NULL,
    reply TEXT NOT NULL,
    created REAL NOT NULL
) WITHOUT ROWID
"""


def default_cache_dir() -> Path:
    """``$JURY_CACHE_DIR``, or ``.jury-cache`` in the working directory."""
    return Path(os.environ.get("JURY_CACHE_DIR") or ".jury-cache")


def _connect(path: Path) -> sqlite3.Connection:
    connection = sqlite3.connect(
        path, timeout=_BUSY_MS / 1000, isolation_level=None, check_same_thread=False
    )
    connection.execute(f"PRAGMA busy_timeout={_BUSY_MS}")
    # 256 KiB of page cache, not SQLite's 2 MiB: a run looks up and writes each key once,
    # so a larger cache only adds to the run's peak memory (issue 36); the OS caches the file.
    connection.execute(f"PRAGMA cache_size={_CACHE_KIB}")
    return connection


def _prepare(connection: sqlite3.Connection, path: Path) -> int:
    """WAL mode and the table, once per file, however many processes open it at once; the
    number of rows of an older format found (and left unserved) when taking a file over.

    Switching to WAL takes an exclusive lock that SQLite's busy handler does not wait for,
    so two runs starting together retry it until it is done (by either of them).
    """
    deadline = time.monotonic() + _BUSY_MS / 1000
    stale = 0
    while True:
        try:
            if connection.execute("PRAGMA journal_mode").fetchone()[0] != "wal":
                connection.execute("PRAGMA journal_mode=WAL")
            connection.execute("BEGIN IMMEDIATE")
            version = connection.execute("PRAGMA user_version").fetchone()[0]
            if version not in (0, _SCHEMA_VERSION, *_OLDER):
                connection.execute("ROLLBACK")
                from .._errors import ConfigError

                raise ConfigError(
                    f"{path}: cache format {version} is newer than this aiojury's "
                    f"({_SCHEMA_VERSION}): upgrade aiojury, or use another --cache-dir"
                )
            if version in _OLDER:
                stale = connection.execute("SELECT count(*) FROM calls").fetchone()[0]
            connection.execute(_SCHEMA)
            connection.execute(f"PRAGMA user_version={_SCHEMA_VERSION}")
            connection.execute("COMMIT")
            break
        except sqlite3.OperationalError as exc:
            if connection.in_transaction:
                connection.execute("ROLLBACK")
            if "locked" not in str(exc) or time.monotonic() > deadline:
                raise
            time.sleep(0.01)
    connection.execute("PRAGMA synchronous=NORMAL")
    return stale


def _reply_json(reply: JudgeReply) -> str:
    usage = reply.usage
    data: dict[str, Any] = {
        "text": reply.text,
        "model": reply.model,
        "usage": [usage.input_tokens, usage.output_tokens, usage.cached_tokens],
    }
    if usage.cache_write_tokens or usage.thinking_tokens:
        data["usage"] += [usage.cache_write_tokens, usage.thinking_tokens]
    if reply.finish is not None:
        # A reply cut off or refused is read as such again when it is served from here.
        data["finish"] = reply.finish
    if reply.fake:
        data["fake"] = True
    if reply.logprobs is not None:
        # A cached reply answers a call that asked for log-probabilities with them.
        data["logprobs"] = [[t.token, t.logprob, [list(a) for a in t.top]] for t in reply.logprobs]
    if reply.parsed is not None:
        # Not JSON? The text still carries the reply; the engine parses it on replay.
        with contextlib.suppress(TypeError, ValueError):
            data["parsed"] = json.loads(json.dumps(reply.parsed))
    return json.dumps(data, ensure_ascii=False, separators=(",", ":"))


def _reply_from_json(text: str) -> JudgeReply:
    data = json.loads(text)
    return JudgeReply(
        text=data["text"],
        model=data["model"],
        usage=Usage(*data["usage"]),
        parsed=data.get("parsed"),
        finish=data.get("finish"),
        logprobs=_logprobs_from_json(data.get("logprobs")),
        fake=data.get("fake", False),
    )


def _logprobs_from_json(rows: Any) -> tuple[TokenLogprob, ...] | None:
    if rows is None:
        return None
    return tuple(
        TokenLogprob(token, logprob, tuple((a, b) for a, b in top)) for token, logprob, top in rows
    )


@dataclass(frozen=True, slots=True)
class _Write:
    """One reply on its way to the database, and the future its caller awaits."""

    row: tuple[str, str, str, str]
    reply: JudgeReply
    committed: asyncio.Future[None]
    loop: asyncio.AbstractEventLoop


def _settle(futures: list[asyncio.Future[None]]) -> None:
    for future in futures:
        if not future.done():
            future.set_result(None)


def _wake(batch: list[_Write]) -> None:
    """Resolve each write's future on its own event loop (from the writer thread)."""
    by_loop: dict[asyncio.AbstractEventLoop, list[asyncio.Future[None]]] = {}
    for write in batch:
        by_loop.setdefault(write.loop, []).append(write.committed)
    for loop, futures in by_loop.items():
        with contextlib.suppress(RuntimeError):  # that loop is closed: nobody is waiting
            loop.call_soon_threadsafe(_settle, futures)


class SqliteCache:
    """A `CallCache` in one SQLite file, shared safely by concurrent runs.

    `refresh` ignores stored replies (every call is made again) and replaces them with the new
    ones. `redact` is applied to the request text stored for reading (never to the key, and
    never to the reply, which must replay exactly).
    """

    def __init__(
        self,
        directory: str | Path | None = None,
        *,
        refresh: bool = False,
        redact: Callable[[str], str] | None = None,
    ) -> None:
        self.directory = Path(directory) if directory is not None else default_cache_dir()
        self.directory.mkdir(parents=True, exist_ok=True)
        self.path = self.directory / CACHE_FILE
        self.refresh = refresh
        self._redact = redact or (lambda text: text)
        self.hits = 0
        self.misses = 0
        self.error: BaseException | None = None
        writer = _connect(self.path)
        try:
            #: Replies of an older format found when this cache took the file over (never
            #: served: their keys do not name the endpoint); 0 on every later opening.
            self.stale = _prepare(writer, self.path)
        except BaseException:
            writer.close()
            raise
        self._reader = _connect(self.path)
        self._pending: dict[str, JudgeReply] = {}
        self._queue: queue.SimpleQueue[_Write | None] = queue.SimpleQueue()
        self._writer = threading.Thread(
            target=self._write_loop, args=(writer,), name="jury-cache-writer", daemon=True
        )
        self._writer.start()
        self._closed = False

    @property
    def notice(self) -> str | None:
        """The one line to tell the user when an older cache was taken over (else None)."""
        if not self.stale:
            return None
        return (
            f"{self.path}: {self.stale} cached replies were written by an older aiojury, whose "
            "cache keys did not name the endpoint they came from: they are kept but not reused "
            "(those calls are made again)"
        )

    # --- the CallCache protocol ------------------------------------------------------------

    async def get(self, key: str) -> JudgeReply | None:
        if self.refresh:
            self.misses += 1
            return None
        reply = self._pending.get(key)
        if reply is None:
            row = self._reader.execute("SELECT reply FROM calls WHERE key = ?", (key,)).fetchone()
            reply = _reply_from_json(row[0]) if row is not None else None
        if reply is None:
            self.misses += 1
        else:
            self.hits += 1
        return reply

    async def put(self, key: str, model: str, request: JudgeRequest, reply: JudgeReply) -> None:
        """Store a reply; returns once it is committed, so that a case whose verdict is
        recorded never has a call missing from the cache (a killed run re-pays nothing)."""
        await self._enqueue(key, model, request, reply)

    def put_later(self, key: str, model: str, request: JudgeRequest, reply: JudgeReply) -> None:
        """Store a reply without waiting for its commit, for a caller that keeps it durably
        elsewhere (a batch run's store): identical calls are served from memory meanwhile."""
        self._enqueue(key, model, request, reply)

    def _enqueue(
        self, key: str, model: str, request: JudgeRequest, reply: JudgeReply
    ) -> asyncio.Future[None]:
        if self._closed:
            raise RuntimeError("the cache is closed")
        self._pending[key] = reply
        loop = asyncio.get_running_loop()
        committed = loop.create_future()
        row = (key, model, self._request_json(request), _reply_json(reply))
        self._queue.put(_Write(row, reply, committed, loop))
        return committed

    # --- the writer thread -----------------------------------------------------------------

    def _write_loop(self, connection: sqlite3.Connection) -> None:
        verb = "INSERT OR REPLACE" if self.refresh else "INSERT OR IGNORE"
        sql = f"{verb} INTO calls (key, model, request, reply, created) VALUES (?, ?, ?, ?, ?)"
        try:
            while True:
                item = self._queue.get()
                stop = item is None
                batch = [] if item is None else [item]
                while not stop and len(batch) < _BATCH:
                    try:
                        item = self._queue.get_nowait()
                    except queue.Empty:
                        break
                    if item is None:
                        stop = True
                    else:
                        batch.append(item)
                if batch:
                    self._commit(connection, sql, batch)
                if stop:
                    return
        finally:
            connection.close()

    def _commit(
        self,
        connection: sqlite3.Connection,
        sql: str,
        batch: list[_Write],
    ) -> None:
        now = time.time()
        rows = [(*write.row, now) for write in batch]
        try:
            connection.execute("BEGIN IMMEDIATE")
            connection.executemany(sql, rows)
            connection.execute("COMMIT")
        except sqlite3.Error as exc:
            # Losing a cache write costs money, never correctness: the run goes on, and the
            # error is reported when the cache is closed.
            if connection.in_transaction:
                connection.execute("ROLLBACK")
            self.error = exc
            return
        finally:
            for write in batch:
                if self._pending.get(write.row[0]) is write.reply:
                    del self._pending[write.row[0]]
            _wake(batch)

    def _request_json(self, request: JudgeRequest) -> str:
        data = {
            "system": self._redact(request.system),
            "messages": [[m.role, self._redact(m.content)] for m in request.messages],
            "schema": request.schema,
            "schema_name": request.schema_name,
            "temperature": request.temperature,
            "max_tokens": request.max_tokens,
            "seed": request.seed,
            **({"effort": request.effort} if request.effort is not None else {}),
            "rubric": request.rubric.name if request.rubric is not None else "",
            "prompt": request.prompt,
            "sample": request.sample,
            "case_id": request.case.id if request.case is not None else None,
        }
        return json.dumps(data, ensure_ascii=False, separators=(",", ":"))

    # --- lifetime and reading ------------------------------------------------------------

    def flush(self) -> None:
        """Wait until every reply put so far is committed."""
        while self._pending and self._writer.is_alive():
            time.sleep(0.001)

    def close(self) -> None:
        """Commit what is queued and release the database."""
        if self._closed:
            return
        self._closed = True
        self._queue.put(None)
        self._writer.join()
        self._reader.close()

    def __enter__(self) -> SqliteCache:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def keys(self) -> set[str]:
        self.flush()
        return {row[0] for row in self._reader.execute("SELECT key FROM calls")}

    def calls(self) -> Iterator[tuple[str, str, dict[str, Any], JudgeReply]]:
        """Every stored call: key, model, request (as stored) and reply."""
        self.flush()
        rows = self._reader.execute("SELECT key, model, request, reply FROM calls ORDER BY created")
        for key, model, request, reply in rows:
            yield key, model, json.loads(request), _reply_from_json(reply)
