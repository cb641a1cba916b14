"""Which jurors are sent a case's images, and what a run is told of those that are not.

A juror whose model takes images is sent them with the case (`jury.adapters.Message`); one
whose model takes none (the offline jurors, a text-only model, an OpenAI-compatible server
unless the juror says ``images = true``) is not, and **abstains** on a case that has them:
a judge that cannot see what the question shows cannot measure the answer against it, and a
score given blind would be a guess counted as a measure (DESIGN 11: "a juror that cannot
measure abstains"; issue 23: an image is carried or refused with a note, never dropped). The
abstention says why, and the run warns at load, naming those jurors and the cases.
"""

from __future__ import annotations

from ..adapters._model import JudgeModel
from ..adapters._registry import images_refusal
from ..adapters._request import Image
from ..cases._images import placeholder
from ._panel import Juror, Panel

__all__ = ["Blind", "image_refusal", "image_warnings", "images_shown"]


class Blind(Exception):
    """A juror asked to judge a case whose images its model cannot take: it abstains, for
    the reason given."""


def images_shown(images: tuple[Image, ...], text: str) -> tuple[Image, ...]:
    """The images to send with a prompt's `text`: all of the case's when the text marks any
    of them (so that the numbers the text gives are their places), else none (a rubric
    that does not show the part they were in)."""
    if images and any(placeholder(n) in text for n in range(1, len(images) + 1)):
        return images
    return ()


def image_refusal(juror: Juror, model: str | JudgeModel, own: bool = True) -> str | None:
    """Why `model` (the juror's own when `own`, else one of its fallbacks) is sent no
    images, or None when it is sent them. The juror's ``images`` setting speaks for its own
    model; a fallback answers for itself, unless the juror said ``images = false``."""
    if juror.images is False:
        return "the juror says images = false"
    if juror.images and own:
        return None
    return images_refusal(model.name if isinstance(model, JudgeModel) else model)


def image_warnings(panel: Panel, with_images: list[str]) -> list[str]:
    """The warning of a run whose cases (`with_images`, their IDs) have images while some
    of its jurors take none: who, why, and on which cases they abstain."""
    if not with_images:
        return []
    blind = [
        f"{juror.id} ({why})"
        for juror in panel.jurors
        if (why := image_refusal(juror, juror.model)) is not None
    ]
    if not blind:
        return []
    cases = ", ".join(with_images[:10])
    if len(with_images) > 10:
        cases += f" and {len(with_images) - 10} more"
    many = f"{len(with_images)} cases have" if len(with_images) > 1 else "1 case has"
    return [
        f"{many} images ({cases}) that {len(blind)} juror(s) cannot see: "
        f"{'; '.join(blind)}; they abstain on those cases, and their votes say so"
    ]
