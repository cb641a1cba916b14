"""Votes to a verdict, pure: reducers, quorum, ties, tiers and learned models (reused by `jury
rescore`), and the gate's pass-rate interval (Wilson's with the standard library only: no
NumPy for a run; Clopper-Pearson's takes SciPy's beta quantiles).
"""

# Nothing public here: what a user needs of it is at the front door (`jury`).
__all__: list[str] = []
