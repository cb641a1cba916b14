"""Cost per verdict, measured (issue 34): what the gate pays, in tokens and dollars per 1,000
verdicts, against the strict fake provider server with the providers' prompt-caching rules
(`jury.testing`: Anthropic caches only a prefix marked ``cache_control`` and past the model's
minimum; OpenAI caches the schema and system text from 1,024 tokens in steps of 128; Gemini
the system instruction from 1,024 on Flash) and real prices (the genai-prices table that prices
a run, batch rates where it has them, else the provider's published discount).

The gate: the five-metric rubric, three jurors of three families (the default panel's),
on two case sets: the ShopNest example (``examples/shopnest/cases.jsonl``) and a synthetic set
of RAG cases (``--cases``, 1,000 by default). Ours in four modes through ``jury run``: online,
batch (``[batch]``), cascade (the two cheapest jurors first, the third only when they leave the
case unsure) and learned cascade (the same tiers with ``aggregation = "learned"``, fitted by
``jury calibrate --fit`` on the synthetic set's labels and the online run's votes). Beside it,
the prompts three peers send for the same rubric, through the same adapters with the same
settings, each as its tool sends it (no ``cache_control`` mark):

- DeepEval's G-Eval, one metric per call (five calls a case): its template
  ``deepeval/metrics/g_eval/templates/GEval/generate_evaluation_results.txt``
  (confident-ai/deepeval, commit 8b225c9), the rubric given as G-Eval's ``rubric`` levels and
  four evaluation steps (the steps G-Eval generates once per metric are not counted);
- promptfoo's ``llm-rubric``, one assertion holding the whole rubric: ``DEFAULT_GRADING_PROMPT``
  in ``src/prompts/grading.ts`` (promptfoo/promptfoo, commit 11d357b);
- Inspect's ``model_graded_qa``, the rubric as its ``instructions`` and the golden answer as
  its criterion: ``DEFAULT_MODEL_GRADED_QA_TEMPLATE`` and ``default_instructions`` in
  ``src/inspect_ai/scorer/_model.py`` (UKGovernmentBEIS/inspect_ai, commit 02f6387).

Their template texts are used as data, to be measured; the fake answers every prompt with a
reason of the same length (its verdicts are not the point), so that the figures differ by what
is sent and how often. Output tokens and thinking are priced as the fake counts them.

    python benchmarks/cost.py                 # the table, under 5 minutes on 2 cores
    python benchmarks/cost.py --cases 200     # a quicker look
    python benchmarks/cost.py --jurors anthropic/claude-haiku-5-5,openai/gpt-4.1-mini-2025-04-14,\
google/gemini-3.5-flash-lite
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import hashlib
import io
import json
import os
import sys
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

from benchmarks._machine import machine
from jury import load_rubric
from jury.adapters import JudgeReply, JudgeRequest, Message, Usage, batch_price, price
from jury.adapters._registry import resolve_model
from jury.cli import main as jury_main
from jury.panel._defaults import DEFAULT_MODELS
from jury.testing import LoggedRequest, valid_reply
from served import ServerThread

ROOT = Path(__file__).resolve().parents[1]
#: One juror per family: the default panel's.
JURORS = tuple(default.model for default in DEFAULT_MODELS)
RUBRIC: Any = load_rubric("five-metric")  # a ScaleRubric: its metrics and scale are read
EXAMPLE = ROOT / "examples" / "shopnest" / "cases.jsonl"
#: Every judge's reason, whatever it is asked: 40 words.
REASON = " ".join(["The answer matches the golden answer and the retrieved context closely."] * 4)

# --- the fake judges ------------------------------------------------------------------------


def judge(request: LoggedRequest) -> Any:
    """Deterministic from the request: an answer marked WRONG fails (correctness 2), the rest
    score 4 or 5; each model errs on about one case in eight (so that two jurors sometimes
    split, and a cascade escalates). A request without a schema gets prose: a peer's JSON in
    text (promptfoo) or Inspect's reasoning ending in its grade."""
    text = json.dumps(request.body, sort_keys=True)
    seed = int(hashlib.sha256(f"{request.model}{text}".encode()).hexdigest(), 16)
    wrong = ("WRONG" in text) != (seed % 8 == 0)
    schema = request.schema
    if schema is None or not schema.get("properties"):
        if "GRADE: $LETTER" in text:
            return f"{REASON}\n\nGRADE: {'I' if wrong else 'C'}"
        return json.dumps({"reason": REASON, "pass": not wrong, "score": 0.0 if wrong else 1.0})
    reply = valid_reply(schema)
    for index, name in enumerate(reply):
        if isinstance(reply[name], int) and not isinstance(reply[name], bool):
            reply[name] = 4 + (seed >> (index + 3)) % 2
        elif isinstance(reply[name], str):
            reply[name] = REASON
    if wrong and "correctness" in reply:
        reply["correctness"] = 2
    if wrong and "score" in reply:
        reply["score"] = 2
    return reply


