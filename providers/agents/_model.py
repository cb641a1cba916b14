"""``provider/model``: a model as the system under test, through the judges' adapters.

The model is the `JudgeModel` the provider registry resolves ``provider/model`` to, so it has
the same wire, credentials and account limits as a judge of that provider. What it is sent
(`ModelAgent.request_for`): with a prompt template (``--agent-prompt FILE``, promptfoo's
``{{var}}`` syntax, `providers.agents._template`), the template filled from the case as one
user message; without one, the case's conversation so far (its system turns as the system
text), or its question as one user message.

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
    InvalidReply,
    JudgeModel,
    JudgeReply,
    JudgeRequest,
    Message,
    family_of,
    parse_reply,
)

from ._template import render

__all__ = ["ANSWER_SCHEMA", "ANSWER_SYSTEM", "ModelAgent", "create"]

#: The reply asked of the model: its answer, as the one field of a JSON object.
ANSWER_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {"answer": {"type": "string"}},
    "required": ["answer"],
    "additionalProperties": False,
}
ANSWER_SYSTEM = 'Reply with a JSON object {"answer": "<your reply to the user>"} and nothing else.'


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
    ) -> None:
        self.name = name
        self.model = model
        self.template = template
        self.family = family or family_of(name)
        self.max_tokens = max_tokens

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
    spec: str, model: JudgeModel, *, template: str | None = None, family: str | None = None
) -> Agent:
    """The agent of ``provider/model`` (the model already resolved by the registry)."""
    return ModelAgent(spec, model, template=template, family=family)
