"""The run directory: records written and read, the writer's lock, shards, merge and the
estimate.
"""