def serve() -> ServerThread:
    served = ServerThread(log=False)
    for spec in JURORS:
        served.server.script(spec.split("/", 1)[1], judge)
    os.environ.update(served.server.env())
    return served


# --- what each call used, as the adapters read it ---------------------------------------------


@dataclass
class Call:
    provider: str
    model: str
    usage: Usage
    batched: bool
    discount: float


CALLS: list[Call] = []


def instrument() -> None:
    """Note every reply's usage where the adapters read it: an online reply and a batch
    result (benchmark-only wrappers around the adapters' own methods)."""
    patched: set[type] = set()
    # The fake's key (the models are built to find their classes; nothing is sent).
    for variable in ("ANTHROPIC_API_KEY", "OPENAI_API_KEY", "GOOGLE_API_KEY"):
        os.environ[variable] = "test-key-not-secret"
    for spec in JURORS:
        model = resolve_model(spec)
        kind = type(model)
        if kind not in patched:
            patched.add(kind)
            complete = kind.complete

            async def noted(self: Any, request: JudgeRequest, _complete: Any = complete) -> Any:
                reply = await _complete(self, request)
                note(self, reply, batched=False)
                return reply

            kind.complete = noted  # type: ignore[method-assign]
        batches: Any = type(model.batches())
        if batches not in patched:
            patched.add(batches)
            parse = batches.parse

            def parsed(self: Any, body: Any, _parse: Any = parse) -> Any:
                reply = _parse(self, body)
                note(self.model, reply, batched=True, discount=self.discount)
                return reply

            batches.parse = parsed


def note(model: Any, reply: JudgeReply, *, batched: bool, discount: float = 1.0) -> None:
    CALLS.append(Call(model.wire.provider, model.model, reply.usage, batched, discount))


@dataclass
class Tally:
    """Tokens and dollars of a set of calls."""

    calls: int = 0
    input: int = 0
    cached: int = 0
    written: int = 0
    output: int = 0
    dollars: float = 0.0
    #: The same calls at batch prices (for the peers, whose tools send no batches).
    batch_dollars: float = 0.0
    by_model: dict[str, float] = field(default_factory=dict)

    def add(self, call: Call) -> None:
        usage = call.usage
        self.calls += 1
        self.input += usage.input_tokens
        self.cached += usage.cached_tokens
        self.written += usage.cache_write_tokens
        self.output += usage.output_tokens
        online = price(call.provider, call.model, usage)
        assert online is not None, f"no price for {call.provider}/{call.model}"
        batch = batch_price(call.provider, call.model, usage)
        # Where the table has no batch rate, the adapter's published discount (0.5 for all
        # three today; a peer's calls, which no batch priced, at the same).
        batch = online * (call.discount if call.batched else 0.5) if batch is None else batch
        spent = batch if call.batched else online
        self.dollars += spent
        self.batch_dollars += batch
        self.by_model[call.model] = self.by_model.get(call.model, 0.0) + spent


def tally(calls: list[Call]) -> Tally:
    total = Tally()
    for call in calls:
        total.add(call)
    return total


# --- the case sets ----------------------------------------------------------------------------

_PASSAGES = (
    "Products can be returned within 30 days of delivery. The item must be unused and in its "
    "original packaging; a prepaid label is printed from the returns page of the account.",
    "Refunds go to the original payment method within 5 business days of the item arriving "
    "back at the warehouse. Gift cards are refunded as store credit.",
    "Standard shipping takes 3 to 5 business days and is free on orders over $50; smaller "
    "orders pay a flat $4.99. Express shipping takes one business day and costs $12.",
)


