"""Votes to a verdict, pure: reducers, quorum, ties, tiers and learned models (reused by `jury
rescore`), and the gate's pass-rate interval (Wilson's and Clopper-Pearson's with the
standard library only: no NumPy or SciPy for a run).
"""

# Nothing public here: what a user needs of it is at the front door (`jury`).
__all__: list[str] = []
