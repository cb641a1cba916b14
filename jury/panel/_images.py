"""Which jurors are sent a case's images, and what a run is told of those that are not.

A juror whose model takes images is sent them with the case (`jury.adapters.Message`); one
whose model takes none (the offline jurors, a text-only model, an OpenAI-compatible server
unless the juror says ``images = true``) is not, and **abstains** on a case that has them:
a judge that cannot see what the question shows cannot measure the answer against it, and a
score given blind would be a guess counted as a measure (DESIGN 11: "a juror that cannot
measure abstains"; issue 23: an image is carried or refused with a note, never dropped). The
abstention says why, and the run warns at load, naming those jurors and the cases.

The system under test is held to more: an agent whose model takes no images would answer a
case that has them blind, and its answer would be judged as the system's. A run whose cases
have images and whose agent says it cannot be sent them (`Agent.blind`) stops at load when
the agent is a model (`agent_images`, a configuration error: no image case could be answered,
and the fix is the user's before anything is paid), and warns when it is an endpoint whose
body template places none (it may find them its own way, by the case's ID).
"""

from __future__ import annotations

from .._errors import ConfigError
from ..adapters._agent import Agent
from ..adapters._model import JudgeModel
from ..adapters._registry import images_refusal
from ..adapters._request import Image
from ..cases._images import placeholder
from ._panel import Juror, Panel

__all__ = ["Blind", "agent_images", "image_refusal", "image_warnings", "images_shown"]


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


def _cases(with_images: list[str]) -> str:
    many = f"{len(with_images)} cases have" if len(with_images) > 1 else "1 case has"
    named = ", ".join(with_images[:10])
    if len(with_images) > 10:
        named += f" and {len(with_images) - 10} more"
    return f"{many} images ({named})"


def agent_images(agent: Agent | None, with_images: list[str]) -> list[str]:
    """The warning of an agent that is sent none of the images of the cases `with_images`
    (their IDs) has; `ConfigError` when that agent is a model (see the module's text)."""
    if agent is None or agent.blind is None or not with_images:
        return []
    if agent.model is not None:
        raise ConfigError(
            f"the agent {agent.name} cannot be sent images ({agent.blind}), and "
            f"{_cases(with_images)}: it would answer them blind. Choose a model that takes "
            "images, or set agent_images = true in the jury file if this one does"
        )
    return [
        f"the agent {agent.name} is sent no images ({agent.blind}), and {_cases(with_images)}"
        ": its answers to them are given without what they show, unless it finds them itself"
    ]