def synthetic(path: Path, count: int) -> None:
    """RAG cases of the example's size, one in seven answered WRONG, each labelled."""
    with path.open("w", encoding="utf-8") as handle:
        for n in range(count):
            day = n % 40 + 1
            ok = day <= 30
            golden = (
                f"{'Yes' if ok else 'No'}. ORD-{n} was delivered {day} days ago, which is "
                f"{'within' if ok else 'outside'} the 30-day return window."
            )
            answer = (
                f"WRONG: ORD-{n} can never be returned."
                if n % 7 == 0
                else f"{golden} Print the prepaid label from your account's returns page."
            )
            record = {
                "id": f"c{n:05d}",
                "question": f"I got order ORD-{n} {day} days ago. Can I still send it back?",
                "answer": answer,
                "golden_answer": golden,
                "trace": {
                    "context": list(_PASSAGES[: 2 + n % 2]),
                    "tool_calls": [
                        {
                            "name": "getOrderStatus",
                            "arguments": {"order": f"ORD-{n}"},
                            "result": f"Delivered {day} days ago.",
                        }
                    ],
                },
                "labels": {"pass": n % 7 != 0},
            }
            handle.write(json.dumps(record) + "\n")


# --- ours: jury run ---------------------------------------------------------------------------


def jury_file(where: Path, name: str, body: str) -> Path:
    path = where / f"{name}.toml"
    path.write_text(f'rubric = "five-metric"\n{body}', encoding="utf-8")
    return path


def flat(jurors: tuple[str, ...]) -> str:
    return "jurors = [" + ", ".join(f'"{j}"' for j in jurors) + "]\n"


def tiered(first: tuple[str, ...], second: tuple[str, ...], extra: str = "") -> str:
    def group(jurors: tuple[str, ...]) -> str:
        return "[[tier]]\njurors = [" + ", ".join(f'"{j}"' for j in jurors) + "]\n"

    return extra + group(first) + group(second)


def quietly(argv: list[str]) -> int:
    """`jury` in this process, its terminal output kept back (shown when it fails)."""
    said = io.StringIO()
    with contextlib.redirect_stdout(said), contextlib.redirect_stderr(said):
        code = jury_main(argv)
    if code not in (0, 1):
        print(said.getvalue()[-3000:], file=sys.stderr)
    return code


def gate(cases: Path, jury: Path, out: Path) -> tuple[Tally, dict[str, int]]:
    """One `jury run` of the gate against a fresh fake (its prompt cache cold)."""
    served = serve()
    CALLS.clear()
    try:
        argv = ["run", str(cases), "--jury", str(jury), "--out", str(out)]
        code = quietly([*argv, "--no-cache", "--no-checks", "--progress", "none"])
    finally:
        served.stop()
    assert code in (0, 1, 3), f"jury run exited {code}"
    verdicts: dict[str, int] = {}
    for verdict in decided(out).values():
        verdicts[verdict] = verdicts.get(verdict, 0) + 1
    return tally(list(CALLS)), verdicts


def decided(run: Path) -> dict[str, str]:
    """Each case's verdict in a run."""
    lines = (run / "verdicts.jsonl").read_text(encoding="utf-8").splitlines()
    return {record["case_id"]: record["verdict"] for record in map(json.loads, lines)}


def fit(cases: Path, jury: Path, votes: Path, where: Path) -> Path:
    """`jury calibrate --fit` on the labelled cases and a full panel's votes."""
    fitted = where / "fit.toml"
    argv = ["calibrate", str(cases), "--jury", str(jury), "--votes", str(votes)]
    code = quietly([*argv, "--fit", str(fitted)])
    assert code == 0, f"jury calibrate exited {code}"
    assert fitted.exists()
    return fitted


# --- the peers' prompts -----------------------------------------------------------------------


def _metric_levels(metric: Any) -> str:
    return "\n".join(f"{RUBRIC.low + i}: {level}" for i, level in enumerate(metric.levels))


def _rubric_text() -> str:
    """The five-metric rubric as a user writes it in one peer's rubric or instructions."""
    lines = [
        "Score the output on each metric below from 1 to 5; it passes only when every metric "
        "scores at least 4."
    ]
    for metric in RUBRIC.spec.metrics:
        lines += ["", f"{metric.name}: {metric.description}", _metric_levels(metric)]
    return "\n".join(lines)


RUBRIC_TEXT = _rubric_text()

