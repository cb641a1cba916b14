"""Images in a judge's messages, in each protocol's shape, and which models take them.

A `jury.adapters.Message` carries its text and its images; the text marks each image where
it was in the case (``[image 1]``). Each protocol is sent the text first, then every image
after a short text that names it ("image 1:"), so that a judge can tell which is which
whatever order the protocol reads parts in. An image's name is its number in the case: the
numbers the message's text marks (``[image 2]``) when it marks as many as it carries (a
model agent's later turn carries only the images it shows), else their places in the message
(a judge's prompt carries all of a case's images, numbered from 1, so both read the same). A
message without images is sent exactly as
before (a plain string where the protocol takes one), so that no request without images
changes by a byte.

Which models take images (the providers' `jury.adapters.ModelProfile.images`, in
`jury.providers.BUILTIN`, read by `jury.adapters.images_refusal`): every Claude and every
Gemini model of the APIs, OpenAI's models but the text-only ones below, and an
OpenAI-compatible server only where its juror says so (``images = true``): most local models
take text only, and a server refuses an image part it does not know.
"""

from __future__ import annotations

import re
from fnmatch import fnmatchcase
from typing import Any

from jury.adapters import Image, Message

__all__ = [
    "TEXT_ONLY_OPENAI",
    "anthropic_content",
    "compatible_refusal",
    "gemini_parts",
    "openai_content",
    "openai_refusal",
]

#: OpenAI models that take text only: the model pages give their input as "Text" alone
#: (https://platform.openai.com/docs/models/gpt-3.5-turbo, .../gpt-4 (gpt-4-0613 and the
#: earlier gpt-4 and turbo previews), .../o1-mini, .../o3-mini); the API answers an image
#: part sent to one with a 400 "Invalid content type. image_url is only supported by certain
#: models." Every other OpenAI chat model takes image input.
TEXT_ONLY_OPENAI = (
    "gpt-3.5*",
    "gpt-4",
    "gpt-4-0314",
    "gpt-4-0613",
    "gpt-4-32k*",
    "gpt-4-1106-preview",
    "gpt-4-0125-preview",
    "gpt-4-turbo-preview",
    "o1-mini*",
    "o3-mini*",
)


_MARK = re.compile(r"\[image (\d+)\]")


def _label(number: int) -> str:
    return f"image {number}:"


def _numbered(message: Message) -> list[tuple[int, Image]]:
    """Each image of `message` with its number (see the module's text)."""
    marked = sorted({int(n) for n in _MARK.findall(message.content)})
    numbers = marked if len(marked) == len(message.images) else range(1, len(message.images) + 1)
    return list(zip(numbers, message.images, strict=True))


def anthropic_content(message: Message) -> str | list[dict[str, Any]]:
    """A Messages API turn's content: the text, then each image as an ``image`` block with a
    ``base64`` source (``media_type``, ``data``) or a ``url`` source
    (anthropic/types/image_block_param.py, base64_image_source_param.py,
    url_image_source_param.py)."""
    if not message.images:
        return message.content
    blocks: list[dict[str, Any]] = [{"type": "text", "text": message.content}]
    for number, image in _numbered(message):
        source: dict[str, Any] = (
            {"type": "base64", "media_type": image.media_type, "data": image.data}
            if image.data is not None
            else {"type": "url", "url": image.url}
        )
        blocks += [{"type": "text", "text": _label(number)}, {"type": "image", "source": source}]
    return blocks


def openai_content(message: Message) -> str | list[dict[str, Any]]:
    """A Chat Completions message's content: the text, then each image as an ``image_url``
    part whose ``url`` is the image's URL or its data URI
    (openai/types/chat/chat_completion_content_part_image_param.py). An assistant's turn
    carries no images (the API takes only text and refusal parts there)."""
    if not message.images or message.role != "user":
        return message.content
    parts: list[dict[str, Any]] = [{"type": "text", "text": message.content}]
    for number, image in _numbered(message):
        parts += [
            {"type": "text", "text": _label(number)},
            {"type": "image_url", "image_url": {"url": image.data_uri}},
        ]
    return parts


def _gemini_part(image: Image) -> dict[str, Any]:
    if image.data is not None:
        # URL-safe, as google-genai writes a Blob's bytes (pydantic's base64 serialiser),
        # so that both transports send the same body; the API takes either alphabet
        # (protobuf's JSON mapping: "Either standard or URL-safe base64 encoding with/without
        # paddings are accepted", https://protobuf.dev/programming-guides/json/).
        # The Blob's own keys are snake_case, as google-genai sends them (its converter
        # renames the part's key and copies the Blob as it dumps it); the API reads both
        # spellings (protobuf's JSON mapping takes a field's proto name or its camelCase).
        data = image.data.replace("+", "-").replace("/", "_")
        return {"inlineData": {"mime_type": image.media_type, "data": data}}
    # An http(s) URL is fetched by the Gemini API itself ("External URLs (public / signed)",
    # https://blog.google/innovation-and-ai/technology/developers-tools/gemini-api-new-file-limits);
    # the media type is what the case said, else the usual one.
    return {"fileData": {"mime_type": image.media_type or "image/jpeg", "file_uri": image.url}}


def gemini_parts(message: Message) -> list[dict[str, Any]]:
    """A Gemini content's parts: the text, then each image as an ``inlineData`` (Blob:
    ``mime_type``, ``data``) or ``fileData`` (FileData: ``mime_type``, ``file_uri``) part
    (google/genai/types.py Part)."""
    parts: list[dict[str, Any]] = [{"text": message.content}]
    for number, image in _numbered(message):
        parts += [{"text": _label(number)}, _gemini_part(image)]
    return parts


def openai_refusal(model: str) -> str | None:
    """Why an OpenAI model takes no images: it is one of `TEXT_ONLY_OPENAI`."""
    if any(fnmatchcase(model, pattern) for pattern in TEXT_ONLY_OPENAI):
        return f"{model} takes text only"
    return None


def compatible_refusal(model: str) -> str | None:
    """Why a model of an OpenAI-compatible server is sent no images (unless its juror says
    ``images = true``)."""
    return (
        "an OpenAI-compatible server's model is taken to read text only (set images = true "
        "on the juror when it takes images)"
    )
