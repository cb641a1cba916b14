"""The built-in agents (the system under test), found by `jury`'s agent registry through
`providers.AGENTS`: a Python callable (`_callable`), an HTTP endpoint (`_http`) and a model
behind a prompt template (`_model`). Each is imported only when a SPEC names its kind.
"""
