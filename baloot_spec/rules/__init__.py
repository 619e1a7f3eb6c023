"""Loading, checking, resolving and compiling the rules in rules/.

`load_variant(preset, sets, overlays)` is the one entry point: it returns compiled rules,
cached by the variant hash, so a process compiles each variant once.
"""

from __future__ import annotations

from .compile import CompiledRules, compile_variant
from .loader import Variant, resolve_variant

_CACHE: dict[str, CompiledRules] = {}


def load_variant(preset: str = "default", sets: dict | None = None, overlays: list | None = None,
                 preset_dirs: tuple = ()) -> CompiledRules:
    """Resolve and compile a variant (RulesError, located, on any problem in the rules)."""
    variant = resolve_variant(preset, sets, overlays, preset_dirs)
    key = variant.hash + "|" + "|".join(variant.ruleset.files)
    compiled = _CACHE.get(key)
    if compiled is None:
        compiled = compile_variant(variant)
        _CACHE[key] = compiled
    return compiled


__all__ = ["CompiledRules", "Variant", "load_variant", "resolve_variant", "compile_variant"]
