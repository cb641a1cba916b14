"""The built-in agents (the system under test), found by `jury`'s agent registry through
`providers.AGENTS`: a Python callable (`_callable`), an HTTP endpoint (`_http`) and a model
behind a prompt template (`_model`). Each is imported only when a SPEC names its kind.
"""

# Nothing public here: the registry reaches each kind by name (`jury.providers.AGENTS`).
__all__: list[str] = []
