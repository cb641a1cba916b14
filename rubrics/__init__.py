"""Rubric kinds and the built-in rubric files (``rubrics/builtin/*.toml``)."""
