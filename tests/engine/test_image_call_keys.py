"""A call's cache key holds its images: a changed image is a new call, the same image the
same call; and the key written piece by piece is the hash of the whole array written at once."""

from __future__ import annotations

import hashlib
import json

from images_helpers import JPEG, PNG

from jury.adapters import Endpoint, Image, JudgeRequest, Message
from jury.adapters._request import call_key

SCHEMA = {"type": "object"}
AT = Endpoint("http://127.0.0.1:1/v1", "chat/completions")


def _request(*images: Image) -> JudgeRequest:
    return JudgeRequest("system", (Message("user", "Is [image 1] a cat?", images),), SCHEMA)


def test_a_changed_image_is_a_new_call_and_the_same_image_the_same_call() -> None:
    png, jpeg = Image(media_type="image/png", data=PNG), Image(media_type="image/jpeg", data=JPEG)
    key = call_key("m", _request(png), 0, endpoint=AT)
    assert call_key("m", _request(Image(media_type="image/png", data=PNG)), 0, endpoint=AT) == key
    assert call_key("m", _request(jpeg), 0, endpoint=AT) != key
    assert call_key("m", _request(Image(url="https://example.test/a.png")), 0, endpoint=AT) != key
    assert call_key("m", _request(), 0, endpoint=AT) != key


def test_a_key_written_piece_by_piece_hashes_the_whole_array_written_at_once() -> None:
    # The endpoint, system text and schema come from memos: the key must still be the hash
    # of the one JSON array (sorted keys, no spaces) of every field.
    fields = [[["user", "Is [image 1] a cat?"]], SCHEMA, "verdict", 0.0, 1024, None, 0]
    whole = [[AT.url, AT.wire], "m", "system", *fields]
    written = json.dumps(whole, sort_keys=True, separators=(",", ":"))
    expected = hashlib.sha256(written.encode()).hexdigest()
    for _ in range(2):  # the second time from the memos
        assert call_key("m", _request(), 0, endpoint=AT) == expected
