"""How a jury is configured: the jury file, its seats, the default panel, the registries, warnings
and lifecycle policy.
"""

# Nothing public here: what a user needs of it is at the front door (`jury`).
__all__: list[str] = []
