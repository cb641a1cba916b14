"""Cases: what the agent was asked, what it answered, what it did, and what was expected.

Canonical fields are snake_case. The seed article's camelCase (``goldenAnswer``,
``toolCalls``...) and other tools' spellings (``input``, ``output``, ``expected_output``...)
load as aliases, so existing datasets are used as they are. Unknown keys are an error rather
than silently ignored: a misspelt ``goldenAnwser`` would otherwise judge without a reference.
Reading cases from files is `jury.cases`.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from typing import Annotated, Any, Literal

from pydantic import (
    AliasChoices,
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    field_validator,
    model_validator,
)

from .._problems import spellings
from ._expected_calls import ExpectedToolCall, contradiction
from ._images import Image, as_images
from ._seed_fields import IsoDate, MustFind, Split
from ._turns import ToolCall, Turn, read_turns
from ._unseen import take_images

__all__ = [
    "Case",
    "ExpectedToolCall",
    "Image",
    "Point",
    "ToolCall",
    "Trace",
    "conversation_update",
]

_FROZEN = ConfigDict(frozen=True, extra="forbid", populate_by_name=True)


def _aliases(*names: str) -> AliasChoices:
    return AliasChoices(*names)


class Trace(BaseModel):
    """What the agent did while answering one request. It belongs to that request only."""

    model_config = _FROZEN

    retrieved_sources: tuple[str, ...] = Field(
        default=(),
        validation_alias=_aliases("retrieved_sources", "retrievedSources", "sources"),
    )
    tool_calls: tuple[ToolCall, ...] = Field(
        default=(), validation_alias=_aliases("tool_calls", "toolCalls", "tools_called")
    )
    context: tuple[str, ...] = Field(
        default=(),
        validation_alias=_aliases("context", "retrieval_context", "retrievalContext", "contexts"),
    )
    #: Sources the answer cites, when the agent reports them (checked against retrieved ones).
    cited_sources: tuple[str, ...] = Field(
        default=(), validation_alias=_aliases("cited_sources", "citedSources", "citations")
    )

    @field_validator("context", mode="before")
    @classmethod
    def _context_as_tuple(cls, value: object) -> object:
        # One string is the common shape (the seed article's); lists come from RAG tools.
        if isinstance(value, str):
            return (value,) if value else ()
        return value

    @property
    def tool_names(self) -> tuple[str, ...]:
        return tuple(call.name for call in self.tool_calls)


class Point(BaseModel):
    """One point of a points rubric: what a good answer must, may or must not say."""

    model_config = _FROZEN

    id: str
    says: str = Field(validation_alias=_aliases("says", "text", "description", "point"))
    need: Literal["must", "optional", "shared", "penalty"] = "must"
    #: Words from the source that prove the point, for the person who checks a gold.
    quote: str | None = None
    cite: str | None = None
    weight: float | None = None

    @field_validator("id", mode="before")
    @classmethod
    def _id_as_text(cls, value: object) -> object:
        return str(value) if isinstance(value, int) and not isinstance(value, bool) else value


# Keys of a trace that the seed article's datasets place at the case's top level.
_TRACE_KEYS = frozenset(
    {
        "retrieved_sources",
        "retrievedSources",
        "sources",
        "tool_calls",
        "toolCalls",
        "tools_called",
        "context",
        "retrieval_context",
        "retrievalContext",
        "contexts",
        "cited_sources",
        "citedSources",
        "citations",
    }
)


class Case(BaseModel):
    """One evaluation case: a question, the agent's answer and trace, and the expectations."""

    model_config = _FROZEN

    id: str = Field(validation_alias=_aliases("id", "case_id", "caseId", "uid", "idx"))
    category: str | None = Field(
        default=None, validation_alias=_aliases("category", "type", "subset")
    )
    question: str = Field(
        default="", validation_alias=_aliases("question", "input", "query", "prompt", "instruction")
    )
    answer: str | None = Field(
        default=None,
        validation_alias=_aliases(
            "answer", "output", "actual_output", "actualOutput", "response", "output_1"
        ),
    )
    #: The second answer of a pairwise comparison (``answer`` is the first).
    answer_b: str | None = Field(
        default=None, validation_alias=_aliases("answer_b", "answerB", "output_2")
    )
    golden_answer: str | None = Field(
        default=None,
        validation_alias=_aliases(
            "golden_answer",
            "goldenAnswer",
            "expected_output",
            "expectedOutput",
            "expected_answer",
            "target",
            "reference",
            "ideal",
            "gold",
        ),
    )
    expected_behaviour: str | None = Field(
        default=None,
        validation_alias=_aliases(
            "expected_behaviour", "expectedBehaviour", "expected_behavior", "expectedBehavior"
        ),
    )
    trace: Trace = Field(default_factory=Trace)
    #: The tool that should be called. Given as null, it means *no* tool should be called;
    #: left out, tool choice is not checked (the seed article's convention).
    expected_tool: str | None = Field(
        default=None, validation_alias=_aliases("expected_tool", "expectedTool")
    )
    expected_tool_argument: Any = Field(
        default=None,
        validation_alias=_aliases(
            "expected_tool_argument",
            "expectedToolArgument",
            "expected_tool_arguments",
            "expectedToolArguments",
        ),
    )
    #: Null or left out: the source is not checked.
    expected_source: str | None = Field(
        default=None, validation_alias=_aliases("expected_source", "expectedSource")
    )
    expected_tool_order: tuple[str, ...] | None = Field(
        default=None, validation_alias=_aliases("expected_tool_order", "expectedToolOrder")
    )
    #: The calls to make, in order (others may come between), each with its arguments.
    expected_tool_calls: tuple[ExpectedToolCall, ...] | None = Field(
        default=None, validation_alias=_aliases("expected_tool_calls", "expectedToolCalls")
    )
    expect_refusal: bool | None = Field(
        default=None, validation_alias=_aliases("expect_refusal", "expectRefusal")
    )
    min_words: int | None = Field(
        default=None, ge=0, validation_alias=_aliases("min_words", "minWords")
    )
    max_words: int | None = Field(
        default=None, ge=1, validation_alias=_aliases("max_words", "maxWords")
    )
    #: E-mail addresses (``a@b.example``) and domains (``@b.example``) the answer may give.
    #: Given at all, even empty, it turns on the e-mail part of the PII check for this case.
    allowed_emails: tuple[str, ...] | None = Field(
        default=None, validation_alias=_aliases("allowed_emails", "allowedEmails")
    )
    #: A JSON Schema the answer (after stripping a markdown fence) must meet.
    json_schema: dict[str, Any] | None = Field(
        default=None,
        validation_alias=_aliases("json_schema", "jsonSchema", "output_schema", "outputSchema"),
    )
    points: tuple[Point, ...] = ()
    penalties: tuple[Point, ...] = ()
    #: IDs of shared points (defined by the rubric) or shared points given in full.
    shared: tuple[str | Point, ...] = ()
    #: Human labels, by metric name (``{"pass": true}``, ``{"correctness": 4}``).
    labels: dict[str, Any] = Field(
        default_factory=dict, validation_alias=_aliases("labels", "human", "human_labels")
    )
    metadata: dict[str, Any] = Field(default_factory=dict)
    #: What the judges are shown besides the case's own fields, by label: ``--map
    #: judge.persona=user_description`` shows that column under "persona". (``metadata`` is
    #: never shown to the judges.)
    judge: dict[str, Any] = Field(default_factory=dict)
    #: A conversation (any recorded shape of messages, or an agent trace): the answer is its
    #: last assistant turn, or, when it ends with the user, the case's ``answer`` replying to it.
    turns: Annotated[tuple[Turn, ...], BeforeValidator(read_turns)] = Field(
        default=(), validation_alias=_aliases("turns", "messages", "conversation")
    )
    #: Phrases or regular expressions the answer must contain (the ``must_find`` check).
    must_find: tuple[MustFind, ...] = Field(
        default=(), validation_alias=_aliases("must_find", "mustFind")
    )
    #: The date the question was asked, shown to the judge: the answer is judged by what
    #: was true then.
    as_of: IsoDate | None = Field(default=None, validation_alias=_aliases("as_of", "asOf", "date"))
    #: Which set the case belongs to: "dev" (worked against daily) or "heldout" (run only to
    #: confirm a decision). Reports give results per split.
    split: Split | None = None
    #: The images of its messages, numbered as the text marks them (``[image 1]``).
    images: Annotated[tuple[Image, ...], BeforeValidator(as_images)] = ()

    @model_validator(mode="wrap")
    @classmethod
    def _images_met(cls, data: Any, handler: Any) -> Any:
        return take_images(data, handler)

    @model_validator(mode="after")
    def _answer_from_turns(self) -> Case:
        # The word bounds are checked here too: one validator, not two, as each is a Python
        # call for every case loaded.
        case = self
        if self.turns:
            update = conversation_update(self)
            case = self.model_copy(update=update) if update else self
        if (
            self.min_words is not None
            and self.max_words is not None
            and self.min_words > self.max_words
        ):
            raise ValueError(f"min_words {self.min_words} is more than max_words {self.max_words}")
        if self.expected_tool_calls:  # told by an attribute, without a call, for most cases
            contradiction(self.expects_no_tool, self.expected_tool_calls)
        return case

    @model_validator(mode="before")
    @classmethod
    def _read_spellings(cls, data: object) -> object:
        """Refuse two spellings of one field; accept the seed article's reply shape (trace
        fields, and the answer, side by side). One validator, not two, for the reason above.

        Two spellings of one field (``answer`` and ``output``) is ambiguous: it is refused
        instead of keeping whichever the alias list happens to name first. The seed article's
        agent returns ``{answer, retrievedSources, toolCalls, context}``; datasets either nest
        that under ``trace`` or spread it over the case. Both load to the same Case.
        """
        # `dict` first: it is told in C, an ABC by a Python call (this runs for every case).
        if not isinstance(data, (dict, Mapping)):
            return data
        # The usual record spells each field once: told by set operations, without a loop
        # (nor a comprehension, which is a Python call).
        spelled = _CASE_SPELLINGS.keys() & data.keys()
        if len(spelled) != len(set(map(_CASE_SPELLINGS.__getitem__, spelled))):
            seen: dict[str, str] = {}
            for key in data:
                name = _CASE_SPELLINGS.get(key)
                if name is None:
                    continue
                other = seen.setdefault(name, key)
                if other != key:
                    raise ValueError(f"{name} is given twice, as {other} and {key}")
        nested = data.get("trace")
        # Told by one set operation for the usual record (this runs for every case).
        if _TRACE_KEYS.isdisjoint(data) and not (
            isinstance(nested, (dict, Mapping)) and "answer" in nested
        ):
            return data
        flat = [key for key in data if key in _TRACE_KEYS]
        out = {key: value for key, value in data.items() if key not in _TRACE_KEYS}
        trace: dict[str, Any] = dict(nested) if isinstance(nested, Mapping) else {}
        for key in flat:
            if key in trace:
                raise ValueError(f"{key} is given both in the case and in its trace")
            trace[key] = data[key]
        if "answer" in trace:
            if "answer" in out:
                raise ValueError("answer is given both in the case and in its trace")
            out["answer"] = trace.pop("answer")
        out["trace"] = trace
        return out

    @field_validator("id", mode="before")
    @classmethod
    def _id_as_text(cls, value: object) -> object:
        if isinstance(value, int) and not isinstance(value, bool):
            return str(value)
        if isinstance(value, str) and not value.strip():
            raise ValueError("must not be empty")
        return value

    @field_validator("judge")
    @classmethod
    def _labels_are_names(cls, value: dict[str, Any]) -> dict[str, Any]:
        # A label is the name of its section of the prompt: a word, not free text.
        for label in value:
            if not re.fullmatch(r"[A-Za-z][\w-]{0,63}", label):
                raise ValueError(f"{label!r}: a label is a word (letters, digits, _ or -)")
        return value

    @field_validator("json_schema")
    @classmethod
    def _valid_schema(cls, value: dict[str, Any] | None) -> dict[str, Any] | None:
        # Refuse a broken schema when the file loads, not case by case mid-run.
        if value is not None:
            _check_schema(value)
        return value

    @property
    def expects_no_tool(self) -> bool:
        """True when the case says, with an explicit null, that no tool should be called."""
        return "expected_tool" in self.model_fields_set and self.expected_tool is None

    @property
    def history(self) -> tuple[Turn, ...]:
        """The turns before the answer: a conversation without its last reply."""
        turns = self.turns
        return turns[:-1] if turns and turns[-1].role == "assistant" else turns

    @property
    def replies(self) -> tuple[str, ...]:
        """All the agent said: its turns' texts, the answer last (or the answer alone)."""
        said = tuple(t.content for t in self.history if t.role == "assistant" and t.content)
        return (*said, self.answer) if self.answer else said

    @property
    def evidence(self) -> tuple[str, ...]:
        """What the agent saw: retrieved context and the results of its tool calls."""
        results = tuple(
            call.result if isinstance(call.result, str) else json.dumps(call.result)
            for call in self.trace.tool_calls
            if call.result is not None
        )
        return self.trace.context + results


