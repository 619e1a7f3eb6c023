"""Every expression the shipped rules compile, with the scope each is checked in: the default
rules under every preset, and each overlay on the default preset (for tests of the expression
pipeline: tests/test_expr_tree.py, tests/test_expr_resolve.py)."""

from __future__ import annotations

from functools import lru_cache

from baloot_spec.resources import rules_dir


@lru_cache(maxsize=1)
def shipped_expressions() -> tuple:
    """(text, scope, rule id, where) of every expression checked while compiling every preset and
    every overlay, each (text, rule id, scope kind) once."""
    from baloot_spec.expr import compiler
    from baloot_spec.rules import compile as rules_compile
    from baloot_spec.rules.loader import resolve_variant

    seen: dict = {}
    original = rules_compile.check_expression

    def recording(text, scope, where=None, rule_id=None, *args, **kwargs):
        seen.setdefault((str(text), rule_id, scope.state, scope.action, scope.locals), (str(text), scope, rule_id, where))
        return original(text, scope, where, rule_id, *args, **kwargs)

    presets = sorted(p.stem for p in (rules_dir() / "presets").glob("*.yaml"))
    overlays = sorted(p.stem for p in (rules_dir() / "overlays").glob("*.yaml"))
    rules_compile.check_expression = compiler.check = recording
    try:
        for variant in [resolve_variant(p) for p in presets] + [resolve_variant("default", overlays=[o]) for o in overlays]:
            rules_compile.compile_variant(variant)
    finally:
        rules_compile.check_expression = compiler.check = original
    return tuple(seen.values())
