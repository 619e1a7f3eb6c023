"""Loading, checking, resolving and compiling the rules in rules/.

`load_variant(preset, sets, overlays)` is the one entry point: it returns compiled rules,
cached by the variant hash, so a process compiles each variant once; a variant compiled by an
earlier process is read back from the disk cache (compiled.py), without importing the
compiler or Lark at all. A tool that visits hundreds of variants of the same rules files
(the fingerprint, tools/case_dependencies.py) uses open_variants.OpenVariants instead: the rules
compiled once with the knobs read at run time, each variant bound in milliseconds.
"""

from __future__ import annotations

from pathlib import Path

from . import cache as disk_cache
from ..resources import rules_dir
from .compiled import CompiledRules, from_plan
from .loader import Variant, resolve_variant

_CACHE: dict[str, CompiledRules] = {}
_REQUESTS: dict[tuple, CompiledRules] = {}


def load_variant(preset: str = "default", sets: dict | None = None, overlays: list | None = None,
                 preset_dirs: tuple = ()) -> CompiledRules:
    """Resolve and compile a variant (RulesError, located, on any problem in the rules)."""
    request = (str(rules_dir()), preset, tuple(sorted((k, str(v)) for k, v in (sets or {}).items())),
               tuple(overlays or ()), tuple(map(str, preset_dirs)))
    cached = _REQUESTS.get(request)
    if cached is not None:
        return cached
    cacheable = not any(Path(o).suffix in (".yaml", ".yml") for o in overlays or ()) and not preset_dirs
    disk_key = repr(request[1:])
    variant = disk_cache.load("variant", disk_key) if cacheable else None
    if variant is None:
        from .collector import collector_paused   # (imported where code is made: rules/collector.py)
        with collector_paused():   # (what reading and compiling allocate lives until the end: rules/collector.py)
            variant = resolve_variant(preset, sets, overlays, preset_dirs)
        if cacheable:
            disk_cache.store("variant", disk_key, variant)
    key = "|".join([str(rules_dir()), variant.hash] + variant.ruleset.files)
    compiled = _CACHE.get(key)
    if compiled is None and cacheable:
        compiled = from_plan(variant, disk_key, lambda: compile_variant(variant))
    if compiled is None:
        compiled = compile_variant(variant, disk_key if cacheable else None)
    _CACHE[key] = compiled
    if cacheable:
        _REQUESTS[request] = compiled  # files named by path may change between calls: not cached
    return compiled


def forget_compiled() -> None:
    """Drop the compiled variants this process holds (a tool that visits thousands of variants
    keeps its memory bounded; the next load_variant reads them back from the disk cache)."""
    _CACHE.clear()
    _REQUESTS.clear()


def compile_variant(variant: Variant, plan_key: str | None = None) -> CompiledRules:
    """Check and compile every expression of a resolved variant (rules/compile.py: imported
    here, when a variant is compiled, so that loading a cached one never imports it)."""
    from ..errors import Location, RulesError
    from .collector import collector_paused
    from .compile import compile_variant as compile_checked
    try:
        with collector_paused():
            return compile_checked(variant, plan_key)
    except (RecursionError, MemoryError, SyntaxError) as exc:   # (a backstop: the loader's limits come first)
        raise RulesError(f"the rules cannot be compiled: they nest too deeply ({type(exc).__name__})",
                         Location(variant.ruleset.files[-1] if variant.ruleset.files else "rules/")) from None


__all__ = ["CompiledRules", "Variant", "load_variant", "resolve_variant", "compile_variant", "forget_compiled"]
