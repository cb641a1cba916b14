"""Votes to a verdict, pure: reducers, quorum, ties, tiers and learned models (reused by `jury
rescore`).
"""
