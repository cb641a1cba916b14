"""ShopNest's own check, named in jury.toml: a user check is a function of a case."""

from __future__ import annotations

import re

from jury import Case
from jury.checks import Finding, check, failed, not_applicable, passed

ORDER_ID = re.compile(r"\bORD-\d+\b")


@check(stage="generation", required=False)
def names_the_order(case: Case) -> Finding:
    """An answer about an order says which order it is talking about."""
    asked = ORDER_ID.findall(case.question)
    if not asked:
        return not_applicable("the question names no order")
    if any(order in (case.answer or "") for order in asked):
        return passed(evidence=", ".join(asked))
    return failed(f"the answer never names {', '.join(asked)}")