_CASE_SPELLINGS = spellings(Case)


def _check_schema(schema: dict[str, Any]) -> None:
    # Out of the class, which is near its size limit.
    from jsonschema.exceptions import SchemaError
    from jsonschema.validators import Draft202012Validator, validator_for

    try:
        validator_for(schema, default=Draft202012Validator).check_schema(schema)
    except SchemaError as exc:
        raise ValueError(f"not a valid JSON schema: {exc.message}") from None


def conversation_update(case: Case) -> dict[str, Any]:
    """What a conversation gives its case: the answer (its last assistant turn; a conversation
    that ends with the user is answered by the case's ``answer``, or not yet, as a question
    without an answer: a dataset's prompt), the question (the user's last words before it,
    unless given) and the trace (the turns' tool calls and context, in order). Raises
    `ValueError` where the case says otherwise."""
    if not case.turns:
        return {}
    last = case.turns[-1]
    update: dict[str, Any] = {}
    if last.role == "assistant":
        # Given again (as a run's record writes it back), it must be that reply.
        if case.answer is not None and case.answer != last.content:
            raise ValueError(
                "answer is given and the turns end with another reply of the assistant: the "
                "answer is that reply; give one or the other"
            )
        update["answer"] = last.content
    if not case.question:
        asked = [t.content for t in case.history if t.role == "user" and t.content]
        update["question"] = asked[-1] if asked else ""
    trace: dict[str, Any] = {}
    for name, derived in (
        ("tool_calls", tuple(call for turn in case.turns for call in turn.tool_calls)),
        ("context", tuple(text for turn in case.turns for text in turn.context)),
    ):
        if derived and getattr(case.trace, name) not in ((), derived):
            raise ValueError(
                f"trace.{name} is given and the turns carry {name}: give them in one place"
            )
        if derived:
            trace[name] = derived
    if trace:
        update["trace"] = case.trace.model_copy(update=trace)
    return update
