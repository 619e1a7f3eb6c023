"""The `baloot` command line, one module per command family:

- options.py: what the commands share (exit codes, the parser class, the usage error,
  --preset/--set/--overlay and how --set is read); command modules import only from it
- rules.py: rules check|diff|names|doc, variants
- conformance.py: conformance run|games|derive
- logs.py: simulate, audit (and audit merge: its own options), replay
- perft.py: perft (its own options)
- main.py: the top-level parser, the table of families (FAMILIES), main() and console()

`baloot_spec.cli.main` and `baloot_spec.cli:console` (the `baloot` script) are the entry points.
"""

from .main import build_parser, console, main

__all__ = ["build_parser", "console", "main"]
