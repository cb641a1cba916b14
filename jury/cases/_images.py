"""Images in a case: kept as the case's ``images``, each marked in the text where it was.

A message part that is an image (in any shape the readers know, `image_of`) becomes an
`Image` of the case, and the text the judges read holds a numbered placeholder where it was
(``[image 1]``), so that a judge sent the images knows which is which, and a judge that is
not sent them knows something was there. The same image met twice while one record is read
(the question taken from a conversation that is also read as the case's turns) keeps its
number. Which jurors are sent them is the engine's business (`jury.adapters.images_refusal`).
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import mimetypes
import re
from collections.abc import Mapping
from contextvars import ContextVar
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, model_validator

__all__ = ["FOLDER", "Image", "as_images", "image_of", "placeholder"]

#: The folder of the file being read, where an Inspect dataset's image named by a relative
#: path is (None: the cases come from no folder, standard input or a dataset object). Set by
#: the reading of each record (`jury.cases._unseen.collect`).
FOLDER: ContextVar[Path | None] = ContextVar("jury_case_folder", default=None)

_DATA_URI = re.compile(
    r"data:(?P<type>[\w.+-]+/[\w.+-]+)?(?:;[\w-]+=[^;,]*)*;base64,(?P<data>.*)", re.DOTALL
)


class Image(BaseModel):
    """One image of a case: base64 `data` with its `media_type` (``image/png``), or a
    `url` (http or https) the judge's provider fetches. Exactly one of `data` and `url`."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    media_type: str | None = None
    data: str | None = None
    url: str | None = None

    @model_validator(mode="after")
    def _one_source(self) -> Image:
        if (self.data is None) == (self.url is None):
            raise ValueError("an image has either data (base64, with media_type) or a url")
        if self.url is not None and not re.match(r"https?://\S+$", self.url):
            raise ValueError(f"an image url must be http(s) or a data: URI, got {self.url[:60]!r}")
        if self.data is not None:
            if not self.media_type or not self.media_type.startswith("image/"):
                raise ValueError(
                    f"an image's media_type must be image/..., got {self.media_type!r}"
                )
            try:
                # Strict: a character outside the alphabet or bad padding is refused here,
                # when the file loads, rather than by every provider call by call.
                base64.b64decode(self.data, validate=True)
            except (binascii.Error, ValueError):
                raise ValueError("an image's data is not valid base64") from None
        return self

    @classmethod
    def from_text(cls, text: str, media_type: str | None = None) -> Image:
        """An image given as one string: a ``data:`` URI or an http(s) URL."""
        found = _DATA_URI.fullmatch(text.strip()) if text.startswith("data:") else None
        if found is not None:
            return cls(media_type=found["type"] or media_type, data=found["data"])
        if text.startswith("data:"):
            raise ValueError("an image's data: URI must be base64 (data:image/png;base64,...)")
        return cls(url=text.strip())

    @property
    def data_uri(self) -> str:
        """The image as a ``data:`` URI (OpenAI's ``image_url`` takes one), or its URL."""
        if self.data is not None:
            return f"data:{self.media_type};base64,{self.data}"
        return str(self.url)

    @property
    def size(self) -> int:
        """Bytes of the decoded image (0 for a URL): what the providers' size limits count."""
        return 0 if self.data is None else len(self.data) * 3 // 4 - self.data[-2:].count("=")

    @property
    def digest(self) -> str:
        """A short content address of the image (what a call's cache key holds of it)."""
        return hashlib.sha256((self.data or self.url or "").encode()).hexdigest()[:32]


def as_images(value: object) -> object:
    """A case's ``images`` as given: each an `Image` (a mapping) or one string, a ``data:``
    URI or a URL."""
    if isinstance(value, list | tuple):
        return [Image.from_text(v) if isinstance(v, str) else v for v in value]
    return value


def placeholder(number: int) -> str:
    """What the judges read where image `number` (from 1) was."""
    return f"[image {number}]"


