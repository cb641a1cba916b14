"""Provider batch APIs under the call layer: batch-mode judge models, the batch store, dispatch and
passes.
"""
