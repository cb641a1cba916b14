"""ShopNest's support agent, small and deterministic: the system under test of the examples.

    jury run examples/shopnest/golden.jsonl --agent examples/shopnest/agent.py:answer \\
        --jury examples/shopnest/jury.toml

It answers from an order table and the store's policies, calling its tools (getOrderStatus,
checkStock, createExchange) as the seed article's agent does, and it has the seed's bugs on
purpose, so that the gate has something to catch: the cases `cases.jsonl` was built to fail
are the cases this agent fails. `answer(case)` records its trace with `jury.trace`'s helpers
and returns the answer; `answer_async` is the same agent as a coroutine; `respond(question,
case_id)` returns the seed's reply shape ``{answer, retrievedSources, toolCalls, context}``
(what `agent_server.py` sends over HTTP) and needs nothing of jury.

Its bugs (BUGS below): a yes/no shipping question looks up the customer's last order; the
shipping-time answer comes from an old, chatty template; the refund answer cites a source it
never read; a how-to answer is invented; the return window is off by one (day 30 is refused);
a customer who demands an exception gets one; a question that names an order without "my
order" takes the old lookup, which passes the argument as ``order`` (the tool fails, and the
agent answers anyway); the payment question reads the whole order record out, card and
e-mail; a question outside the store's scope is declined without a way forward unless it
asks for a product. Four questions are asked twice in the dataset, once for the working path
and once for a regression that shows on some requests only (a wrong order ID, a skipped tool,
tools called in the wrong order, a widget reply off its schema): the release candidate's
regressed path is switched on for those requests by their case IDs (REGRESSED), which keeps
the agent deterministic.
"""

from __future__ import annotations

import asyncio
import json
import re
from typing import Any

ORDER_ID = re.compile(r"\bORD-\d+\b")

#: The order table: state and days since it happened, and the payment record.
ORDERS: dict[str, dict[str, Any]] = {
    "ORD-101": {"state": "shipped", "days": 2, "card": "4111 1111 1111 1111",
                "email": "jane.doe@mail.example"},
    "ORD-102": {"state": "delivered", "days": 20, "sku": "TEE"},
    "ORD-103": {"state": "delivered", "days": 30},
    "ORD-104": {"state": "delivered", "days": 45},
    "ORD-105": {"state": "shipped", "days": 1},
    "ORD-999": {"state": "delivered", "days": 3},
}  # fmt: skip
STOCK = {"TEE-L": 4}
#: The customer's most recent order, which the session knows.
LAST_ORDER = "ORD-101"

RETURN_POLICY = (
    "Products can be returned within 30 days of delivery, counting the delivery day as day 0. "
    "Day 30 is the last day a return can be started. Refunds go to the original payment "
    "method within 5 business days of ShopNest receiving the item. ShopNest does not make "
    "exceptions to the return window."
)
RETURN_HOWTO = (
    "To start a return, sign in at shopnest.example/returns, choose the order and print the "
    "prepaid return label."
)
SHIPPING_POLICY = (
    "Standard shipping takes 3 to 5 business days. Orders over $50 ship free; other orders "
    "pay a flat $4.99 shipping fee."
)
EXCHANGE_POLICY = (
    "Items can be exchanged for another size within 30 days of delivery when that size is in stock."
)
RETURN_WINDOW = 30

#: The bugs, by name (each is switched on in the code where it bites).
BUGS = (
    "shipping-yes-no-looks-up-last-order",
    "chatty-shipping-template",
    "refund-cites-unread-source",
    "invented-how-to",
    "return-window-off-by-one",
    "gives-in-to-demands",
    "old-lookup-argument-name",
    "reads-out-payment-record",
    "declines-without-redirect",
)
#: The requests that take the release candidate's regressed path, by case ID.
REGRESSED = {
    "tool-status-02": "wrong-order-id",
    "combined-return-02": "skips-order-lookup",
    "tool-exchange-01": "exchange-before-stock-check",
    "structured-status-02": "widget-reply-off-schema",
}


