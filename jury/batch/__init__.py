"""Provider batch APIs under the call layer: batch-mode judge models, the batch store, dispatch and
passes.
"""

# Nothing public here: what a user needs of it is at the front door (`jury`).
__all__: list[str] = []
