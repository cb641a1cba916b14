"""Rubric kinds and the built-in rubric files (``rubrics/builtin/*.toml``).

The kinds load through `jury.load_rubric` by their file's ``kind``; what is public here are
the helpers that reports and benchmarks read verdicts with.
"""

from types import FunctionType

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

#: The built-in strategies a seat may judge with (``strategy = "..."``): the `Strategy`
#: ("module:attribute", imported on first use). `jury.adapters`' strategy registry reads it.
STRATEGIES: dict[str, str] = {
    "plain": "jury.rubrics._strategies:PLAIN",
    "rules": "jury.rubrics._strategies:RULES",
    "metrics": "jury.rubrics._strategies:METRICS",
    "reference": "jury.rubrics._strategies:REFERENCE",
    "metrics_reference": "jury.rubrics._strategies:METRICS_REFERENCE",
    "cot": "jury.rubrics._strategies:COT",
}

__all__ = [
    "KINDS",
    "SCOPES",
    "STRATEGIES",
    "PositionConsistency",
    "position_consistency",
    "quote_occurs",
]


# Each public name says where to import it from (jury.rubrics.X), not the private module that
# defines it: reprs, tracebacks and the API reference read the same door.
for _name in __all__:
    if isinstance(_value := globals()[_name], type | FunctionType):
        _value.__module__ = __name__
del _name, _value
