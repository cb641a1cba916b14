"""Images for the tests: real files' first bytes (the fake checks them against the media
type they are sent as), as base64 and data URIs."""

from __future__ import annotations

import base64

#: A 1x1 PNG (its signature, IHDR, IDAT and IEND chunks).
PNG = (
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5"
    "ErkJggg=="
)
#: The first bytes of a JPEG (SOI and an APP0 marker), enough for a signature check.
JPEG = base64.b64encode(b"\xff\xd8\xff\xe0\x00\x10JFIF\x00\x01").decode()
#: A BMP: a format none of the three APIs takes.
BMP = base64.b64encode(b"BM" + b"\x00" * 24).decode()
PNG_URI = f"data:image/png;base64,{PNG}"
URL = "https://example.test/cat.png"
