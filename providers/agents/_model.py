"""``provider/model``: a model as the system under test, through the judges' adapters.

The model is the `JudgeModel` the provider registry resolves ``provider/model`` to, so it has
the same wire, credentials and account limits as a judge of that provider. What it is sent
(`ModelAgent.request_for`): with a prompt template (``--agent-prompt FILE``, promptfoo's
``{{var}}`` syntax, `providers.agents._template`), the template filled from the case as one
user message; without one, the case's conversation so far (its system turns as the system
text), or its question as one user message.

**Images.** A case's images (`jury.Case.images`) go with the user message whose text marks
them (``[image 1]``), in the protocol's shape of the judges' requests (`Message.images`):
with a template, the one message; in a conversation, each user turn its own; an image that no
user message marks (one in a system turn, or a template that leaves it out) goes with the
last, the message the model answers, so that none is dropped. They are part of the request,
so of its cache key (`jury.adapters.call_key` hashes each image): a rerun pays nothing twice,
and a changed image is a new call.

A model that cannot take images must not answer a case that has them: its answer would be a
guess at what it was not shown, judged as the system's. Which models take images is what the
providers' profiles say (`jury.adapters.images_refusal`), known before a call, so a run
whose cases have images and whose agent model takes none stops at load with a configuration
error (exit 2) naming the model and how many cases have images, rather than failing those
cases one by one at the stage "agent": no case of such a run could be answered, and the fix
(another model, or ``agent_images = true`` for a server's vision model the table cannot
know) is the user's to make before anything is paid. `blind` says why; `request_for` raises
`AgentError` on such a case too, for the callers that load no cases first (the pytest
plugin, `respond`), so that the case fails at the stage "agent" instead.

The adapters constrain every reply with a JSON schema (a judge's ballot), so the agent asks
for ``{"answer": "..."}`` (`ANSWER_SCHEMA`) and reads the answer from it; a reply that is not
that JSON (a server told to send plain text) is the answer as it is.

**For the engine**: `ModelAgent.model` is the `JudgeModel` and `request_for(case)` the
`JudgeRequest`, so the pipeline can send the call through its own call layer (cache, limits,
retries, price) and turn the `JudgeReply` it gets into the case's `AgentReply` with
`reply_for(reply, cost)`. `respond` calls the model directly (no cache, no retry), for use
outside a run.
"""

from __future__ import annotations

from typing import Any

from jury import Case
from jury.adapters import (
    Agent,
    AgentError,
    AgentReply,
    Image,
    InvalidReply,
    JudgeModel,
    JudgeReply,
    JudgeRequest,
    Message,
    family_of,
    images_refusal,
    parse_reply,
)
from jury.cases import placeholder

from ._template import render, shown

__all__ = ["ANSWER_SCHEMA", "ANSWER_SYSTEM", "ModelAgent", "create"]

#: The reply asked of the model: its answer, as the one field of a JSON object.
ANSWER_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {"answer": {"type": "string"}},
    "required": ["answer"],
    "additionalProperties": False,
}
ANSWER_SYSTEM = 'Reply with a JSON object {"answer": "<your reply to the user>"} and nothing else.'


def _marked(text: str, count: int) -> list[int]:
    """The numbers (from 1) of the images among `count` that `text` marks."""
    return [n for n in range(1, count + 1) if placeholder(n) in text]


def with_images(
    messages: tuple[Message, ...], images: tuple[Image, ...], numbers: list[int]
) -> tuple[Message, ...]:
    """`messages` with each user message carrying the images among `numbers` its text marks,
    and the images no user message marks carried by the last, their marks added to its text
    so that each is labelled by its own number (see the module's text)."""
    carried: list[list[int]] = [
        [n for n in _marked(m.content, len(images)) if n in numbers] if m.role == "user" else []
        for m in messages
    ]
    seen = {n for ns in carried for n in ns}
    left = [n for n in numbers if n not in seen]
    if left:
        carried[-1] += left
        last = messages[-1]
        marks = " ".join(placeholder(n) for n in left)
        messages = (*messages[:-1], Message(last.role, f"{last.content}\n\n{marks}"))
    return tuple(
        Message(m.role, m.content, tuple(images[n - 1] for n in sorted(ns))) if ns else m
        for m, ns in zip(messages, carried, strict=True)
    )


class ModelAgent(Agent):
    """A model answering each case (see the module's text)."""

    model: JudgeModel

    def __init__(
        self,
        name: str,
        model: JudgeModel,
        *,
        template: str | None = None,
        family: str | None = None,
        max_tokens: int = 1024,
        images: bool = False,
    ) -> None:
        self.name = name
        self.model = model
        self.template = template
        self.family = family or family_of(name)
        self.max_tokens = max_tokens
        # ``agent_images = true`` speaks for the model, as a juror's ``images = true`` does.
        self.blind = None if images else images_refusal(name)

    def request_for(self, case: Case) -> JudgeRequest:
        """The request that asks the model to answer `case`."""
        system = [ANSWER_SYSTEM]
        if self.template is not None:
            messages: tuple[Message, ...] = (Message("user", render(self.template, case)),)
        elif case.turns:
            system += [t.content for t in case.history if t.role == "system" and t.content]
            messages = tuple(Message(t.role, t.content) for t in case.history if t.role != "system")
        else:
            messages = (Message("user", case.question),)
        if not messages or messages[-1].role != "user" or not messages[-1].content.strip():
            raise AgentError(f"case {case.id!r} gives the model nothing to answer")
        if case.images:
            if self.blind is not None:
                raise AgentError(
                    f"not asked: the case has {len(case.images)} image(s) and {self.blind}"
                )
            messages = with_images(messages, case.images, shown(case))
        return JudgeRequest(
            system="\n\n".join(system),
            messages=messages,
            schema=ANSWER_SCHEMA,
            schema_name="answer",
            max_tokens=self.max_tokens,
        )

    def reply_for(self, reply: JudgeReply, cost: float | None = None) -> AgentReply:
        """The `AgentReply` of the model's reply: its answer, usage, cost and the model that
        served it (in the metadata)."""
        answer: Any = None
        if isinstance(reply.parsed, dict):
            answer = reply.parsed.get("answer")
        else:
            try:
                parsed = parse_reply(reply.text)
            except InvalidReply:
                answer = reply.text
            else:
                answer = parsed.get("answer") if isinstance(parsed, dict) else reply.text
        if not isinstance(answer, str):
            raise AgentError(f"the model's reply holds no answer: {reply.text[:200]!r}")
        return AgentReply(
            answer=answer,
            usage=reply.usage,
            cost=cost,
            metadata={"model": reply.model, "finish": reply.finish},
        )

    async def respond(self, case: Case) -> AgentReply:
        reply = await self.model.complete(self.request_for(case))
        return self.reply_for(reply, self.model.price(reply))

    async def aclose(self) -> None:
        await self.model.aclose()


def create(
    spec: str,
    model: JudgeModel,
    *,
    template: str | None = None,
    family: str | None = None,
    images: bool = False,
) -> Agent:
    """The agent of ``provider/model`` (the model already resolved by the registry)."""
    return ModelAgent(spec, model, template=template, family=family, images=images)
