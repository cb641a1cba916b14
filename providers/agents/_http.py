"""``http://...`` and ``https://...``: an HTTP endpoint as the agent, over aiohttp.

Each case is POSTed as JSON: ``{"id", "question", "metadata"}``, and ``"messages"`` (``[{role,
content}]``, OpenAI's chat shape) for a conversation. A body template (``agent_body``) replaces
that body: its strings are filled from the case (`providers.agents._template`; a string that
is only ``{{messages}}`` becomes the list itself). The golden answer and the expectations are
never sent.

**Images.** A case's images (`jury.Case.images`) are POSTed as ``"images"``: a list of
strings, each the image's ``data:`` URI (``data:image/png;base64,...``) or its http(s) URL,
in the order of their numbers, which the question's and the messages' text mark where each
was (``[image 1]``). A list of its own, rather than the messages in OpenAI chat's content-part
shape: every key the body had keeps its type (a message's ``content`` stays a string), so an
endpoint that reads no images is sent what it was before, and a body without images has no
``images`` key at all; each string is what OpenAI chat's ``image_url.url`` takes, so an
endpoint that forwards to a model can place it as it is. A body template places them with
``{{images}}`` (the list itself; ``[]`` for a case without images); a template that places
none is `blind` to them, and a run whose cases have images warns so at load (the endpoint
may find them its own way, by the case's ID).

The reply: JSON (``application/json`` or ``*+json``) is read by `jury.adapters.reply_from`,
with the field map (``agent_fields``) for shapes of its own; ``text/plain`` (or
``text/markdown``) is the answer. Any other type raises `AgentError` naming it, with the first
200 characters of a text body: ``text/html`` is a web page (a login page, a proxy's error
page) and not the agent's answer, so it fails its case at stage "agent" instead of being
judged (a reply without ``Content-Type`` is ``application/octet-stream`` to aiohttp). A status
outside 2xx raises `AgentError` with the status and the first 200 characters of the body; a
connection that cannot be made at all (refused, a host that does not resolve) raises
`AgentUnreachable`, so that a run whose first calls all get it stops with exit 2 instead of
failing every case; a reply slower than the timeout raises `AgentError`. The agent's `latency`
is the time from the request to the whole reply, unless the reply gives its own. Headers come
resolved from the jury file (their values never appear in an error or a record).
"""

from __future__ import annotations

import asyncio
import json
import time
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from jury import Case
from jury.adapters import Agent, AgentError, AgentReply, AgentUnreachable, reply_from

from .._wire import sendable
from ._template import render_value, shown, variables

if TYPE_CHECKING:
    import aiohttp

__all__ = ["HttpAgent", "create", "places_images", "request_body"]

_EXCERPT = 200
#: The reply types that are the answer as text (any other text type, HTML first, is not).
_TEXT = ("text/plain", "text/markdown")


def _messages(case: Case) -> list[dict[str, str]]:
    return [{"role": turn.role, "content": turn.content} for turn in case.history]


def _images(case: Case) -> list[str]:
    return [case.images[n - 1].data_uri for n in shown(case)]


def _has_variable(case: Case, name: str) -> bool:
    variables = case.metadata.get("vars")
    return isinstance(variables, dict) and name in variables


def places_images(template: Any) -> bool:
    """Whether a body template places the case's images (a string naming ``{{images}}``)."""
    if isinstance(template, dict):
        return any(places_images(item) for item in template.values())
    if isinstance(template, list):
        return any(places_images(item) for item in template)
    return isinstance(template, str) and "images" in variables(template)


def request_body(case: Case, template: dict[str, Any] | None = None) -> dict[str, Any]:
    """The JSON body `case` is POSTed as (see the module's text)."""
    if template is not None:
        extra: dict[str, Any] = {"messages": _messages(case)}
        # A promptfoo variable of the case named ``images`` is the case's own: it wins, as it
        # does in a model agent's prompt template.
        if not _has_variable(case, "images"):
            extra["images"] = _images(case)
        filled = render_value(template, case, extra)
        return filled if isinstance(filled, dict) else {"input": filled}
    body: dict[str, Any] = {"id": case.id, "question": case.question, "metadata": case.metadata}
    if case.turns:
        body["messages"] = _messages(case)
    if images := _images(case):
        body["images"] = images
    return body


