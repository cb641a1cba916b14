"""The panel used when no jury file is given.

With no provider key set it is made of the offline reference jurors (labelled as such in
every output). With keys, it is one small judge from each family whose key is set (Verga et
al. 2024: small judges from different families agree with humans better than one large
judge), each a pinned model ID:

- ``anthropic/claude-haiku-4-5-20251001``: Anthropic's dated Haiku 4.5 snapshot.
- ``openai/gpt-4.1-mini-2025-04-14``: the dated GPT-4.1 mini snapshot; a non-reasoning model,
  so it takes temperature 0 and strict structured outputs.
- ``google/gemini-2.5-flash``: Gemini's stable 2.5 Flash ID. Google pins stable model IDs
  (only ``-latest`` and preview names move) and publishes no dated form for 2.5.

All three are in the genai-prices table, so their cost is known.
"""

from __future__ import annotations

import os
from collections.abc import Mapping

from ._panel import Juror, Panel

__all__ = ["DEFAULT_JURORS", "OFFLINE_JURORS", "default_panel"]

#: The offline reference jurors: three deterministic methods (see `providers.offline`).
OFFLINE_JURORS = ("offline/reference", "offline/evidence", "offline/facts")

#: One juror per family, with the variables any of which holds its key.
DEFAULT_JURORS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("anthropic/claude-haiku-4-5-20251001", ("ANTHROPIC_API_KEY",)),
    ("openai/gpt-4.1-mini-2025-04-14", ("OPENAI_API_KEY",)),
    ("google/gemini-2.5-flash", ("GOOGLE_API_KEY", "GEMINI_API_KEY")),
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
