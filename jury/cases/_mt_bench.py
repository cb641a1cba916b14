"""MT-Bench model answers joined to their questions.

FastChat keeps a benchmark in one folder (fastchat/llm_judge/data/<bench>/): its questions in
``question.jsonl`` and each model's answers in ``model_answer/<model>.jsonl`` (references in
``reference_answer/<model>.jsonl``, the same shape), keyed by ``question_id``. An answer file
alone has no question to judge the answer against, so the questions are read from
``../question.jsonl`` beside it, and each answer becomes the conversation it answers: the
question's turns and the answer's, one after the other (MT-Bench's second question is asked
after the first answer), with the question's category and per-turn reference.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from ._shape_base import Record
from ._shapes_chat import mt_bench

__all__ = ["MT_BENCH_ANSWERS", "Questions"]

MT_BENCH_ANSWERS = "MT-Bench answers"


class Questions:
    """The questions of the MT-Bench answer file at `answers` (None: standard input or a
    dataset, which have no folder), read once, at the first answer that needs them."""

    def __init__(self, answers: Path | None) -> None:
        self.path = answers.parent.parent / "question.jsonl" if answers is not None else None
        self._by_id: dict[str, Record] | None = None
        #: Whether an answer was joined to its question (for the notice).
        self.used = False

    def _read(self) -> dict[str, Record]:
        if self.path is None or not self.path.is_file():
            where = f"{self.path}" if self.path is not None else "../question.jsonl"
            raise ValueError(
                f"MT-Bench answers carry no question, and {where} (FastChat's "
                "data/<bench>/question.jsonl beside model_answer/) was not found: keep the "
                "answers in that layout, or give each record a question"
            )
        by_id: dict[str, Record] = {}
        with self.path.open(encoding="utf-8") as handle:
            for number, line in enumerate(handle, start=1):
                if not line.strip():
                    continue
                try:
                    record = json.loads(line)
                    by_id[str(record["question_id"])] = mt_bench(dict(record))
                except (ValueError, KeyError, TypeError) as exc:
                    reason = f"no question_id {exc}" if isinstance(exc, KeyError) else exc
                    raise ValueError(f"{self.path} line {number}: {reason}") from None
        return by_id

    def join(self, data: Record) -> Record:
        """The case of one answer (a record read as `MT_BENCH_ANSWERS`), with its question."""
        if self._by_id is None:
            self._by_id = self._read()
        question = self._by_id.get(str(data["id"]))
        if question is None:
            raise ValueError(f"question_id {data['id']}: no such question in {self.path}")
        self.used = True
        asked = question.get("metadata", {}).get("turns") or [question["question"]]
        metadata: dict[str, Any] = dict(data.get("metadata") or {})
        said = metadata["choices"][0]["turns"]
        if len(said) != len(asked):
            raise ValueError(
                f"choices[0].turns: {len(said)} answers to the {len(asked)} turns of question "
                f"{data['id']} in {self.path}"
            )
        turns = []
        for ask, answer in zip(asked, said, strict=True):
            turns += [{"role": "user", "content": ask}, {"role": "assistant", "content": answer}]
        out = {k: v for k, v in data.items() if k not in ("answer", "metadata")}
        out["turns"] = turns
        for field in ("category", "golden_answer"):
            if field in question:
                out[field] = question[field]
        if "reference" in question.get("metadata", {}):
            metadata["reference"] = question["metadata"]["reference"]
        out["metadata"] = metadata
        return out