#: DeepEval G-Eval's results template (templates/GEval/generate_evaluation_results.txt), with
#: a rubric and no multimodal or additional context; its lines' indentation left out.
_GEVAL = """\
You are an evaluator. Given the following evaluation steps and rubric, assess the response \
below and return a JSON object with two fields:

- `"score"`: an integer between {low} and {high}, based on the rubric provided.
- `"reason"`: a brief explanation for why the score was given. This must mention specific \
strengths or shortcomings, referencing relevant details from the input. Do **not** quote the \
score itself in the explanation.

Your explanation should:
- Be specific and grounded in the evaluation steps and rubric.
- Mention key details from the test case parameters.
- Be concise, clear, and focused on the evaluation logic.

Only return valid JSON. Do **not** include any extra commentary or text.

---

Evaluation Steps:
{steps}

Rubric:
{rubric}

Test Case:
{case}

Parameters:
{parameters}

---
**Example JSON:**
{{
"reason": "your concise and informative reason here",
"score": {low}
}}

JSON:
"""
_GEVAL_PARAMETERS = "Input, Actual Output, Expected Output, and Retrieval Context"
_GEVAL_SCHEMA = {
    "type": "object",
    "properties": {"score": {"type": "integer"}, "reason": {"type": "string"}},
    "required": ["score", "reason"],
    "additionalProperties": False,
}

#: promptfoo's DEFAULT_GRADING_PROMPT (src/prompts/grading.ts): its system and user messages.
_PROMPTFOO_SYSTEM = """\
You are grading output according to a user-specified rubric. If the statement in the rubric \
is true, then the output passes the test. You respond with a JSON object with this structure: \
{pass: boolean; reason: string;}.

Examples:

Output: Hello world
Rubric: Content contains a greeting
{"reason": "the content contains the word 'world'", "pass": true, "score": 1.0}

Output: Avast ye swabs, repel the invaders!
Rubric: Does not speak like a pirate
{"reason": "'avast ye' is a common pirate term", "pass": false, "score": 0.0}"""
_PROMPTFOO_USER = "<Output>\n{output}\n</Output>\n<Rubric>\n{rubric}\n</Rubric>"

#: Inspect's DEFAULT_MODEL_GRADED_QA_TEMPLATE and default_instructions(partial_credit=False)
#: (src/inspect_ai/scorer/_model.py).
_INSPECT = """
You are assessing a submitted answer on a given task based on a criterion. Here is the data:

[BEGIN DATA]
***
[Task]: {question}
***
[Submission]: {answer}
***
[Criterion]: {criterion}
***
[END DATA]

Does the submission meet the criterion?

{instructions}
"""
_INSPECT_INSTRUCTIONS = """
After assessing the submitted answer, reply with 'GRADE: $LETTER' (without quotes) where \
LETTER is one of CI.  Please choose ONE option for the grade: either "C" for correct answers, \
or "I" for incorrect answers.

For example, after reviewing a correct answer you might write 'GRADE: C' or after reviewing \
an incorrect answer you might write 'GRADE: I'.

First, write out in a step by step manner your reasoning about the criterion to be sure that \
your conclusion is correct. Avoid simply stating the correct answers at the outset. Then, end \
with your answer formatted as 'GRADE: $LETTER' (without quotes) where LETTER is one of CI.
"""


def _context(case: dict[str, Any]) -> str:
    trace = case.get("trace") or {}
    calls = trace.get("tool_calls") or trace.get("toolCalls") or []
    shown = [
        f"{c.get('name')}({json.dumps(c.get('arguments', c.get('argument')))}) -> {c.get('result')}"
        for c in calls
    ]
    return "\n".join([*(trace.get("context") or []), *shown])


def _fields(case: dict[str, Any]) -> tuple[str, str, str, str]:
    trace = case.get("trace") or {}
    answer = case.get("answer") or trace.get("answer") or ""
    golden = case.get("golden_answer") or case.get("goldenAnswer") or ""
    return case.get("question", ""), answer, golden, _context(case)


@dataclass(frozen=True)
class Ask:
    """One call a peer makes: its system text, user text, and the schema it enforces (None:
    the reply is read from prose)."""

    system: str
    user: str
    schema: dict[str, Any] | None


