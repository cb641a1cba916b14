"""The record of a batch run, in the run directory: ``batches.sqlite`` and its input files.

Two tables. ``batches``: one row per batch, under a label of ours, with the provider's ID once
it has one and the state of the batch in its life::

    preparing -> sealed -> creating -> submitted -> collected
                                    \\-> failed (refused as a whole)

``requests``: one row per request and try, under its custom ID (the call's content address and
the try), with the batch it went into and, once collected, its reply or its error. Calls made
online during a batch run are kept here too, so that judging a case again never pays twice.

What a kill at any moment leaves, and what the next run does with it:

- *preparing*: requests still being written to the batch's input file. Nothing was sent: the
  batch, its file and its rows are dropped, and the cases ask again.
- *sealed*: the input file and its rows are complete and committed, nothing was sent: the
  batch is created.
- *creating*: the create call was under way, so the provider may hold the batch without our
  knowing its ID: it is looked for (`BatchAPI.find`, by its label) and adopted if found;
  created only if it is not there.
- *submitted*: polled until it ends; its results are then written in one transaction, so a
  kill while collecting leaves it *submitted* and it is collected again (reading results is
  free; nothing is sent twice). Its input file is kept until then.
- refused or failed for its size (nothing of it ran): back to *sealed*, committed, then cut
  in two (`split`): the parts' files are written first, one transaction moves the requests
  to them and drops the batch, and only then is its file removed. A kill at any point leaves
  either the whole batch sealed or its parts sealed.

One connection, used from the event loop's thread only; WAL mode, so that a kill loses no
committed transaction.
"""

from __future__ import annotations

import json
import os
import secrets
import sqlite3
import time
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..adapters._request import JudgeReply
from ..engine._cache import _reply_from_json, _reply_json

__all__ = ["BatchRow", "BatchStore", "RequestRow", "tokens_of"]

STORE = "batches.sqlite"
#: Characters of a request's JSON line taken for one input token: OpenAI's rule of thumb
#: ("one token generally corresponds to ~4 characters of text for common English text",
#: https://platform.openai.com/tokenizer), which ``jury estimate`` uses too. An estimate,
#: for budgets only: the provider counts its own.
CHARS_PER_TOKEN = 4
INPUTS = "batches"

_SCHEMA = (
    "CREATE TABLE IF NOT EXISTS meta (name TEXT PRIMARY KEY, value TEXT NOT NULL)",
    """CREATE TABLE IF NOT EXISTS batches (
        label TEXT PRIMARY KEY,
        model TEXT NOT NULL,
        state TEXT NOT NULL,
        provider_id TEXT,
        requests INTEGER NOT NULL DEFAULT 0,
        bytes INTEGER NOT NULL DEFAULT 0,
        opened REAL NOT NULL,
        changed REAL NOT NULL,
        status TEXT,
        counts TEXT,
        expires REAL,
        error TEXT,
        tokens INTEGER NOT NULL DEFAULT 0
    )""",
    """CREATE TABLE IF NOT EXISTS requests (
        custom_id TEXT PRIMARY KEY,
        key TEXT NOT NULL,
        try INTEGER NOT NULL,
        model TEXT NOT NULL,
        case_id TEXT NOT NULL,
        batch TEXT,
        state TEXT NOT NULL,
        reply TEXT,
        error TEXT,
        retryable INTEGER NOT NULL DEFAULT 0
    )""",
    "CREATE INDEX IF NOT EXISTS requests_by_key ON requests (key, try)",
    "CREATE INDEX IF NOT EXISTS requests_by_batch ON requests (batch)",
)

#: States of a batch whose requests may still be answered by it.
LIVE = ("preparing", "sealed", "creating", "submitted")


@dataclass(frozen=True, slots=True)
class RequestRow:
    """The latest try of one call: its state ("queued", "succeeded", "errored", "expired",
    "canceled", or "online" for a call made online) and what came back."""

    custom_id: str
    tries: int
    state: str
    batch: str | None
    reply: JudgeReply | None
    error: str | None
    retryable: bool


@dataclass(frozen=True, slots=True)
class BatchRow:
    label: str
    model: str
    state: str
    provider_id: str | None
    requests: int
    bytes: int
    opened: float
    changed: float
    status: str | None
    counts: dict[str, int]
    expires: float | None
    error: str | None
    #: Its requests' input tokens, estimated (`jury.batch._model.tokens_of`).
    tokens: int = 0


def _batch_row(row: tuple[Any, ...]) -> BatchRow:
    label, model, state, provider_id, requests, size, opened, changed, status = row[:9]
    counts = json.loads(row[9]) if row[9] else {}
    return BatchRow(
        label=label,
        model=model,
        state=state,
        provider_id=provider_id,
        requests=requests,
        bytes=size,
        opened=opened,
        changed=changed,
        status=status,
        counts=counts,
        expires=row[10],
        error=row[11],
        tokens=row[12] or 0,
    )


