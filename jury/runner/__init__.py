"""The main job as a library: `jury.run` (cases -> agent -> checks -> jury -> records ->
reports -> gate) and `jury.Run` (what a run gives, and a recorded run read again). The
`jury run` command is a shell over them: it parses its arguments into these options, calls
`jury.run`, prints what it returns and exits with its code.
"""

__all__: list[str] = []
