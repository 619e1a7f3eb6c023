"""The source of a phase's module specialised for a contract, as the compiler makes it (for tests
that read what a pass wrote into the default rules' generated code)."""

from __future__ import annotations


def specialised_source(phase: str, values: tuple, preset: str = "default") -> str:
    """The text `ModuleBuilder.source` gives for `phase` specialised under `values` (its fixed
    state's values, e.g. ("sun", None)), compiled from `preset` with no disk cache involved."""
    from baloot_spec.rules import module
    from baloot_spec.rules.compile import _VariantCompiler
    from baloot_spec.rules.loader import resolve_variant
    compiler = _VariantCompiler(resolve_variant(preset))
    for stage in (compiler.functions, compiler.phases, compiler.rules, compiler.effects, compiler.scoring,
                  compiler.fuse):
        stage()
    captured, original = [], module.ModuleBuilder.source
    module.ModuleBuilder.source = lambda self: captured.append(original(self)) or captured[-1]
    try:
        compiler.specialized_code(phase, values)
    finally:
        module.ModuleBuilder.source = original
    return captured[-1]
