"""Shapes of benchmark and chat datasets: OpenAI evals, Inspect, MT-Bench, AlpacaEval,
ShareGPT."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ._shape_base import Builder, Record, _content, is_chat

__all__ = [
    "alpaca_eval",
    "inspect",
    "is_inspect",
    "is_mt_bench",
    "is_mt_bench_answer",
    "mt_bench",
    "mt_bench_answer",
    "openai_evals",
    "sharegpt",
]

# OpenAI evals few-shot examples are system messages named for the role they play
# (evals/registry/data/*/samples.jsonl: {"role": "system", "name": "example_user", ...}).
_FEW_SHOT = {"example_user": "user", "example_assistant": "assistant"}


def _few_shot_roles(messages: Any) -> Any:
    if not is_chat(messages):
        return messages
    return [
        {**{k: v for k, v in m.items() if k != "name"}, "role": _FEW_SHOT[m["name"]]}
        if m.get("role") == "system" and m.get("name") in _FEW_SHOT
        else m
        for m in messages
    ]


def openai_evals(record: Record) -> Record:
    case = Builder(record)
    if "input" in case.rest:
        case.rest["input"] = _few_shot_roles(case.rest["input"])
    case.question("input")
    case.answers("ideal", "golden_answer")
    # A labelled model-graded sample: the completion graded and the label a person gave it.
    case.answers("completion", "answer")
    if "choice" in case.rest:
        case.put("labels", {"choice": case.take("choice")}, "choice")
    return case.done()


def _choices(value: Any) -> Any:
    # Inspect reads a CSV's choices cell as comma-separated (inspect_ai/dataset/_util.py).
    if isinstance(value, str):
        return [choice.strip() for choice in value.split(",")]
    return value


def inspect(record: Record) -> Record:
    case = Builder(record)
    case.question("input")
    choices = _choices(case.take("choices"))
    if isinstance(choices, list) and choices:
        letters = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
        lines = [f"{letters[i]}) {choice}" for i, choice in enumerate(choices[:26])]
        asked = [t["content"] for t in case.out.get("turns", ()) if t["role"] == "user"]
        question = case.out.get("question", asked[-1] if asked else "")
        case.out["question"] = f"{question}\n\n" + "\n".join(lines)
        case.metadata["choices"] = choices
    case.answers("target", "golden_answer")
    case.keep("sandbox", "files", "setup")
    _eval_log_sample(case)
    return case.done()


def _eval_log_sample(case: Builder) -> None:
    """An eval log's sample (EvalSample, inspect_ai/log/_log.py): its `output` (a
    ModelOutput: the model, its choices, usage) gives the answer, the first choice's message;
    the output and the sample's `messages` (the whole exchange) are kept in metadata. A
    sample of a later epoch gets its epoch in its ID, as one ID is in every epoch."""
    output = case.rest.get("output")
    if isinstance(output, Mapping) and isinstance(output.get("choices"), list):
        case.take("output")
        case.metadata["output"] = output
        first = output["choices"][0] if output["choices"] else None
        message = first.get("message") if isinstance(first, Mapping) else None
        if isinstance(message, Mapping):
            case.put("answer", _content(message), "output")
    epoch = case.rest.get("epoch")
    if isinstance(epoch, int) and epoch > 1 and "id" in case.rest:
        case.put("id", f"{case.rest['id']}-epoch{epoch}", "id")
        case.take("id")


def is_inspect(record: Record) -> bool:
    # A text target is a case's golden answer already; a list of them, choices or chat
    # messages are Inspect's own.
    if "target" not in record:
        return False
    target, chat = record.get("target"), is_chat(record.get("input"))
    # `epoch` is an eval log's sample's own key (inspect_ai/log/_log.py, EvalSample).
    return "choices" in record or not isinstance(target, str) or chat or "epoch" in record


def is_mt_bench(record: Record) -> bool:
    """An MT-Bench question (fastchat/llm_judge/data/mt_bench/question.jsonl)."""
    turns = record.get("turns")
    if not (isinstance(turns, list) and turns):
        return False
    if all(isinstance(t, str) for t in turns):
        return True
    # With its question_id, turns that are not messages are a question's that went wrong
    # (a number among the texts): said as such, not as a conversation's turns.
    return "question_id" in record and not any(isinstance(t, Mapping) for t in turns)


def _numbered(texts: list[Any]) -> Any:
    if len(texts) == 1:
        return texts[0]
    return "\n\n".join(f"Turn {n}: {text}" for n, text in enumerate(texts, start=1))


def mt_bench(record: Record) -> Record:
    # Its questions have no answers: the turns are the user's, asked one after the other,
    # so the question is them all (numbered), and a per-turn reference the golden answer.
    case = Builder(record)
    turns = case.take("turns")
    for index, turn in enumerate(turns):
        if not isinstance(turn, str):
            raise TypeError(f"turns[{index}]: expected a question's text, got {turn!r}")
    case.put("question", _numbered(turns), "turns")
    if len(turns) > 1:
        case.metadata["turns"] = turns
    if "question_id" in case.rest:
        case.put("id", str(case.take("question_id")), "question_id")
    reference = case.rest.get("reference")
    if isinstance(reference, list) and all(isinstance(r, str) for r in reference):
        case.take("reference")
        case.put("golden_answer", _numbered(reference), "reference")
        if len(reference) > 1:
            case.metadata["reference"] = reference
    return case.done()


def is_mt_bench_answer(record: Record) -> bool:
    """An MT-Bench model answer (fastchat/llm_judge/gen_model_answer.py writes
    ``{question_id, answer_id, model_id, choices: [{index, turns: [...]}], tstamp}`` to
    data/<bench>/model_answer/<model>.jsonl; reference_answer/ files are the same)."""
    choices = record.get("choices")
    first = choices[0] if isinstance(choices, list) and choices else None
    return "question_id" in record and isinstance(first, Mapping) and "turns" in first


def mt_bench_answer(record: Record) -> Record:
    # The answers carry no question: `_mt_bench` joins each to its question by its ID. Until
    # then the answer is the turns' replies, numbered as a question's turns are.
    case = Builder(record)
    choices = case.take("choices")
    turns = choices[0]["turns"]
    if not (isinstance(turns, list) and turns and all(isinstance(t, str) for t in turns)):
        raise TypeError("choices[0].turns: expected a list of the answer's texts")
    case.put("answer", _numbered(turns), "choices")
    case.metadata["choices"] = choices
    case.put("id", str(case.take("question_id")), "question_id")
    return case.done()


def alpaca_eval(record: Record) -> Record:
    """AlpacaEval's outputs (``instruction``, ``output``, ``generator``, ``dataset``)."""
    case = Builder(record)
    return case.done()


_SHAREGPT_ROLES = {"human": "user", "user": "user", "gpt": "assistant", "chatgpt": "assistant"}
_SHAREGPT_ROLES |= {"bing": "assistant", "bard": "assistant", "system": "system"}
# Files converted to ShareGPT's layout often keep chat roles: "user" is read, so "assistant" is.
_SHAREGPT_ROLES |= {"assistant": "assistant"}


def sharegpt(record: Record) -> Record:
    """ShareGPT: ``conversations`` of ``{"from": "human" | "gpt", "value": ...}``."""
    case = Builder(record)
    messages = case.take("conversations")
    if not isinstance(messages, list):
        raise TypeError("conversations: expected a list of {from, value} messages")
    turns = []
    for index, message in enumerate(messages):
        said = message.get("from") if isinstance(message, Mapping) else None
        if said not in _SHAREGPT_ROLES:
            raise ValueError(f"conversations[{index}]: from {said!r} is not a role ShareGPT has")
        turns.append({"role": _SHAREGPT_ROLES[said], "content": message.get("value")})
    case.put("turns", turns, "conversations")
    return case.done()
