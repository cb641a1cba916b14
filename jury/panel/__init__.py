"""How a jury is configured: the jury file, its seats, the default panel, the registries, warnings
and lifecycle policy.
"""