class HttpAgent(Agent):
    """An HTTP endpoint as the agent (see the module's text). The session is made on first
    use, inside the running loop, and closed by `aclose`."""

    def __init__(
        self,
        url: str,
        *,
        headers: dict[str, str] | None = None,
        body: dict[str, Any] | None = None,
        fields: dict[str, str] | None = None,
        timeout: float = 60.0,
        family: str | None = None,
    ) -> None:
        self.name = url
        self.url = url
        self.family = family
        self.timeout = timeout
        self._headers = dict(headers or {})
        self._body = body
        self._fields = fields
        self._session: aiohttp.ClientSession | None = None
        # As aiohttp's ``json=`` sets it: unless the jury file's headers give one.
        given = any(name.lower() == "content-type" for name in self._headers)
        self._content_type = {} if given else {"Content-Type": "application/json"}
        if body is not None and not places_images(body):
            self.blind = "its agent_body places no {{images}}"

    def _client(self) -> aiohttp.ClientSession:
        if self._session is None or self._session.closed:
            import aiohttp

            self._session = aiohttp.ClientSession(
                headers={
                    "Accept": "application/json, text/plain;q=0.9, text/markdown;q=0.9",
                    **self._headers,
                }
            )
        return self._session

    async def respond(self, case: Case) -> AgentReply:
        import aiohttp

        payload = request_body(case, self._body)
        started = time.perf_counter()
        try:
            async with self._client().post(
                self.url,
                # Serialised here, as aiohttp's ``json=`` would, to be sent as a stream when
                # large (a case's images): see `sendable`.
                data=sendable(json.dumps(payload).encode()),
                headers=self._content_type,
                timeout=aiohttp.ClientTimeout(total=self.timeout),
            ) as response:
                raw = await response.read()
                status, kind = response.status, response.content_type
                charset = response.charset or "utf-8"
        except aiohttp.ClientConnectorError as exc:
            # Refused, unresolvable, unroutable: the endpoint is not there at all.
            raise AgentUnreachable(f"agent {self.url}: cannot connect: {exc.os_error}") from None
        except TimeoutError:
            raise AgentError(f"agent {self.url}: no reply within {self.timeout:g}s") from None
        except aiohttp.ClientError as exc:
            raise AgentError(f"agent {self.url}: {type(exc).__name__}: {exc}") from None
        latency = time.perf_counter() - started
        text = raw.decode(charset, errors="replace")
        excerpt = " ".join(text.split())[:_EXCERPT] or "(empty body)"
        if not 200 <= status < 300:
            raise AgentError(f"agent {self.url}: HTTP {status}: {excerpt}")
        if kind == "application/json" or kind.endswith("+json"):
            try:
                value: Any = json.loads(text)
            except ValueError as exc:
                raise AgentError(f"agent {self.url}: the reply is not valid JSON: {exc}") from None
        elif kind in _TEXT:
            value = text
        else:
            # The start of a page says what it is ("Login required"); of a binary, nothing.
            shown = f": {excerpt}" if kind.startswith("text/") else ""
            raise AgentError(
                f"agent {self.url}: HTTP {status} with {kind!r}, not an answer (expected JSON or "
                f"text/plain){shown}"
            )
        reply = reply_from(value, case, self._fields)
        return reply if reply.latency is not None else replace(reply, latency=latency)

    async def aclose(self) -> None:
        if self._session is not None and not self._session.closed:
            await self._session.close()
        # aiohttp's connector closes its sockets on the next loop turn.
        await asyncio.sleep(0)
        self._session = None


def create(
    url: str,
    *,
    headers: dict[str, str] | None = None,
    body: dict[str, Any] | None = None,
    fields: dict[str, str] | None = None,
    timeout: float = 60.0,
    family: str | None = None,
) -> Agent:
    """The agent of an ``http://`` or ``https://`` URL."""
    return HttpAgent(url, headers=headers, body=body, fields=fields, timeout=timeout, family=family)
