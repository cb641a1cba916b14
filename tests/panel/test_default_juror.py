"""The default OpenAI juror is chosen by rule and price: of the OpenAI models the lifecycle
table lists with no retirement announced, the dated snapshots (DESIGN: an alias is warned
about on every run that seats it), the cheapest for a verdict's mix of tokens at the price
table's rates. benchmarks/default_juror.py measures the mix and every candidate's price."""

from __future__ import annotations

from datetime import date

from jury.adapters import Usage, price
from jury.adapters._registry import model_status
from jury.panel._defaults import DEFAULT_MODELS
from jury.providers._lifecycle_table import OPENAI

DAY = date(2026, 12, 4)
#: A verdict's tokens as benchmarks/default_juror.py measured them on the shopnest cases
#: (prompt, and reply with the reasoning at "low"), in docs/providers.md.
VERDICT = Usage(1259, 286)


def test_the_default_openai_juror_is_the_cheapest_dated_current_model() -> None:
    (default,) = [m.model for m in DEFAULT_MODELS if m.model.startswith("openai/")]
    current = {row.model for row in OPENAI if row.retires is None}
    dated = []
    for model in sorted(current):
        status = model_status(f"openai/{model}", DAY)
        cost = price("openai", model, VERDICT)
        if status is not None and status.pinned and cost is not None:
            dated.append((cost, model))
    assert dated, "no dated current OpenAI model in the table"
    assert default == f"openai/{min(dated)[1]}"


def test_a_cheaper_model_left_out_is_an_alias_or_retiring() -> None:
    (default,) = [m.model for m in DEFAULT_MODELS if m.model.startswith("openai/")]
    default_cost = price("openai", default.partition("/")[2], VERDICT)
    assert default_cost is not None
    for row in OPENAI:
        cost = price("openai", row.model, VERDICT)
        if cost is None or cost >= default_cost:
            continue
        status = model_status(f"openai/{row.model}", DAY)
        assert status is not None
        # Each cheaper model is either not pinned (gpt-6-luna, gpt-5.6-luna) or announced to
        # retire (gpt-5.4-nano-2026-03-17 on 2027-04-01, gpt-5-nano on 2026-12-11).
        assert not status.pinned or status.retires is not None, row.model
