"""One case, layer by layer: the front (`Jury`), the stream, the case layer, the vote layer, the
call layer, the account limits and the call cache.
"""

# Nothing public here: what a user needs of it is at the front door (`jury`).
__all__: list[str] = []