def geval(case: dict[str, Any]) -> Iterator[Ask]:
    question, answer, golden, context = _fields(case)
    shown = (
        f"Input:\n{question} \n\nActual Output:\n{answer} \n\nExpected Output:\n{golden} \n\n"
        f"Retrieval Context:\n{context} \n\n"
    )
    for metric in RUBRIC.spec.metrics:
        steps = (
            f'["Read the Input, the Actual Output, the Expected Output and the Retrieval '
            f'Context.", "{metric.description}", "Check each claim of the Actual Output against '
            f'the Expected Output and the Retrieval Context.", "Give the score whose rubric '
            f'description fits the Actual Output best."]'
        )
        user = _GEVAL.format(
            low=RUBRIC.low,
            high=RUBRIC.high,
            steps=steps,
            rubric=_metric_levels(metric),
            case=shown,
            parameters=_GEVAL_PARAMETERS,
        )
        yield Ask("", user, _GEVAL_SCHEMA)


def llm_rubric(case: dict[str, Any]) -> Iterator[Ask]:
    question, answer, golden, context = _fields(case)
    # The rubric names the case's question, reference and context by promptfoo's vars.
    rubric = (
        f"Question: {question}\nReference answer: {golden}\nContext:\n{context}\n\n{RUBRIC_TEXT}"
    )
    yield Ask(_PROMPTFOO_SYSTEM, _PROMPTFOO_USER.format(output=answer, rubric=rubric), None)


def model_graded_qa(case: dict[str, Any]) -> Iterator[Ask]:
    question, answer, golden, context = _fields(case)
    task = f"{question}\n\nContext:\n{context}"
    instructions = f"{RUBRIC_TEXT}\n{_INSPECT_INSTRUCTIONS}"
    user = _INSPECT.format(
        question=task, answer=answer, criterion=golden, instructions=instructions
    )
    yield Ask("", user, None)


PEERS = {
    "DeepEval G-Eval (5 metrics, a call each)": geval,
    "promptfoo llm-rubric": llm_rubric,
    "Inspect model_graded_qa": model_graded_qa,
}


def as_a_peer_sends(provider: str, body: dict[str, Any], structured: bool) -> dict[str, Any]:
    """The adapter's body as the peer's client sends it: no cache mark, no empty system text,
    and no schema where the peer reads prose."""
    if provider == "anthropic":
        system = body.pop("system")
        text = "".join(block["text"] for block in system)
        if text:
            body["system"] = text
        if not structured:
            body["output_config"].pop("format", None)
            if not body["output_config"]:
                del body["output_config"]
    elif provider == "openai":
        body["messages"] = [m for m in body["messages"] if m.get("content")]
        if not structured:
            body.pop("response_format", None)
    else:
        if not body.get("systemInstruction", {}).get("parts", [{}])[0].get("text"):
            body.pop("systemInstruction", None)
        if not structured:
            config = body.get("generationConfig", {})
            config.pop("responseMimeType", None)
            config.pop("responseJsonSchema", None)
    return body


async def peer(asks: list[Ask]) -> Tally:
    """Every ask to every juror, through the adapters' wire mapping and transport."""
    served = serve()
    CALLS.clear()
    models = {spec: resolve_model(spec) for spec in JURORS}
    room = asyncio.Semaphore(64)

    async def one(spec: str, ask: Ask) -> None:
        model: Any = models[spec]
        request = JudgeRequest(
            system=ask.system,
            messages=(Message("user", ask.user),),
            schema=ask.schema or _GEVAL_SCHEMA,
            temperature=0.0,
        )
        body = as_a_peer_sends(
            model.wire.provider, model.wire.body(model.model, request), ask.schema is not None
        )
        async with room:
            data, _, _ = await model.transport.post(model.model, body)
        note(model, model.wire.parse(model.model, data), batched=False)

    try:
        await asyncio.gather(*(one(spec, ask) for ask in asks for spec in JURORS))
    finally:
        for model in models.values():
            await model.aclose()
        served.stop()
    return tally(list(CALLS))


# --- the static prefix ------------------------------------------------------------------------


def common_prefix(texts: list[str]) -> int:
    """Characters every text starts with."""
    first, last = min(texts), max(texts)
    size = 0
    while size < min(len(first), len(last)) and first[size] == last[size]:
        size += 1
    return size


