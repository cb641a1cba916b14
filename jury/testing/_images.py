"""What each API refuses of the images in a request, as the fake server checks it.

Each rule cites the page it comes from. The bytes are looked at as the APIs look at them:
strict base64, and the file's own signature against the media type it is sent as (Anthropic
answers "Image does not match the provided media type"). The error texts follow the APIs'
forms (a pydantic-like path for Anthropic, ``Invalid value at ...`` for Google); where no
public text of the API's own message was found, the words are ours and say the same.
"""

from __future__ import annotations

import base64
import binascii
import re
from collections.abc import Iterator, Mapping
from fnmatch import fnmatchcase
from typing import Any

from ._wire import Refusal

__all__ = ["anthropic_images", "google_images", "openai_images"]

#: https://docs.anthropic.com/en/docs/build-with-claude/vision ("Supported image formats":
#: JPEG, PNG, GIF, WebP; "Maximum image size": 5 MB per image through the API; "up to 100
#: images in a single API request").
ANTHROPIC_TYPES = ("image/jpeg", "image/png", "image/gif", "image/webp")
ANTHROPIC_MAX_BYTES = 5 * 1024 * 1024
ANTHROPIC_MAX_IMAGES = 100
#: https://platform.openai.com/docs/guides/images-vision ("Image input requirements": PNG,
#: JPEG, WEBP, non-animated GIF; "up to 50 MB total payload size per request", "up to 500
#: individual image inputs per request"; ``detail`` low, high or auto).
OPENAI_TYPES = ("image/png", "image/jpeg", "image/webp", "image/gif")
OPENAI_MAX_BYTES = 50 * 1024 * 1024
OPENAI_MAX_IMAGES = 500
#: OpenAI's text-only models (their model pages give the input as text alone), as
#: `jury.providers._images.TEXT_ONLY_OPENAI` lists them; kept apart: the fake names no
#: adapter module.
OPENAI_TEXT_ONLY = (
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
#: Model names of OpenAI's own API; any other name on the Chat Completions route is a model
#: of an OpenAI-compatible server (vLLM, Ollama...), which takes images only when the model
#: is multimodal ("the model must be a multimodal model", vLLM's multimodal-inputs page).
#: Which ones are is told here by the usual markers in their names: an assumption, said so.
_OPENAI_NAMES = ("gpt-*", "o[1-9]*", "chatgpt-*")
_VISION_MARKS = re.compile(r"vl|vision|llava|pixtral|gemma-?3|llama-?4|minicpm-v|moondream")
#: https://ai.google.dev/gemini-api/docs/image-understanding ("Supported image formats":
#: PNG, JPEG, WEBP, HEIC, HEIF); inline data up to 100 MB a request, base64-encoded (raised
#: from 20 MB, https://blog.google/innovation-and-ai/technology/developers-tools/
#: gemini-api-new-file-limits).
GOOGLE_TYPES = ("image/png", "image/jpeg", "image/webp", "image/heic", "image/heif")
GOOGLE_MAX_INLINE = 100 * 1024 * 1024

#: The first bytes of each format, by which the bytes are told from their claimed type.
_SIGNATURES = {
    "image/png": (b"\x89PNG\r\n\x1a\n",),
    "image/jpeg": (b"\xff\xd8\xff",),
    "image/gif": (b"GIF87a", b"GIF89a"),
    "image/webp": (b"RIFF",),
}
_DATA_URI = re.compile(r"data:(?P<type>[\w.+-]+/[\w.+-]+);base64,(?P<data>.*)", re.DOTALL)


def _decoded(data: Any, *, urlsafe: bool = False) -> bytes | None:
    """The bytes of base64 `data`, or None when it is not base64 (strictly: no character
    outside the alphabet). `urlsafe` also takes ``-`` and ``_``, as Google's APIs do
    (protobuf's JSON mapping: "Either standard or URL-safe base64 encoding with/without
    paddings are accepted", https://protobuf.dev/programming-guides/json/)."""
    if not isinstance(data, str):
        return None
    if urlsafe:
        data = data.replace("-", "+").replace("_", "/")
        data += "=" * (-len(data) % 4)
    try:
        return base64.b64decode(data, validate=True)
    except (binascii.Error, ValueError):
        return None


def _matches(media_type: str, raw: bytes) -> bool:
    signatures = _SIGNATURES.get(media_type)
    if signatures is None:
        return True  # a type whose signature the fake does not know is taken as it is
    if media_type == "image/webp" and raw[8:12] != b"WEBP":
        return False
    return raw.startswith(signatures)


def _blocks(body: Mapping[str, Any], key: str = "content") -> Iterator[tuple[str, Any]]:
    for index, message in enumerate(body.get("messages") or ()):
        content = message.get(key) if isinstance(message, Mapping) else None
        if isinstance(content, list):
            for at, block in enumerate(content):
                if isinstance(block, Mapping):
                    yield f"messages.{index}.content.{at}", block


def anthropic_images(body: Mapping[str, Any]) -> Refusal | None:
    """The Messages API's rules for ``image`` blocks (the vision page above; the source
    shapes from anthropic/types/base64_image_source_param.py and url_image_source_param.py)."""
    count = 0
    for where, block in _blocks(body):
        if block.get("type") != "image":
            continue
        count += 1
        source = block.get("source") or {}
        if source.get("type") == "url":
            if not re.match(r"https?://", str(source.get("url") or "")):
                return Refusal(f"{where}.image.source.url: Invalid URL")
            continue
        if source.get("type") != "base64":
            return Refusal(f"{where}.image.source: Input tag does not match any expected tag")
        media = source.get("media_type")
        if media not in ANTHROPIC_TYPES:
            return Refusal(
                f"{where}.image.source.base64.media_type: Input should be 'image/jpeg', "
                "'image/png', 'image/gif' or 'image/webp'"
            )
        raw = _decoded(source.get("data"))
        if raw is None:
            return Refusal(f"{where}.image.source.base64.data: invalid base64 data")
        if len(raw) > ANTHROPIC_MAX_BYTES:
            return Refusal(
                f"{where}.image.source.base64: image exceeds 5 MB maximum: {len(raw)} bytes > "
                f"{ANTHROPIC_MAX_BYTES} bytes"
            )
        if not _matches(str(media), raw):
            return Refusal(
                f"{where}.image.source.base64.data: Image does not match the provided media "
                f"type {media}"
            )
    if count > ANTHROPIC_MAX_IMAGES:
        return Refusal(f"Too many images: {count} > {ANTHROPIC_MAX_IMAGES} in one request")
    return None


def openai_images(body: Mapping[str, Any], model: str) -> Refusal | None:
    """Chat Completions' rules for ``image_url`` parts (the images-vision guide above)."""
    count = total = 0
    for where, part in _blocks(body):
        if part.get("type") != "image_url":
            continue
        count += 1
        role = body["messages"][int(where.split(".")[1])].get("role")
        if role != "user":
            # The SDK's assistant and system message params take text (and refusal) parts only.
            return Refusal("Invalid value: 'image_url'. Supported values are: 'text'.", param=where)
        if any(fnmatchcase(model, p) for p in OPENAI_TEXT_ONLY) or (
            not any(fnmatchcase(model, p) for p in _OPENAI_NAMES)
            and not _VISION_MARKS.search(model.lower())
        ):
            return Refusal(
                "Invalid content type. image_url is only supported by certain models.",
                param=f"{where}.type",
                code="invalid_type",
            )
        image = part.get("image_url") or {}
        if image.get("detail", "auto") not in ("low", "high", "auto"):
            return Refusal(
                "Invalid value: 'detail'. Supported values are: 'low', 'high' and 'auto'.",
                param=f"{where}.image_url.detail",
            )
        url = str(image.get("url") or "")
        if re.match(r"https?://", url):
            continue
        found = _DATA_URI.fullmatch(url)
        raw = _decoded(found["data"]) if found else None
        if found is None or raw is None:
            return Refusal(
                "Invalid 'image_url': expected a URL or a base64 data URL.",
                param=f"{where}.image_url.url",
                code="invalid_image_url",
            )
        if found["type"] not in OPENAI_TYPES or not _matches(found["type"], raw):
            return Refusal(
                "You uploaded an unsupported image. Please make sure your image has one of the "
                "following formats: ['png', 'jpeg', 'gif', 'webp'].",
                param=f"{where}.image_url.url",
                code="invalid_image_format",
            )
        total += len(raw)
    if total > OPENAI_MAX_BYTES:
        return Refusal(f"The images total {total} bytes, above the {OPENAI_MAX_BYTES} a request")
    if count > OPENAI_MAX_IMAGES:
        return Refusal(f"Too many images: {count} > {OPENAI_MAX_IMAGES} in one request")
    return None


def google_images(body: Mapping[str, Any]) -> Refusal | None:
    """generateContent's rules for ``inlineData`` and ``fileData`` parts (the image
    understanding page and the file-limits post above)."""
    total = 0
    for index, content in enumerate(body.get("contents") or ()):
        for at, part in enumerate(content.get("parts") or ()):
            if not isinstance(part, Mapping):
                continue
            where = f"contents[{index}].parts[{at}]"
            inline = part.get("inlineData", part.get("inline_data"))
            file = part.get("fileData", part.get("file_data"))
            if isinstance(inline, Mapping):
                media = inline.get("mimeType", inline.get("mime_type"))
                raw = _decoded(inline.get("data"), urlsafe=True)
                if raw is None:
                    return Refusal(
                        f"Invalid value at '{where}.inline_data.data' (TYPE_BYTES), Base64 "
                        "decoding failed"
                    )
                if str(media).startswith("image/") and media not in GOOGLE_TYPES:
                    return Refusal(f"Unsupported MIME type: {media}")
                total += len(str(inline.get("data")))
            elif isinstance(file, Mapping):
                if not file.get("fileUri", file.get("file_uri")):
                    return Refusal(f"{where}.file_data.file_uri: a file part needs a fileUri")
                media = file.get("mimeType", file.get("mime_type"))
                if str(media).startswith("image/") and media not in GOOGLE_TYPES:
                    return Refusal(f"Unsupported MIME type: {media}")
    if total > GOOGLE_MAX_INLINE:
        return Refusal(f"Request payload size exceeds the limit: {GOOGLE_MAX_INLINE} bytes.")
    return None
