"""Where a fake provider server is: each provider's base URL, and the environment variables
that point every provider's SDK (and the adapters) at it."""

from __future__ import annotations

import re

__all__ = ["Addresses"]


class Addresses:
    """The base URLs of a server at `url` (``http://127.0.0.1:PORT``, set once it listens)."""

    url: str

    @property
    def openai_base_url(self) -> str:
        return f"{self.url}/v1"

    @property
    def anthropic_base_url(self) -> str:
        return self.url

    @property
    def google_base_url(self) -> str:
        return self.url

    def env(self, key: str = "test-key-not-secret", *, service: str = "fake") -> dict[str, str]:
        """Environment variables that point every provider's SDK (and the adapters) here:
        OpenAI, Anthropic, Google, and ``openai-api/<service>/<model>`` (its base URL with
        the ``/v1`` the SDK needs)."""
        prefix = re.sub(r"[^A-Z0-9]", "_", service.upper())
        return {
            "OPENAI_BASE_URL": self.openai_base_url,
            "OPENAI_API_KEY": key,
            "ANTHROPIC_BASE_URL": self.anthropic_base_url,
            "ANTHROPIC_API_KEY": key,
            "GOOGLE_GEMINI_BASE_URL": self.google_base_url,
            "GOOGLE_API_KEY": key,
            f"{prefix}_BASE_URL": self.openai_base_url,
            f"{prefix}_API_KEY": key,
        }