def prefix_share(prompts: list[tuple[str, str]]) -> tuple[int, int]:
    """The tokens (4 characters a token, as the fake counts) every prompt of one kind starts
    with, and the mean tokens of a prompt: system text and user text as one text."""
    texts = [f"{system}\n{user}" for system, user in prompts]
    return common_prefix(texts) // 4, sum(len(t) for t in texts) // (4 * len(texts))


def our_prompts(cases: list[Any]) -> list[tuple[str, str]]:
    return [(p.system, p.user) for case in cases for p in RUBRIC.prompts(case)]


# --- the table --------------------------------------------------------------------------------


def per_thousand(value: float, verdicts: int) -> float:
    return value * 1000 / verdicts


def row(name: str, total: Tally, verdicts: int, dollars: float | None = None) -> str:
    spent = total.dollars if dollars is None else dollars
    tokens = (total.input, total.cached, total.written, total.output)
    counts = " | ".join(f"{per_thousand(n, verdicts):,.0f}" for n in tokens)
    return (
        f"| {name} | {total.calls / verdicts:.2f} | {counts} | "
        f"${per_thousand(spent, verdicts):.4f} |"
    )


def measure(name: str, cases_path: Path, where: Path, fitted: Path | None) -> dict[str, Any]:
    from jury import load_cases

    cases = [json.loads(line) for line in cases_path.read_text(encoding="utf-8").splitlines()]
    count = len(cases)
    results: dict[str, Any] = {"count": count, "rows": [], "ours": {}, "peers": {}}
    online, verdicts = gate(cases_path, jury_file(where, "online", flat(JURORS)), where / "online")
    batch, batch_verdicts = gate(
        cases_path, jury_file(where, "batch", flat(JURORS) + "[batch]\npoll = 1\n"), where / "batch"
    )
    differ = [k for k, v in decided(where / "online").items() if decided(where / "batch")[k] != v]
    assert not differ, f"batch and online verdicts differ on {differ[:5]}"
    # Cheapest first, by what each juror cost a verdict online.
    order = sorted(JURORS, key=lambda spec: online.by_model[spec.split("/", 1)[1]])
    first, second = tuple(order[:2]), tuple(order[2:])
    cascade, cascade_verdicts = gate(
        cases_path, jury_file(where, "cascade", tiered(first, second)), where / "cascade"
    )
    batched_cascade, batched_cascade_verdicts = gate(
        cases_path,
        jury_file(where, "cascade-batch", tiered(first, second, "[batch]\npoll = 1\n")),
        where / "cascade-batch",
    )
    one, other = decided(where / "cascade"), decided(where / "cascade-batch")
    assert one == other, "the cascade's verdicts differ online and in batches"
    learned_body = tiered(first, second, 'aggregation = "learned"\ncalibration = "FIT"\n')
    if fitted is None:
        fitted = fit(
            cases_path, jury_file(where, "fitting", tiered(first, second)), where / "online", where
        )
    learned_toml = jury_file(where, "learned", learned_body.replace("FIT", str(fitted)))
    learned, learned_verdicts = gate(cases_path, learned_toml, where / "learned")
    results["fit"] = fitted
    results["ours"] = {
        "online": (online, verdicts),
        "batch": (batch, batch_verdicts),
        f"cascade ({' + '.join(first)}, then {' + '.join(second)})": (cascade, cascade_verdicts),
        "learned cascade (same tiers, fitted)": (learned, learned_verdicts),
        "cascade in batches (same tiers)": (batched_cascade, batched_cascade_verdicts),
    }
    for peer_name, make in PEERS.items():
        asks = [ask for case in cases for ask in make(case)]
        results["peers"][peer_name] = (asyncio.run(peer(asks)), asks)
    loaded = load_cases(cases_path)
    results["prefix"] = {"ours": prefix_share(our_prompts(loaded))}
    for peer_name, make in PEERS.items():
        per_call: dict[int, list[tuple[str, str]]] = {}
        for case in cases:
            for index, ask in enumerate(make(case)):
                per_call.setdefault(index, []).append((ask.system, ask.user))
        shares = [prefix_share(prompts) for prompts in per_call.values()]
        results["prefix"][peer_name] = (
            sum(s for s, _ in shares) // len(shares),
            sum(t for _, t in shares) // len(shares),
        )
    return results


