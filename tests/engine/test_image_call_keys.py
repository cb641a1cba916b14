"""A call's cache key holds its images: a changed image is a new call, the same image the
same call, and a request without images keeps the key it had before images existed."""

from __future__ import annotations

import hashlib
import json

from images_helpers import JPEG, PNG

from jury.adapters import Image, JudgeRequest, Message
from jury.adapters._request import call_key

SCHEMA = {"type": "object"}


def _request(*images: Image) -> JudgeRequest:
    return JudgeRequest("system", (Message("user", "Is [image 1] a cat?", images),), SCHEMA)


def test_a_changed_image_is_a_new_call_and_the_same_image_the_same_call() -> None:
    png, jpeg = Image(media_type="image/png", data=PNG), Image(media_type="image/jpeg", data=JPEG)
    key = call_key("m", _request(png), 0)
    assert call_key("m", _request(Image(media_type="image/png", data=PNG)), 0) == key
    assert call_key("m", _request(jpeg), 0) != key
    assert call_key("m", _request(Image(url="https://example.test/a.png")), 0) != key
    assert call_key("m", _request(), 0) != key


def test_a_request_without_images_keeps_the_key_written_the_way_it_was_before() -> None:
    # The address as it was written before messages carried images: the replies cached then
    # still serve the same calls.
    fields = [[["user", "Is [image 1] a cat?"]], SCHEMA, "verdict", 0.0, 1024, None, 0]
    before = json.dumps(["m", "system", *fields], sort_keys=True, separators=(",", ":"))
    assert call_key("m", _request(), 0) == hashlib.sha256(before.encode()).hexdigest()
