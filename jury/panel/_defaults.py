"""The panel used when no jury file is given.

With no provider key set it is made of the offline reference jurors (labelled as such in
every output). With keys, it is one small judge from each family whose key is set (Verga et
al. 2024: small judges from different families agree with humans better than one large
judge), each a pinned model ID that its provider lists as current, with no retirement
announced: `DEFAULT_MODELS` records each one, where that was read, and when. All three are in
the genai-prices table, so their cost is known.

What the sources can and cannot settle (read 2026-11-30):

- ``anthropic/claude-haiku-5-5``: Anthropic's current Haiku ("Latest", released 2026-10-07).
  Since the Claude 4.6 generation model IDs carry no date and each "identifies a pinned
  version of the model"; the dated Haiku 4.5 is "Legacy". Not in the anthropic SDK's
  deprecated-model table. Anthropic promises at least 60 days' notice of a retirement.
- ``openai/gpt-5.4-mini-2026-03-17``: a dated snapshot the openai SDK lists without a
  deprecation note, and absent from OpenAI's deprecations page. OpenAI gives generally
  available models at least six months' notice, so none can retire before 2027-05-30.
  A reasoning model: it is sent no temperature (see `jury.providers.openai.FAMILIES`).
  Chosen again on 2026-12-04 by price (benchmarks/default_juror.py): the cheapest dated
  snapshot with no retirement announced. ``gpt-6-luna`` (8.3 times cheaper a verdict) and
  ``gpt-5.6-luna`` are aliases, no dated form listed; the cheaper dated ones retire
  (``gpt-5.4-nano-2026-03-17`` on 2027-04-01). tests/panel/test_default_juror.py holds it.
- ``google/gemini-3.5-flash-lite``: Google's stable Flash-Lite, the recommended replacement
  for gemini-2.5-flash (retired 2026-12-01). Google publishes no dated form of its stable IDs
  and names no shutdown date for it ("No shutdown date announced"); no source read states a
  notice period, so a retirement before 2027-06-01 cannot be ruled out from them.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import date

from ._panel import Juror, Panel

__all__ = ["DEFAULT_JURORS", "DEFAULT_MODELS", "OFFLINE_JURORS", "DefaultModel", "default_panel"]

#: The offline reference jurors: three deterministic methods (see `jury.providers.offline`).
OFFLINE_JURORS = ("offline/reference", "offline/evidence", "offline/facts")


@dataclass(frozen=True, slots=True)
class DefaultModel:
    """One default juror: its model, the variables any of which holds its key, and where
    the model was read to be current (and on which day)."""

    model: str
    variables: tuple[str, ...]
    source: str
    read: date


_READ = date(2026, 11, 30)

#: One juror per family.
DEFAULT_MODELS: tuple[DefaultModel, ...] = (
    DefaultModel(
        "anthropic/claude-haiku-5-5",
        ("ANTHROPIC_API_KEY",),
        "https://platform.claude.com/docs/en/models/haiku-5-5/overview; "
        "https://platform.claude.com/docs/en/about-claude/models/model-ids-and-versions; "
        "anthropic SDK 2.14 _data/deprecated_models.py",
        _READ,
    ),
    DefaultModel(
        "openai/gpt-5.4-mini-2026-03-17",
        ("OPENAI_API_KEY",),
        "openai SDK 3.57 types/shared/chat_model.py; "
        "https://developers.openai.com/api/docs/deprecations",
        _READ,
    ),
    DefaultModel(
        "google/gemini-3.5-flash-lite",
        ("GOOGLE_API_KEY", "GEMINI_API_KEY"),
        "https://ai.google.dev/gemini-api/docs/deprecations; "
        "https://ai.google.dev/gemini-api/docs/models/gemini-3.5-flash-lite",
        _READ,
    ),
)

#: The same, as (model, key variables) pairs.
DEFAULT_JURORS: tuple[tuple[str, tuple[str, ...]], ...] = tuple(
    (default.model, default.variables) for default in DEFAULT_MODELS
)


def default_panel(env: Mapping[str, str] | None = None, rubric: str = "five-metric") -> Panel:
    """Real judges from every family whose key is in `env` (default: the environment);
    the offline reference jurors when there is none."""
    env = os.environ if env is None else env
    real = tuple(
        Juror(model=model)
        for model, variables in DEFAULT_JURORS
        if any(env.get(variable) for variable in variables)
    )
    if real:
        return Panel(jurors=real, rubric=rubric)
    return Panel(jurors=tuple(Juror(model=name) for name in OFFLINE_JURORS), rubric=rubric)
