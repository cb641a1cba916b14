"""What a run would cost, without making a call (`jury estimate`, `jury run --dry-run`), online
and through the providers' batch APIs.

Input tokens are estimated from the rendered prompts at four characters a token (no
tokenizer is available offline; real counts differ by roughly ten percent either way). Output
tokens are given twice: a typical judge reply (the size of a filled-in reply schema with a
short reason) and the most the panel allows (`max_tokens`), so the cost comes as a range.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from ._case import Case
from ._jury import Jury
from ._model import JudgeReply, Usage

__all__ = ["JurorEstimate", "estimate"]

CHARS_PER_TOKEN = 4
#: A reason of two sentences plus one short field per metric.
REASON_TOKENS = 60
FIELD_TOKENS = 6


@dataclass(slots=True)
class JurorEstimate:
    juror: str
    model: str
    calls: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    max_output_tokens: int = 0
    cost: float | None = 0.0
    max_cost: float | None = 0.0
    offline: bool = False
    #: The same calls through the provider's batch API (None: unknown, or no batch API).
    batch_cost: float | None = 0.0
    batch_max_cost: float | None = 0.0

    def add(self, cost: float | None, max_cost: float | None) -> None:
        self.cost = _plus(self.cost, cost)
        self.max_cost = _plus(self.max_cost, max_cost)

    def add_batch(self, cost: float | None, max_cost: float | None) -> None:
        self.batch_cost = _plus(self.batch_cost, cost)
        self.batch_max_cost = _plus(self.batch_max_cost, max_cost)


def _plus(total: float | None, value: float | None) -> float | None:
    return None if total is None or value is None else total + value


def estimate(jury: Jury, cases: Iterable[Case]) -> list[JurorEstimate]:
    """Calls, tokens and cost per juror for judging `cases` once (first-choice models, no
    re-asks or retries; checks that would spare the judges are not run)."""
    rows = {
        seat.id: JurorEstimate(seat.id, seat.models[0].name, offline=seat.offline)
        for seat in jury.seats
    }
    max_tokens = jury.panel.max_tokens
    for case in cases:
        try:
            prompts = jury.rubric.prompts(case)
        except ValueError:
            continue
        metrics = len(jury.rubric.metrics(case))
        typical_out = REASON_TOKENS + FIELD_TOKENS * metrics
        for seat in jury.seats:
            row = rows[seat.id]
            model = seat.models[0]
            for prompt in prompts:
                tokens_in = (len(prompt.system) + len(prompt.user)) // CHARS_PER_TOKEN
                for _ in range(seat.samples):
                    row.calls += 1
                    row.input_tokens += tokens_in
                    row.output_tokens += typical_out
                    row.max_output_tokens += max_tokens
                    if seat.offline:
                        continue
                    typical = _reply(model.model_id, tokens_in, typical_out)
                    most = _reply(model.model_id, tokens_in, max_tokens)
                    row.add(model.price(typical), model.price(most))
                    # A model without a batch API is judged online in a batch run.
                    batches = model.batches() or model
                    row.add_batch(batches.price(typical), batches.price(most))
    return list(rows.values())


def _reply(model: str, tokens_in: int, tokens_out: int) -> JudgeReply:
    return JudgeReply(text="", model=model, usage=Usage(tokens_in, tokens_out), batch="")