def report(name: str, results: dict[str, Any]) -> list[str]:
    count = results["count"]
    lines = [
        f"### {name}: {count:,} cases x {len(JURORS)} jurors ({', '.join(JURORS)})",
        "",
        "Per 1,000 verdicts. Input counts every prompt token, cached ones included; cached: "
        "read from the provider's prompt cache; written: written to it (Anthropic, priced "
        "1.25x input).",
        "",
        "| prompts, mode | calls / verdict | input tokens | cached | written | output tokens "
        "| $ / 1,000 verdicts |",
        "| --- | --- | --- | --- | --- | --- | --- |",
    ]
    for mode, (total, verdicts) in results["ours"].items():
        shown = ", ".join(f"{k} {v}" for k, v in sorted(verdicts.items()))
        lines.append(row(f"aiojury, {mode} [{shown}]", total, count))
    cheapest_online = min(total.dollars for total, _ in results["peers"].values())
    cheapest_batch = min(total.batch_dollars for total, _ in results["peers"].values())
    for peer_name, (total, _) in results["peers"].items():
        lines.append(row(f"{peer_name}, online", total, count))
        lines.append(row(f"{peer_name}, at batch prices", total, count, total.batch_dollars))
    online = results["ours"]["online"][0]
    batch = results["ours"]["batch"][0].dollars
    best = min(total.dollars for total, _ in results["ours"].values())
    met = {True: "met", False: "NOT met"}
    spent = ", ".join(
        f"{model} ${per_thousand(usd, count):.4f}" for model, usd in sorted(online.by_model.items())
    )
    lines += [
        "",
        f"- online: ${per_thousand(online.dollars, count):.4f} = "
        f"{online.dollars / cheapest_online:.2f}x the cheapest peer online (goal <= 0.5x: "
        f"{met[online.dollars <= 0.5 * cheapest_online]}); by juror: {spent}",
        f"- batch: ${per_thousand(batch, count):.4f} = {batch / cheapest_online:.2f}x the cheapest "
        f"peer online (goal <= 0.3x: {met[batch <= 0.3 * cheapest_online]}); "
        f"{batch / cheapest_batch:.2f}x the cheapest peer's prompts at batch prices",
        f"- the cheapest mode above: ${per_thousand(best, count):.4f} = "
        f"{best / cheapest_online:.2f}x the cheapest peer online",
        "",
        "Static prefix (what every prompt of a kind starts with, system and user text, 4 "
        "characters a token) and its share of a prompt:",
        "",
    ]
    for who, (prefix, mean) in results["prefix"].items():
        lines.append(f"- {who}: {prefix:,} of {mean:,} tokens ({100 * prefix / mean:.0f} %)")
    ours = results["ours"]["online"][0]
    lines.append(
        f"- aiojury online, measured: {100 * ours.cached / ours.input:.0f} % of input tokens read "
        f"from the cache, {100 * ours.written / ours.input:.1f} % written"
    )
    return lines


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--cases", type=int, default=1000, help="synthetic cases (1000)")
    parser.add_argument(
        "--jurors", help="comma-separated jurors, one per family (default: the default panel's)"
    )
    args = parser.parse_args()
    if args.jurors:
        global JURORS  # noqa: PLW0603 - a script's one setting, read by every step
        JURORS = tuple(args.jurors.split(","))
    started = time.perf_counter()
    load = os.getloadavg()
    instrument()
    lines: list[str] = []
    with tempfile.TemporaryDirectory() as tmp:
        where = Path(tmp)
        os.environ["JURY_CACHE_DIR"] = str(where / "cache")
        synthetic_path = where / "synthetic.jsonl"
        synthetic(synthetic_path, args.cases)
        (where / "synthetic").mkdir()
        big = measure("synthetic", synthetic_path, where / "synthetic", None)
        (where / "example").mkdir()
        small = measure("example", EXAMPLE, where / "example", big["fit"])
        lines += report("Synthetic RAG cases", big)
        lines += [""]
        lines += report("The ShopNest example (examples/shopnest/cases.jsonl)", small)
    elapsed = time.perf_counter() - started
    print("\n".join(lines))
    print(
        f"\n{datetime.now(UTC):%Y-%m-%d %H:%M} UTC; {elapsed:.0f} s; load average before "
        f"{load[0]:.1f} / {load[1]:.1f} / {load[2]:.1f}, after "
        + " / ".join(f"{x:.1f}" for x in os.getloadavg())
        + f"; {machine()}"
    )


if __name__ == "__main__":
    main()