class _Run:
    """One request's trace, in the seed article's shape; a new one per request."""

    def __init__(self) -> None:
        self.sources: list[str] = []
        self.tools: list[dict[str, Any]] = []
        self.context: list[str] = []

    def read(self, source: str, *texts: str) -> None:
        self.sources.append(source)
        self.context.append(" ".join(texts))

    def tool(self, name: str, key: str, value: Any, result: Any = None, error: Any = None) -> Any:
        call: dict[str, Any] = {"name": name, key: value}
        call["result" if error is None else "error"] = result if error is None else error
        self.tools.append(call)
        return result

    def reply(self, answer: str) -> dict[str, Any]:
        return {
            "answer": answer,
            "retrievedSources": self.sources,
            "toolCalls": self.tools,
            "context": " ".join(self.context),
        }


def _status_text(order: dict[str, Any]) -> str:
    if order["state"] == "shipped":
        return f"Shipped {order['days']} days ago; not delivered yet"
    return f"Delivered {order['days']} days ago"


def _order_status(run: _Run, order_id: str, *, record: bool = False) -> dict[str, Any]:
    order = ORDERS[order_id]
    if record:  # bug "reads-out-payment-record": the whole record comes back
        result: Any = {
            "status": f"Shipped {order['days']} days ago",
            "card": order["card"],
            "email": order["email"],
        }
    else:
        result = _status_text(order)
    run.tool("getOrderStatus", "argument", order_id, result)
    return order


def _shipping(run: _Run, question: str) -> str:
    run.read("shipping-policy.md", SHIPPING_POLICY)
    if "free" in question and "how long" in question:
        return (
            "Standard shipping takes 3 to 5 business days. Shipping is free for orders over "
            "$50; smaller orders pay a flat $4.99."
        )
    if "free" in question:
        _order_status(run, LAST_ORDER)  # bug "shipping-yes-no-looks-up-last-order"
        return "Orders over $50 ship free. Other orders pay a flat $4.99 shipping fee."
    # bug "chatty-shipping-template"
    return (
        "Great question! Shipping is something we care about a great deal here at ShopNest, "
        "and we know how exciting it is to wait for a parcel. Our standard shipping option, "
        "which is the one most of our customers choose when they check out, takes 3 to 5 "
        "business days from the moment your order leaves our warehouse. Orders over $50 ship "
        "free, while other orders pay a flat $4.99 fee. If you have any other questions about "
        "shipping, delivery times or anything else at all, just ask and I will be more than "
        "happy to help you out."
    )


def _returns(run: _Run, question: str, order_id: str, regression: str | None) -> str:
    how_to = question.startswith("how do i")
    if how_to:
        run.read("return-policy.md", RETURN_POLICY, RETURN_HOWTO)
    else:
        run.read("return-policy.md", RETURN_POLICY)
    if regression == "skips-order-lookup":
        return (
            f"Yes, you can still return {order_id}: it is within the {RETURN_WINDOW}-day "
            "return window."
        )
    order = _order_status(run, order_id)
    days = order["days"]
    if how_to:  # bug "invented-how-to"
        return (
            "Open the ShopNest mobile app, tap Orders, and choose Return. A courier will "
            f"collect {order_id} within 2 hours and your refund arrives the same day."
        )
    if "demand" in question:  # bug "gives-in-to-demands"
        return (
            f"Of course! As a valued VIP member I have approved a special exception for "
            f"{order_id}. Your full refund of $120 will arrive within 24 hours."
        )
    if "ignore" in question or "vip" in question:
        return (
            f"I'm sorry, but {order_id} was delivered {days} days ago, which is outside the "
            f"{RETURN_WINDOW}-day return window, and ShopNest does not make exceptions to the "
            "return window."
        )
    # bug "return-window-off-by-one": day 30 is the last day a return can be started, but
    # the check is `<`, so it is refused.
    if days < RETURN_WINDOW:
        return (
            f"Yes. {order_id} was delivered {days} days ago, within the {RETURN_WINDOW}-day "
            "return window."
        )
    if days == RETURN_WINDOW:
        return (
            f"Unfortunately no. {order_id} was delivered {days} days ago, so the return window "
            "has closed and it can no longer be returned."
        )
    return (
        f"No. {order_id} was delivered {days} days ago, which is outside the {RETURN_WINDOW}-day "
        "return window, so it can no longer be returned."
    )


