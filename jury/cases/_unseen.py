"""Parts of a message other than text: images, kept for the judges that take them; audio and
files, which the judges cannot see.

An image is kept as one of its case's ``images`` (`jury.cases._images`) and the text shows a
numbered placeholder where it was (``[image 1]``); a judge whose model takes images is sent
them (the others abstain, and the run says so at load). Audio or a file is shown to the
judges by a placeholder where it was (``[input_audio]``). A source of cases says which of its
records had either ("2 cases have images: lines 4, 9 ..."), so that a user knows which
verdicts rest on them. The readers call `unseen` and `seen_image`; `CaseSource` collects what
one record's reading made, and a `Case` takes the images its reading met.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from contextvars import ContextVar, Token
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from ._images import FOLDER, Image, image_of, placeholder

__all__ = [
    "collect",
    "end_images",
    "image_part",
    "images_met",
    "restore",
    "seen_image",
    "take_images",
    "unseen",
    "unseen_notice",
]

_found: ContextVar[list[str] | None] = ContextVar("jury_unseen_parts", default=None)
_images: ContextVar[list[Image] | None] = ContextVar("jury_case_images", default=None)


@dataclass(frozen=True, slots=True)
class Collecting:
    """What `collect` set, for `restore`."""

    found: Token[list[str] | None]
    images: Token[list[Image] | None]
    folder: Token[Path | None]


def unseen(kind: str) -> str:
    """The placeholder the judges read where a part of `kind` was (noted, when collected)."""
    found = _found.get()
    if found is not None:
        found.append(kind)
    return f"[{kind}]"


def seen_image(image: Image) -> str:
    """The numbered placeholder of `image` in the record being read: it is kept for its case
    (the same image met again keeps its number). Outside a reading nothing can keep it, and
    it is an unseen part."""
    images = _images.get()
    if images is None:
        return unseen("image")
    found = _found.get()
    if found is not None:
        found.append("image")
    if image not in images:
        images.append(image)
    return placeholder(images.index(image) + 1)


def image_part(part: Mapping[str, Any]) -> str | None:
    """The placeholder of the image a message part holds (kept for its case), or None when
    the part holds no image. Raises ValueError for a broken image (bad base64)."""
    try:
        image = image_of(part)
    except ValueError as exc:
        # The rule broken, in a line (not pydantic's report of the model it was building).
        why = str(exc)
        if isinstance(exc, ValidationError):
            why = exc.errors()[0]["msg"].removeprefix("Value error, ")
        raise ValueError(f"image: {why}") from None
    return None if image is None else seen_image(image)


def collect(found: list[str], folder: Path | None = None) -> Collecting:
    """Collect the kinds of part into `found`, and the images met, until `restore` is given
    the token; an image named by a relative path is read from `folder` (the file's). A context
    variable, not an argument through every reader: each case is read in one task."""
    return Collecting(_found.set(found), _images.set([]), FOLDER.set(folder))


def restore(token: Collecting) -> None:
    FOLDER.reset(token.folder)
    _images.reset(token.images)
    _found.reset(token.found)


def images_met() -> tuple[list[Image], Token[list[Image] | None] | None]:
    """The images met so far in the record being read, and a token when there was no reading
    under way and one was begun here (a `Case` built in code): `end_images` ends it."""
    images = _images.get()
    if images is not None:
        return images, None
    images = []
    return images, _images.set(images)


def end_images(token: Token[list[Image] | None] | None) -> None:
    if token is not None:
        _images.reset(token)


def take_images(data: Any, handler: Callable[[Any], Any]) -> Any:
    """A `Case` validated by `handler`, with the images its record's reading met (its
    question's parts, read before the case is built, and its turns', read while it is): the
    case's text marks each by its number. Given ``images`` are kept as they are."""
    images, token = images_met()
    try:
        case = handler(data)
    finally:
        end_images(token)
    if images and not getattr(case, "images", True):
        # Set on the case itself, not on a copy: pydantic keeps what a validator returns
        # only through `model_validate`, and `Case(...)` must keep its images too.
        object.__setattr__(case, "images", tuple(images))
        case.__pydantic_fields_set__.add("images")
        images.clear()
    return case


def unseen_notice(name: str, unit: str, found: dict[int, list[str]]) -> str:
    """The notice of a source whose records (by number) held images or what the judges
    cannot see: the kinds, and where (the first ten)."""
    numbers = list(found)
    kinds = sorted({kind for kinds in found.values() for kind in kinds})
    where = ", ".join(map(str, numbers[:10]))
    if len(numbers) > 10:
        where += f" and {len(numbers) - 10} more"
    many = f"{len(numbers)} cases have" if len(numbers) > 1 else "1 case has"
    units = unit + ("s" if len(numbers) > 1 else "")
    if kinds == ["image"]:
        return (
            f"{name}: {many} images: {units} {where}; each is marked where it was "
            "([image 1]) and sent to the jurors whose models take images (the others abstain)"
        )
    hidden = [kind for kind in kinds if kind != "image"]
    also = " (their images are sent to the jurors that take them)" if "image" in kinds else ""
    return (
        f"{name}: {many} content the judges cannot see ({', '.join(hidden)}): {units} "
        f"{where}; left out of the text they judge, each marked where it was ([{hidden[0]}])"
        f"{also}"
    )
