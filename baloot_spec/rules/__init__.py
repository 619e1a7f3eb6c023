"""Loading, checking, resolving and compiling the rules in rules/.

`load_variant(preset, sets, overlays)` is the one entry point: it returns compiled rules,
cached by the variant hash, so a process compiles each variant once.
"""

from __future__ import annotations

from pathlib import Path

from ..expr.parser import TREES
from . import cache as disk_cache
from .compile import CompiledRules, compile_variant
from ..resources import rules_dir
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
        variant = resolve_variant(preset, sets, overlays, preset_dirs)
        if cacheable:
            disk_cache.store("variant", disk_key, variant)
    key = "|".join([str(rules_dir()), variant.hash] + variant.ruleset.files)
    compiled = _CACHE.get(key)
    if compiled is None:
        known = len(TREES)
        if not known:
            TREES.update(disk_cache.load("trees", "all") or {})
            known = len(TREES)
        compiled = compile_variant(variant)
        _CACHE[key] = compiled
        if len(TREES) > known:
            disk_cache.store("trees", "all", dict(TREES))
    if cacheable:
        _REQUESTS[request] = compiled  # files named by path may change between calls: not cached
    return compiled


__all__ = ["CompiledRules", "Variant", "load_variant", "resolve_variant", "compile_variant"]
