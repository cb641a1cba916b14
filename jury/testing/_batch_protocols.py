"""The batch APIs the fake server speaks, one object each."""

from __future__ import annotations

from ._anthropic_batch import AnthropicBatch
from ._batches import BatchProtocol
from ._google_batch import GeminiBatch
from ._openai_batch import OpenAIBatch

__all__ = ["BATCH_PROTOCOLS"]

BATCH_PROTOCOLS: tuple[BatchProtocol, ...] = (OpenAIBatch(), AnthropicBatch(), GeminiBatch())
