"""The disk cache's key covers every module whose code shapes a cached plan (baloot_spec/rules/cache.py):
a module the compiler imports declarations from, changed alone, must not get a stale plan."""

from pathlib import Path

from baloot_spec.rules import cache

PACKAGE = Path(cache.__file__).resolve().parent.parent


def test_every_engine_module_the_compiler_reads_is_part_of_the_cache_key():
    producers = set(cache._producers())
    readers = [*(PACKAGE / "rules").rglob("*.py"), *(PACKAGE / "expr").rglob("*.py")]
    read = {PACKAGE / "engine" / f"{line.split()[1].rsplit('.', 1)[-1]}.py"
            for path in readers for line in path.read_text(encoding="utf-8").splitlines()
            if line.startswith("from ..engine.") or line.startswith("from ...engine.")}
    assert read, "the compiler reads declarations of engine/ (ENGINE_LISTS, CURRENT_TRICK, ...)"
    assert read <= producers, f"not in the cache key: {sorted(str(p) for p in read - producers)}"