def tokens_of(line: bytes) -> int:
    """A request's input tokens, estimated from its JSON line's bytes."""
    return -(-len(line) // CHARS_PER_TOKEN)


def custom_id(key: str, tries: int) -> str:
    """A request's ID inside its batch: its call's address and its try. Every provider's
    rule allows it (Anthropic's is the strictest: ``^[a-zA-Z0-9_-]{1,64}$``)."""
    return f"t{tries}-{key[:56]}"


class BatchStore:
    """The batches and requests of one run (see the module's docstring)."""

    def __init__(self, run_dir: Path) -> None:
        self.dir = run_dir / INPUTS
        self.dir.mkdir(parents=True, exist_ok=True)
        self._db = sqlite3.connect(run_dir / STORE, isolation_level=None)
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute("PRAGMA synchronous=NORMAL")
        for statement in _SCHEMA:
            self._db.execute(statement)
        columns = {row[1] for row in self._db.execute("PRAGMA table_info(batches)")}
        if "tokens" not in columns:
            # A run directory written before batches counted their tokens.
            self._db.execute("ALTER TABLE batches ADD COLUMN tokens INTEGER NOT NULL DEFAULT 0")
        self._db.execute("BEGIN")
        self.token = self._meta("token") or self._set_meta("token", secrets.token_hex(4))
        self._db.execute("COMMIT")
        self._db.execute("BEGIN")

    def _meta(self, name: str) -> str | None:
        row = self._db.execute("SELECT value FROM meta WHERE name = ?", (name,)).fetchone()
        return str(row[0]) if row else None

    def _set_meta(self, name: str, value: str) -> str:
        self._db.execute("INSERT OR REPLACE INTO meta VALUES (?, ?)", (name, value))
        return value

    def commit(self) -> None:
        """Make everything written so far durable (one transaction is always open)."""
        self._db.execute("COMMIT")
        self._db.execute("BEGIN")

    def close(self) -> None:
        if self._db.in_transaction:
            self._db.execute("COMMIT")
        self._db.close()

    # --- requests ----------------------------------------------------------------------

    def lookup(self, key: str) -> RequestRow | None:
        """The latest try of the call with this address, or None when it was never asked."""
        row = self._db.execute(
            "SELECT custom_id, try, state, batch, reply, error, retryable FROM requests "
            "WHERE key = ? ORDER BY try DESC LIMIT 1",
            (key,),
        ).fetchone()
        if row is None:
            return None
        custom, tries, state, batch, reply, error, retryable = row
        return RequestRow(
            custom,
            tries,
            state,
            batch,
            _reply_from_json(reply) if reply is not None else None,
            error,
            bool(retryable),
        )

    def queue(self, key: str, tries: int, model: str, case_id: str, batch: str) -> str:
        """A request written into `batch`'s input file (committed with the batch's seal)."""
        custom = custom_id(key, tries)
        self._db.execute(
            "INSERT INTO requests (custom_id, key, try, model, case_id, batch, state) "
            "VALUES (?, ?, ?, ?, ?, ?, 'queued')",
            (custom, key, tries, model, case_id, batch),
        )
        return custom

    def online(self, key: str, tries: int, model: str, case_id: str, reply: JudgeReply) -> None:
        """A call made online, kept at once: a case judged again reads it instead of paying."""
        self._db.execute(
            "INSERT OR REPLACE INTO requests (custom_id, key, try, model, case_id, state, reply) "
            "VALUES (?, ?, ?, ?, ?, 'online', ?)",
            (custom_id(key, tries), key, tries, model, case_id, _reply_json(reply)),
        )
        self.commit()

    # --- batches -----------------------------------------------------------------------

    def open_batch(self, label: str, model: str) -> Path:
        now = time.time()
        self._db.execute(
            "INSERT INTO batches (label, model, state, opened, changed) "
            "VALUES (?, ?, 'preparing', ?, ?)",
            (label, model, now, now),
        )
        self.commit()
        return self.input(label)

    def input(self, label: str) -> Path:
        return self.dir / f"{label}.jsonl"

    def next_label(self, model_index: int) -> str:
        """A label no batch of this run or any other has: the run's token, the model, a
        sequence number (Gemini shows it as the batch's display name)."""
        count = int(self._meta("batches") or 0) + 1
        self._set_meta("batches", str(count))
        return f"jury-{self.token}-m{model_index}-{count:05d}"

    def update(self, label: str, state: str, **fields: Any) -> None:
        """Move a batch to `state` (and set `fields`), durably."""
        if "counts" in fields:
            fields["counts"] = json.dumps(fields["counts"])
        columns = ", ".join(f"{name} = ?" for name in fields)
        sets = f"state = ?, changed = ?{', ' + columns if columns else ''}"
        self._db.execute(
            f"UPDATE batches SET {sets} WHERE label = ?",
            (state, time.time(), *fields.values(), label),
        )
        self.commit()

    def drop(self, label: str) -> None:
        """Forget a batch that was never sent, with its requests and its input file."""
        self._db.execute("DELETE FROM requests WHERE batch = ?", (label,))
        self._db.execute("DELETE FROM batches WHERE label = ?", (label,))
        self.commit()
        self.input(label).unlink(missing_ok=True)

    def batches(self, states: Sequence[str] = LIVE) -> list[BatchRow]:
        marks = ", ".join("?" for _ in states)
        rows = self._db.execute(
            "SELECT label, model, state, provider_id, requests, bytes, opened, changed, status, "
            f"counts, expires, error, tokens FROM batches WHERE state IN ({marks}) "
            "ORDER BY opened",
            tuple(states),
        ).fetchall()
        return [_batch_row(row) for row in rows]

    def all_batches(self) -> list[BatchRow]:
        return self.batches(("preparing", "sealed", "creating", "submitted", "collected", "failed"))

    def collect(
        self,
        label: str,
        outcomes: Iterable[tuple[str, str, JudgeReply | None, str | None, bool]],
        missing: tuple[str, str | None, bool],
    ) -> None:
        """Write an ended batch's results in one transaction, then mark it collected.

        `outcomes` are (custom ID, state, reply, error, retryable); the batch's requests that
        have none take `missing` (state, error, retryable): a batch that expired or failed as
        a whole answers none of them."""
        self._db.execute("SAVEPOINT collecting")
        self._db.executemany(
            "UPDATE requests SET state = ?, reply = ?, error = ?, retryable = ? "
            "WHERE custom_id = ? AND batch = ?",
            (
                (state, _reply_json(reply) if reply else None, error, int(retry), custom, label)
                for custom, state, reply, error, retry in outcomes
            ),
        )
        state, error, retry = missing
        self._db.execute(
            "UPDATE requests SET state = ?, error = ?, retryable = ? "
            "WHERE batch = ? AND state = 'queued'",
            (state, error, int(retry), label),
        )
        self._db.execute("RELEASE collecting")
        self.update(label, "collected")

    def split(self, label: str, labels: Sequence[str]) -> list[str]:
        """Send a batch's requests again as ``len(labels)`` smaller batches, ready to go: a
        batch its provider refused (or failed) for its size alone, so that nothing of it was
        run or paid for. Its requests keep their custom IDs and tries; its input file is cut
        into consecutive parts (its lines are in the order its rows were queued).

        The new input files are written and synced first, then one transaction moves the
        rows and drops the old batch: a kill before the commit leaves the old batch as it
        was (the new files are written over when those labels are used), a kill after it
        leaves the parts sealed. The new batches are labelled by the caller (one per part,
        from `next_label`, within this same transaction)."""
        old = self._db.execute("SELECT model FROM batches WHERE label = ?", (label,)).fetchone()
        lines = self.input(label).read_bytes().splitlines(keepends=True)
        customs = [
            row[0]
            for row in self._db.execute(
                "SELECT custom_id FROM requests WHERE batch = ? ORDER BY rowid", (label,)
            )
        ]
        if old is None or len(lines) != len(customs) or len(labels) > len(lines):
            raise RuntimeError(f"batch {label}: its input file does not match its requests")
        parts = len(labels)
        bounds = [len(lines) * n // parts for n in range(parts + 1)]
        made = []
        for n, new in enumerate(labels):
            chunk = lines[bounds[n] : bounds[n + 1]]
            path = self.input(new)
            with open(path, "wb") as handle:
                handle.writelines(chunk)
                handle.flush()
                os.fsync(handle.fileno())
            made.append((new, chunk, customs[bounds[n] : bounds[n + 1]]))
        now = time.time()
        for new, chunk, ids in made:
            size = sum(len(line) for line in chunk)
            tokens = sum(tokens_of(line) for line in chunk)
            self._db.execute(
                "INSERT INTO batches (label, model, state, requests, bytes, tokens, opened, "
                "changed) VALUES (?, ?, 'sealed', ?, ?, ?, ?, ?)",
                (new, old[0], len(chunk), size, tokens, now, now),
            )
            self._db.executemany(
                "UPDATE requests SET batch = ? WHERE custom_id = ? AND batch = ?",
                ((new, custom, label) for custom in ids),
            )
        self._db.execute("DELETE FROM batches WHERE label = ?", (label,))
        self.commit()
        self.input(label).unlink(missing_ok=True)
        return [new for new, _, _ in made]

    def rows(self) -> Iterator[tuple[str, str, int, str, str | None, str]]:
        """Every request: custom ID, call address, try, model, batch, state."""
        yield from self._db.execute(
            "SELECT custom_id, key, try, model, batch, state FROM requests ORDER BY rowid"
        )
