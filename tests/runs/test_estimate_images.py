"""The estimate counts a case's images for the jurors that are sent them (`IMAGE_TOKENS`
each), and no call for a juror that abstains on them."""

from __future__ import annotations

import pytest
from images_helpers import PNG

from jury import Case, Juror, Panel, load_rubric
from jury.adapters import Image
from jury.runs._estimate import CHARS_PER_TOKEN, IMAGE_TOKENS, estimate

KEYS = ("ANTHROPIC_API_KEY", "OPENAI_API_KEY", "GOOGLE_API_KEY", "GEMINI_API_KEY")
SEES = "anthropic/claude-haiku-4-5-20251001"
BLIND = "ollama/llama3.1:8b"


@pytest.fixture(autouse=True)
def _no_keys(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in KEYS:
        monkeypatch.delenv(name, raising=False)


def test_an_image_counts_for_the_jurors_that_see_it_and_the_others_ask_nothing() -> None:
    with_images = Case(
        id="img",
        question="What animal is in [image 1] and [image 2]?",
        answer="Two cats.",
        images=(Image(media_type="image/png", data=PNG), Image(url="https://example.test/c.png")),
    )
    plain = Case(id="txt", question="What is 2+2?", answer="4")
    panel = Panel(jurors=(Juror(model=SEES), Juror(model=BLIND)))
    rows = {row.juror: row for row in estimate(panel, [with_images, plain]).jurors}
    rubric = load_rubric(panel.rubric)
    text = [
        (len(p.system) + len(p.user)) // CHARS_PER_TOKEN
        for c in (with_images, plain)
        for p in rubric.prompts(c)
    ]
    assert rows[SEES].calls == 2
    assert rows[SEES].input_tokens == sum(text) + 2 * IMAGE_TOKENS
    assert rows[BLIND].calls == 1  # the case without images only
    assert rows[BLIND].input_tokens == text[1]


def test_a_juror_that_says_images_true_is_counted_the_images() -> None:
    case = Case(
        id="img",
        question="Is [image 1] a cat?",
        answer="Yes.",
        images=(Image(media_type="image/png", data=PNG),),
    )
    panel = Panel(jurors=(Juror(model=BLIND, images=True),))
    (row,) = estimate(panel, [case]).jurors
    prompt = load_rubric(panel.rubric).prompts(case)[0]
    assert row.input_tokens == (len(prompt.system) + len(prompt.user)) // 4 + IMAGE_TOKENS