def _inline(value: Any) -> Image | None:
    """Gemini's ``inline_data``/``inlineData`` ({mime_type, data}) and ``file_data``/
    ``fileData`` ({mime_type, file_uri}), google/genai/types.py Blob and FileData."""
    if not isinstance(value, Mapping):
        return None
    media = value.get("mime_type", value.get("mimeType"))
    if not isinstance(media, str) or not media.startswith("image/"):
        return None
    if isinstance(value.get("data"), str):
        return Image(media_type=media, data=value["data"])
    uri = value.get("file_uri", value.get("fileUri"))
    # A Files API or Cloud Storage URI only Gemini can read is not an image other judges take.
    if isinstance(uri, str) and uri.startswith(("http://", "https://")):
        return Image(media_type=media, url=uri)
    return None


def image_of(part: Mapping[str, Any]) -> Image | None:
    """The image a message part holds, or None when it holds none this reader can keep.

    - OpenAI Chat Completions ``{"type": "image_url", "image_url": {"url": ...}}``
      (openai/types/chat/chat_completion_content_part_image_param.py);
    - OpenAI Responses ``{"type": "input_image", "image_url": ...}`` (a ``file_id`` is not
      kept: only OpenAI can read it);
    - Anthropic ``{"type": "image", "source": {"type": "base64", "media_type", "data"} |
      {"type": "url", "url"}}`` (anthropic/types/image_block_param.py);
    - Inspect's ContentImage ``{"type": "image", "image": URL or data URI}``
      (inspect_ai/_util/content.py);
    - LangChain's image blocks (``source_type`` base64 / url, or ``base64``/``url`` keys);
    - Gemini parts with ``inline_data`` or ``file_data`` of an image media type;
    - OpenTelemetry GenAI ``blob`` and ``uri`` parts of ``modality`` image
      (gen-ai input messages JSON schema).

    Raises ValueError when the part is an image but a broken one (bad base64, a data URI of
    another encoding)."""
    kind = part.get("type")
    if kind == "image_url":
        value = part.get("image_url")
        url = value.get("url") if isinstance(value, Mapping) else value
        return Image.from_text(url) if isinstance(url, str) else None
    if kind == "input_image":
        url = part.get("image_url")
        return Image.from_text(url) if isinstance(url, str) else None
    if kind == "image":
        source = part.get("source")
        if isinstance(source, Mapping):
            if source.get("type") == "base64":
                return Image(media_type=source.get("media_type"), data=source.get("data"))
            if source.get("type") == "url" and isinstance(source.get("url"), str):
                return Image.from_text(source["url"])
            return None
        media = part.get("mime_type", part.get("media_type"))
        named = part.get("image")
        if isinstance(named, str) and not re.match(r"(data:|[A-Za-z][\w+.-]*://)", named):
            return _in_folder(named)
        for key in ("image", "url"):
            if isinstance(part.get(key), str):
                return Image.from_text(part[key], media if isinstance(media, str) else None)
        for key in ("base64", "data"):
            if isinstance(part.get(key), str):
                return Image(media_type=media, data=part[key])
        return None
    if kind in ("blob", "uri") and part.get("modality") == "image":
        media = part.get("mime_type")
        media = media if isinstance(media, str) else None
        if kind == "blob" and isinstance(part.get("content"), str):
            return Image(media_type=media, data=part["content"])
        if kind == "uri" and isinstance(part.get("uri"), str):
            return Image.from_text(part["uri"], media)
        return None
    for key in ("inline_data", "inlineData", "file_data", "fileData"):
        if key in part:
            return _inline(part[key])
    return None


def _in_folder(name: str) -> Image:
    """An Inspect ContentImage named by a path relative to its dataset's file (``"image":
    "ballons.png"``): read from that file's folder, as Inspect resolves it
    (inspect_ai/dataset/_util.py, ``resolve_sample_files``), and from nowhere else: a path
    that leaves the folder (``../``, an absolute path, a link out of it) is refused."""
    folder = FOLDER.get()
    if folder is None:
        raise ValueError(
            f"{name!r} is a file name, and these cases come from no folder to find it in: "
            "give a data: URI or an http(s) URL"
        )
    root = folder.resolve()
    path = (root / name).resolve()
    if not path.is_relative_to(root):
        raise ValueError(f"{name!r} is outside the dataset's folder {folder}")
    media, _ = mimetypes.guess_type(path.name)
    if media is None or not media.startswith("image/"):
        raise ValueError(f"{name!r} is not an image file (png, jpeg, gif, webp)")
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise ValueError(f"{name!r} cannot be read in {folder}: {exc.strerror or exc}") from None
    return Image(media_type=media, data=base64.b64encode(data).decode())
