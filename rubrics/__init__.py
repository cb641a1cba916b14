"""Rubric kinds and the built-in rubric files (``rubrics/builtin/*.toml``).

The kinds load through `jury.load_rubric` by their file's ``kind``; what is public here are
the helpers that reports and benchmarks read verdicts with.
"""

from ._pairwise import PositionConsistency, position_consistency
from ._points import quote_occurs

#: The built-in rubric kinds, by a rubric file's ``kind``: the factory that loads the file
#: ("module:callable", imported on first use). `jury`'s registry reads it.
KINDS: dict[str, str] = {
    "scale": "jury.rubrics._scale:from_toml",
    "points": "jury.rubrics._points:from_toml",
    "criterion": "jury.rubrics._criterion:from_toml",
    "pairwise": "jury.rubrics._pairwise:from_toml",
}

#: What a rubric file's ``scope`` makes of the rubric its kind loads ("module:callable" of
#: the rubric; "conversation", the default, leaves it as it is). See `jury.rubrics._scope`.
SCOPES: dict[str, str | None] = {
    "conversation": None,
    "turn": "jury.rubrics._scope:per_turn",
}

__all__ = ["KINDS", "SCOPES", "PositionConsistency", "position_consistency", "quote_occurs"]
