"""baloot-spec: the rules of Baloot as data, an engine that executes them, and a conformance suite.

The rules live in `rules/` (YAML plus Lark grammar files); this package loads, checks and
executes them. Start at `baloot_spec.rules.load_variant` and `baloot_spec.engine.Hand`.
"""

__version__ = "0.1.0"