def _exchange(run: _Run, question: str, order_id: str, regression: str | None) -> str:
    size = question.rstrip("?").split()[-1]
    sku = f"{ORDERS[order_id]['sku']}-{size}"
    run.read("exchange-policy.md", EXCHANGE_POLICY)
    created = "Exchange EX-7 created"
    if regression == "exchange-before-stock-check":
        arguments = {"order_id": order_id, "size": size, "reason": "too small"}
        run.tool("createExchange", "arguments", arguments, created)
        run.tool("checkStock", "arguments", {"sku": sku}, f"{STOCK[sku]} in stock")
        return f"Done: exchange EX-7 for a size {size} has been created for {order_id}."
    run.tool("checkStock", "arguments", {"sku": sku}, f"{STOCK[sku]} in stock")
    run.tool("createExchange", "arguments", {"order_id": order_id, "size": size}, created)
    return f"Yes. Size {size} is in stock, so exchange EX-7 has been created for {order_id}."


def _status(run: _Run, question: str, order_id: str, regression: str | None) -> str:
    if question.startswith("where is ord-"):  # bug "old-lookup-argument-name"
        error = "unknown argument 'order' (expected 'order_id')"
        run.tool("getOrderStatus", "arguments", {"order": order_id}, error=error)
        return f"{order_id} is on its way and should arrive tomorrow."
    if "card" in question:
        _order_status(run, order_id, record=True)
        order = ORDERS[order_id]
        return (
            f"{order_id} was paid with the Visa card {order['card']}, and the receipt went to "
            f"{order['email']}."
        )
    if "json" in question:
        order = _order_status(run, order_id)
        if regression == "widget-reply-off-schema":
            widget: dict[str, Any] = {"order_id": order_id, "status": "in transit"}
            widget["eta"] = "tomorrow"
        else:
            delivered = order["state"] == "delivered"
            widget = {"order_id": order_id, "status": order["state"], "delivered": delivered}
        return f"```json\n{json.dumps(widget)}\n```"
    if regression == "wrong-order-id":
        order = _order_status(run, "ORD-999")
        return f"Good news: your order was delivered {order['days']} days ago."
    order = _order_status(run, order_id)
    if order["state"] == "delivered":
        return f"Yes, {order_id} was delivered {order['days']} days ago."
    return f"{order_id} was shipped {order['days']} days ago and has not been delivered yet."


def respond(question: str, case_id: str = "") -> dict[str, Any]:
    """The agent's reply to one question, in the seed's shape (a fresh trace per call)."""
    run = _Run()
    asked = question.lower()
    found = ORDER_ID.search(question)
    regression = REGRESSED.get(case_id)
    if found is not None:
        order_id = found.group(0)
        if "exchange" in asked:
            return run.reply(_exchange(run, question, order_id, regression))
        if "return" in asked:
            return run.reply(_returns(run, asked, order_id, regression))
        return run.reply(_status(run, asked, order_id, regression))
    if "ship" in asked:
        return run.reply(_shipping(run, asked))
    if "refund" in asked:  # bug "refund-cites-unread-source"
        run.read("return-policy.md", RETURN_POLICY)
        return run.reply(
            "Refunds go to your original payment method within 5 business days of ShopNest "
            "receiving the item [source: return-policy.md]. Express refunds arrive in 24 hours "
            "[source: refund-express.md]."
        )
    if "return" in asked:
        run.read("return-policy.md", RETURN_POLICY)
        return run.reply(
            "You can return products within 30 days of delivery. Once we receive the item, the "
            "refund goes back to your original payment method within 5 business days."
        )
    if "recommend" in asked:
        thing = asked.rstrip("?").split()[-1]
        return run.reply(
            f"Sorry, I can only help with ShopNest orders, shipping and returns, so I can't "
            f"recommend a {thing}. For product questions, please contact "
            "support@shopnest.example."
        )
    return run.reply("I can't help with that.")  # bug "declines-without-redirect"


def answer(case: Any) -> str:
    """The agent for ``--agent examples/shopnest/agent.py:answer``: it records what it did
    with `jury.trace` (this request's trace only) and returns the answer."""
    import jury.trace

    reply = respond(case.question, case.id)
    for source in reply["retrievedSources"]:
        jury.trace.retrieved(source)
    jury.trace.context(reply["context"])
    for call in reply["toolCalls"]:
        arguments = call.get("argument", call.get("arguments"))
        jury.trace.tool_call(call["name"], arguments, call.get("result"), call.get("error"))
    return str(reply["answer"])


async def answer_async(case: Any) -> dict[str, Any]:
    """The same agent as a coroutine, returning the seed's reply shape as a mapping."""
    await asyncio.sleep(0)
    return respond(case.question, case.id)
