"""The labelling page of `jury label`: an aiohttp application on 127.0.0.1.

The page (``label.html.j2``, its style sheet and script, under the report's policy plus
``connect-src 'self'``, see `_page.render_app`) asks the server for one case at a time and
posts each label as soon as it is chosen. The server never sends a case's votes before this
labeller has labelled it: what the jurors said cannot anchor a label it was not sent with.

No token in the URL: any page in the labeller's browser can reach 127.0.0.1, so every request
must carry a ``Host`` of this server (a DNS-rebinding page has its own name there), and every
write an ``Origin`` of this server and a JSON body (which a cross-site form cannot send).
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable, Mapping
from typing import Any

from aiohttp import web

from .._verdict import CaseVerdict, VoteStatus
from ..cases._case import Case
from ..runs._label_queue import LabelQueue
from ._page import render_app

__all__ = ["case_view", "label_app", "votes_view"]

Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]
QUEUE = web.AppKey("queue", LabelQueue)
HOSTS = web.AppKey("hosts", set[str])
#: Largest request body: a label and a note, never a file.
MAX_BODY = 64 * 1024


def case_view(case: Case) -> dict[str, Any]:
    """What the labeller reads, without anything the jurors said."""
    trace = case.trace
    return {
        "id": case.id,
        "category": case.category,
        "question": case.question,
        "answer": case.answer,
        "answer_b": case.answer_b,
        "golden_answer": case.golden_answer,
        "expected_behaviour": case.expected_behaviour,
        "context": list(trace.context),
        "sources": list(trace.retrieved_sources),
        "tool_calls": [
            {
                "name": call.name,
                "arguments": json.dumps(call.arguments, ensure_ascii=False, default=str),
                "result": None
                if call.result is None
                else json.dumps(call.result, ensure_ascii=False, default=str),
            }
            for call in trace.tool_calls
        ],
        "turns": [{"role": turn.role, "content": turn.content} for turn in case.turns],
    }


def votes_view(verdict: CaseVerdict | None) -> dict[str, Any] | None:
    if verdict is None:
        return None
    return {
        "verdict": verdict.verdict.value,
        "reasons": list(verdict.reasons),
        "votes": [
            {
                "juror": vote.juror,
                "status": vote.status.value,
                "verdict": vote.verdict.value if vote.verdict else None,
                "scores": dict(vote.scores),
                "reason": vote.reason if vote.status is VoteStatus.VALID else vote.error,
            }
            for vote in verdict.votes
        ],
    }


def _headers(policy: str) -> dict[str, str]:
    return {
        "Content-Security-Policy": policy + "; frame-ancestors 'none'",
        "X-Content-Type-Options": "nosniff",
        "Referrer-Policy": "no-referrer",
        "Cache-Control": "no-store",
    }


def _refuse(status: int, why: str) -> web.Response:
    return web.json_response({"error": why}, status=status)


@web.middleware
async def _guard(request: web.Request, handler: Handler) -> web.StreamResponse:
    hosts = request.app[HOSTS]
    if request.host not in hosts:
        return _refuse(403, f"Host {request.host!r} is not this server")
    if request.method not in ("GET", "HEAD"):
        origin = request.headers.get("Origin")
        if origin not in {f"http://{host}" for host in hosts}:
            return _refuse(403, f"Origin {origin!r} is not this server")
        if request.content_type != "application/json":
            return _refuse(415, "a write must be JSON")
    return await handler(request)


def _case_reply(queue: LabelQueue, case_id: str) -> dict[str, Any]:
    # Done means every field asked here is given: a case labelled pass/fail only, now asked
    # for a metric too, is not, and its votes stay unsent until it is.
    mine = queue.done().get(case_id)
    reply: dict[str, Any] = {
        "case": case_view(queue.cases[case_id]),
        "fields": queue.fields(case_id),
        "stale": queue.stale(case_id),
        "progress": queue.progress(),
        "label": None,
        "note": None,
    }
    if mine is not None and mine.labels is not None:
        asked = {field["name"] for field in reply["fields"]}
        reply["label"] = {k: v for k, v in mine.labels.items() if k in asked}
        reply["note"] = mine.note
        reply["jury"] = votes_view(queue.verdicts.get(case_id))
    return reply


async def _state(request: web.Request) -> web.Response:
    queue = request.app[QUEUE]
    return web.json_response(
        {
            "labeller": queue.labeller,
            "rubric": queue.rubric.name,
            "order": queue.order,
            "asked": None if queue.only is None else list(queue.only),
            "next": queue.next_case(),
            "progress": queue.progress(),
        }
    )


async def _case(request: web.Request) -> web.Response:
    queue = request.app[QUEUE]
    case_id = request.match_info["case_id"]
    if case_id not in queue.cases:
        return _refuse(404, f"no case with the ID {case_id!r} is being labelled")
    return web.json_response(_case_reply(queue, case_id))


async def _body(request: web.Request) -> Mapping[str, Any] | None:
    try:
        data = await request.json()
    except ValueError:
        return None
    return data if isinstance(data, dict) else None


async def _label(request: web.Request) -> web.Response:
    queue = request.app[QUEUE]
    data = await _body(request)
    if data is None or not isinstance(data.get("labels"), dict):
        return _refuse(400, "expected {case_id, labels, note}")
    case_id, note = data.get("case_id"), data.get("note")
    if not isinstance(case_id, str) or not (note is None or isinstance(note, str)):
        return _refuse(400, "case_id must be a string, note a string or null")
    problem = queue.label(case_id, data["labels"], note)
    if problem is not None:
        return _refuse(422, problem)
    reply = _case_reply(queue, case_id)
    reply["next"] = queue.next_case()
    return web.json_response(reply)


async def _undo(request: web.Request) -> web.Response:
    queue = request.app[QUEUE]
    case_id = queue.undo()
    return web.json_response({"case_id": case_id, "progress": queue.progress()})


def label_app(queue: LabelQueue, hosts: set[str]) -> web.Application:
    """The application; `hosts` (``127.0.0.1:PORT``...) is filled in once the port is known."""
    page, policy = render_app(
        "label.html.j2", "label.css", "label.js", title=f"jury label · {queue.labeller}"
    )
    headers = _headers(policy)

    async def index(request: web.Request) -> web.Response:
        return web.Response(text=page, content_type="text/html", headers=headers)

    app = web.Application(middlewares=[_guard], client_max_size=MAX_BODY)
    app[QUEUE] = queue
    app[HOSTS] = hosts
    app.router.add_get("/", index)
    app.router.add_get("/api/state", _state)
    app.router.add_get("/api/case/{case_id}", _case)
    app.router.add_post("/api/label", _label)
    app.router.add_post("/api/undo", _undo)
    return app
