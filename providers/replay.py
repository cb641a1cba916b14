"""Replayed jurors: recorded judge replies served again, so that past judgements can be
re-aggregated and studied for free (another panel, another quorum, another tie policy).

``replay/<path>`` reads a record file: ``<path>``, else ``<path>.jsonl``, relative to the
working directory or to ``$JURY_REPLAY_DIR``. One record a line (JSON)::

    {"case": "c-17", "prompt": "AB", "sample": 0, "turn": 0,
     "reply": {"reason": "...", "winner": "1"}, "model": "gpt-4-0613"}

``case``
    The case ID (required).
``prompt``
    The rubric's prompt key: ``"answer"`` for the scale, points and criterion kinds, ``"AB"``
    and ``"BA"`` for the two orders of the pairwise kind. Default ``"answer"``.
``sample``
    The sample index, for panels that sample a juror more than once. Default 0.
``turn``
    0 for the first reply, 1 for the reply to the first re-ask, and so on. Default 0. When a
    re-ask has no record of its own the last recorded turn is served again: the recorded
    judge said nothing else, so an invalid reply stays invalid.
``reply``
    What the judge sent back, as text (kept byte for byte, so that an unparseable reply is
    read as unparseable) or as a JSON object (sent on as its JSON text). Required.
``model``
    The model that served the reply, recorded as the vote's ``served_by``. Optional.

A replayed reply goes through the same validation as a live one: a reply the rubric cannot
read is an invalid vote, never a default. A case with no record makes the vote unavailable.
The request's ``case``, ``prompt`` and ``sample`` fields (never sent to a live judge) are the
look-up key; the rendered prompt is ignored, so records survive a reworded rubric (pin the
prompts with ``jury prompts`` to know when that happens).
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from jury import ConfigError
from jury.adapters import InvalidRequestError, JudgeModel, JudgeReply, JudgeRequest, family_of

__all__ = ["Record", "ReplayModel", "create", "load_records", "write_records"]

_FIELDS = frozenset({"case", "prompt", "sample", "turn", "reply", "model"})


@dataclass(frozen=True, slots=True)
class Record:
    """One recorded reply of one judge."""

    case: str
    reply: str
    prompt: str = "answer"
    sample: int = 0
    turn: int = 0
    model: str | None = None

    def as_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "case": self.case,
            "prompt": self.prompt,
            "sample": self.sample,
            "turn": self.turn,
            "reply": self.reply,
        }
        if self.model is not None:
            data["model"] = self.model
        return data


def _field(line: int, name: str, reason: str, source: str) -> ConfigError:
    where = f"line {line}: {name}" if name else f"line {line}"
    return ConfigError(f"{source}: {where}: {reason}")


def _record(data: Any, line: int, source: str) -> Record:
    if not isinstance(data, dict):
        raise _field(line, "", "a record must be a JSON object", source)
    unknown = sorted(set(data) - _FIELDS)
    if unknown:
        raise _field(line, unknown[0], "unknown field", source)
    case = data.get("case")
    if isinstance(case, int) and not isinstance(case, bool):
        case = str(case)
    if not isinstance(case, str) or not case:
        raise _field(line, "case", "missing: every record names its case", source)
    if "reply" not in data:
        raise _field(line, "reply", "missing", source)
    reply = data["reply"]
    if isinstance(reply, Mapping):
        reply = json.dumps(reply, ensure_ascii=False)
    if not isinstance(reply, str):
        raise _field(line, "reply", "must be the reply's text or a JSON object", source)
    prompt = data.get("prompt", "answer")
    if not isinstance(prompt, str):
        raise _field(line, "prompt", "must be a string", source)
    numbers = {}
    for name in ("sample", "turn"):
        value = data.get(name, 0)
        if not isinstance(value, int) or isinstance(value, bool) or value < 0:
            raise _field(line, name, "must be a whole number from 0", source)
        numbers[name] = value
    model = data.get("model")
    if model is not None and not isinstance(model, str):
        raise _field(line, "model", "must be a string", source)
    return Record(case, reply, prompt, numbers["sample"], numbers["turn"], model)


def load_records(path: str | Path) -> list[Record]:
    """Read a record file; a bad line raises `ConfigError` naming its line and field."""
    records = []
    with open(path, encoding="utf-8") as handle:
        for number, text in enumerate(handle, start=1):
            if not text.strip():
                continue
            try:
                data = json.loads(text)
            except json.JSONDecodeError as exc:
                raise _field(number, "", f"not valid JSON: {exc.msg}", str(path)) from None
            records.append(_record(data, number, str(path)))
    return records


def write_records(path: str | Path, records: Iterable[Record]) -> None:
    with open(path, "w", encoding="utf-8") as handle:
        for record in records:
            handle.write(json.dumps(record.as_json(), ensure_ascii=False) + "\n")


class ReplayModel(JudgeModel):
    """A juror that answers from records instead of calling a model."""

    offline = True

    def __init__(self, name: str, records: Iterable[Record], *, family: str | None = None) -> None:
        self.name = name
        self._replies: dict[tuple[str, str, int], dict[int, Record]] = {}
        models: set[str] = set()
        for record in records:
            turns = self._replies.setdefault((record.case, record.prompt, record.sample), {})
            if record.turn in turns:
                raise ConfigError(
                    f"{name}: two records for case {record.case!r}, prompt {record.prompt!r}, "
                    f"sample {record.sample}, turn {record.turn}"
                )
            turns[record.turn] = record
            if record.model:
                models.add(record.model)
        if family is None:
            # The recorded model's family, when every record names models of one family.
            families = {family_of(f"replay-of/{model}") for model in models}
            family = families.pop() if len(families) == 1 else "replay"
        self.family = family if family != "unknown" else "replay"

    @property
    def account(self) -> str:
        return self.name

    def __len__(self) -> int:
        return sum(len(turns) for turns in self._replies.values())

    async def complete(self, request: JudgeRequest) -> JudgeReply:
        case = request.case
        if case is None:
            raise InvalidRequestError(f"{self.name} needs the case with the request")
        turns = self._replies.get((case.id, request.prompt, request.sample))
        if not turns:
            raise InvalidRequestError(
                f"{self.name}: no recorded reply for case {case.id!r}, prompt "
                f"{request.prompt!r}, sample {request.sample}"
            )
        turn = sum(1 for message in request.messages if message.role == "assistant")
        served = [t for t in turns if t <= turn]
        if not served:
            raise InvalidRequestError(
                f"{self.name}: case {case.id!r} has no record for turn {turn} or before"
            )
        record = turns[max(served)]
        return JudgeReply(text=record.reply, model=record.model or self.name)


def _record_file(spec: str) -> Path:
    given = spec.partition("/")[2]
    if not given:
        raise ConfigError("replay needs a record file: replay/<path>")
    bases = [Path.cwd()]
    if os.environ.get("JURY_REPLAY_DIR"):
        bases.append(Path(os.environ["JURY_REPLAY_DIR"]))
    for base in bases:
        for candidate in (base / given, base / f"{given}.jsonl"):
            if candidate.is_file():
                return candidate
    looked = ", ".join(str(b) for b in bases)
    raise ConfigError(f"{spec}: no record file {given} or {given}.jsonl (looked in {looked})")


def create(spec: str) -> ReplayModel:
    return ReplayModel(spec, load_records(_record_file(spec)))
