"""Rubric kinds and the built-in rubric files (``rubrics/builtin/*.toml``).

The kinds load through `jury.load_rubric` by their file's ``kind``; what is public here are
the helpers that reports and benchmarks read verdicts with.
"""

from ._pairwise import PositionConsistency, position_consistency
from ._points import quote_occurs

__all__ = ["PositionConsistency", "position_consistency", "quote_occurs"]
