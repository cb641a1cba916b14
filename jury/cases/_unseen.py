"""Parts of a message the judges cannot see: an image, audio, a file.

The judges read text (the adapters' messages carry text only), so such a part is shown to them
by a placeholder where it was (``[image]``), and a source of cases says which of its records
had one ("2 cases have content the judges cannot see (image): lines 4, 9"), so that a user
knows which verdicts were given without it. The readers that make a placeholder call `unseen`;
`CaseSource` collects what one record's reading made.
"""

from __future__ import annotations

from contextvars import ContextVar, Token

__all__ = ["collect", "restore", "unseen", "unseen_notice"]

_found: ContextVar[list[str] | None] = ContextVar("jury_unseen_parts", default=None)


def unseen(kind: str) -> str:
    """The placeholder the judges read where a part of `kind` was (noted, when collected)."""
    found = _found.get()
    if found is not None:
        found.append(kind)
    return f"[{kind}]"


def collect(found: list[str]) -> Token[list[str] | None]:
    """Collect the kinds of unseen part into `found` until `restore` is given the token. A
    context variable, not an argument through every reader: each case is read in one task."""
    return _found.set(found)


def restore(token: Token[list[str] | None]) -> None:
    _found.reset(token)


def unseen_notice(name: str, unit: str, found: dict[int, list[str]]) -> str:
    """The notice of a source whose records (by number) held what the judges cannot see:
    the kinds, and where (the first ten)."""
    numbers = list(found)
    kinds = sorted({kind for kinds in found.values() for kind in kinds})
    where = ", ".join(map(str, numbers[:10]))
    if len(numbers) > 10:
        where += f" and {len(numbers) - 10} more"
    many = f"{len(numbers)} cases have" if len(numbers) > 1 else "1 case has"
    units = unit + ("s" if len(numbers) > 1 else "")
    return (
        f"{name}: {many} content the judges cannot see ({', '.join(kinds)}): {units} "
        f"{where}; left out of the text they judge, each marked where it was ([{kinds[0]}])"
    )
