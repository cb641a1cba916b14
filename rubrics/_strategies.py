"""The built-in strategies: ways of judging that a seat adds to its model.

The wording is ours; the methods are the papers'. Judges reading the same prompt make the same
mistakes; a different way of judging is information that is not correlated (issue 21).

- ``plain``: the rubric's own prompt, unchanged (the default).
- ``rules``: LLMBar's rules for pairwise judging (Zeng et al., "Evaluating Large Language
  Models at Evaluating Instruction Following", ICLR 2024, section 3.2 "Rules"): put executing
  the instruction first, neither more nor less than it asks, then the other qualities, and no
  bias for order or length. Pairwise only: the rules are about choosing between two outputs.
- ``metrics``: LLMBar's self-generated metrics (ibid., "Metrics"): the judge first writes the
  questions that matter for this instruction, then judges with them.
- ``reference``: LLMBar's self-generated reference (ibid., "Reference"), JudgeBench's
  solve-first (Tan et al., "JudgeBench: A Benchmark for Evaluating LLM-based Judges", ICLR
  2025): the judge first writes its own answer, then compares.
- ``metrics_reference``: both, questions first (LLMBar's Metrics+Reference, its best prompt
  for GPT-4 on the adversarial sets).
- ``cot``: the judge reasons step by step before its verdict (Wei et al., "Chain-of-Thought
  Prompting Elicits Reasoning in Large Language Models", NeurIPS 2022; LLMBar's CoT).
"""

from __future__ import annotations

from jury.adapters import Strategy

__all__ = ["COT", "METRICS", "METRICS_REFERENCE", "PLAIN", "REFERENCE", "RULES"]

_LLMBAR = (
    'Zeng et al., "Evaluating Large Language Models at Evaluating Instruction Following", ICLR 2024'
)

_QUESTIONS = (
    "Before you judge, write the three to five questions that matter most for deciding "
    "whether an answer serves this particular question well: what it must get right, what it "
    'must not do, what the user needs from it. Write them in "questions", one per line. '
    "Then judge with them: answer each question for the answer being judged (for a comparison, "
    "for each answer) and let the answers to your questions decide your verdict."
)

_OWN_ANSWER = (
    'Before you judge, write your own short answer to the question in "own_answer", as you '
    "would answer it from the case's evidence. Then judge by comparing with it: the answer "
    "being judged (for a comparison, each answer) is checked against yours for what it gets "
    "right, gets wrong and leaves out. Your answer is a reference to compare with, not "
    "evidence: where it disagrees with the case's golden answer or evidence, those win."
)

_OWN_ANSWER_FIELD = "your own answer to the question, written before you judge"
_QUESTIONS_FIELD = "the questions that matter for this question, one per line"

PLAIN = Strategy(name="plain", source="the rubric's own prompt")

RULES = Strategy(
    name="rules",
    instructions=(
        "Follow these rules to choose between the two answers:\n"
        "1. First ask whether each answer does what the user asked, exactly and honestly; "
        "only then weigh how helpful, accurate, detailed and harmless it is.\n"
        "2. An answer that gives more or less than the question asks for does not do what was "
        "asked, however good the extra or the rest is.\n"
        "3. Be objective: either answer is as likely to be the better one, whatever its "
        "position, and a longer answer is not a better one for its length."
    ),
    kinds=("pairwise",),
    source=f"{_LLMBAR}, section 3.2, Rules",
)

METRICS = Strategy(
    name="metrics",
    instructions=_QUESTIONS,
    fields={"questions": _QUESTIONS_FIELD},
    source=f"{_LLMBAR}, Metrics (self-generated metrics)",
)

REFERENCE = Strategy(
    name="reference",
    instructions=_OWN_ANSWER,
    fields={"own_answer": _OWN_ANSWER_FIELD},
    source=(
        f'{_LLMBAR}, Reference (self-generated reference); Tan et al., "JudgeBench", '
        "ICLR 2025 (solve first)"
    ),
)

METRICS_REFERENCE = Strategy(
    name="metrics_reference",
    instructions=(
        "Before you judge, do two things in this order. First write the three to five "
        "questions that matter most for deciding whether an answer serves this particular "
        'question well, in "questions", one per line. Then write your own short answer to the '
        'question in "own_answer", as you would answer it from the case\'s evidence. Then '
        "judge: answer your questions for the answer being judged (for a comparison, for each "
        "answer) and compare it with your own answer. Your answer is a reference to compare "
        "with, not evidence: where it disagrees with the case's golden answer or evidence, "
        "those win."
    ),
    fields={"questions": _QUESTIONS_FIELD, "own_answer": _OWN_ANSWER_FIELD},
    source=f"{_LLMBAR}, Metrics+Reference",
)

COT = Strategy(
    name="cot",
    instructions=(
        'Before you give your verdict, reason it through step by step in "reasoning": what '
        "the question asks, what the answer being judged (for a comparison, each answer) gets "
        "right and wrong against the evidence, and what that means for the verdict. Give the "
        "verdict only after the reasoning, and let it follow from it."
    ),
    fields={"reasoning": "your step-by-step reasoning, written before the verdict"},
    source=(
        'Wei et al., "Chain-of-Thought Prompting Elicits Reasoning in Large Language Models", '
        f"NeurIPS 2022; {_LLMBAR}, CoT"
    ),
)
