"""Expected tool calls: the calls an agent should make, in order, each with its arguments.

A case's ``expected_tool_calls`` is what RAGAS's ``reference_tool_calls`` and DeepEval's
``expected_tools`` (with ``input_parameters``) say: not only which tools, in which order
(``expected_tool_order``), but what each call is given. The ``tool_calls`` check
(`jury.checks._trace`) holds the trace to it.
"""

from __future__ import annotations

from typing import Any

from pydantic import AliasChoices, BaseModel, ConfigDict, Field, field_validator

__all__ = ["ExpectedToolCall", "contradiction"]


class ExpectedToolCall(BaseModel):
    """One call the agent should make: the tool's name and, optionally, its arguments
    (matched as ``expected_tool_argument`` is; left out or ``{}``, any arguments do)."""

    model_config = ConfigDict(frozen=True, extra="forbid", populate_by_name=True)

    name: str = Field(validation_alias=AliasChoices("name", "tool", "tool_name"))
    arguments: Any = Field(
        default=None, validation_alias=AliasChoices("arguments", "argument", "args", "input")
    )

    @field_validator("name")
    @classmethod
    def _named(cls, value: str) -> str:
        # A call without a name can never be matched: said when the file loads, not as a
        # failure of every case.
        if not value.strip():
            raise ValueError("must not be empty")
        return value


def contradiction(expects_no_tool: bool, calls: tuple[ExpectedToolCall, ...] | None) -> None:
    """Raise `ValueError` when a case says both that no tool may be called and which calls
    to make: either would fail the other, whatever the agent did."""
    if expects_no_tool and calls:
        raise ValueError(
            "expected_tool is null (no tool may be called) and expected_tool_calls lists "
            f"{len(calls)} call{'s' * (len(calls) != 1)}: give one or the other"
        )
