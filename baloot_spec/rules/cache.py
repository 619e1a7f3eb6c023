"""A best-effort on-disk cache of what loading the rules makes: resolved variants, expression
parse trees, compiled variants' plans (compiled.py), generated code (marshalled) and the log
schema's validator.

A cold `load_variant` spends most of its time reading and validating the YAML, parsing the
expressions with Lark and compiling them; all of it depends only on the bytes of the rules
files. Entries are keyed by a digest of every file under rules/, the package version and the
source of the code that builds the cached objects (rules/**/*.py, expr/**/*.py and the engine's
declarations the compiler reads, engine/state.py), so neither an
edited rules file nor edited compiling code is ever served stale. The cache only ever holds
what this package wrote itself; a missing, unreadable or unwritable cache just means doing the
work. BALOOT_NO_CACHE=1 turns it off; BALOOT_CACHE_DIR
moves it (default: $XDG_CACHE_HOME/baloot-spec or ~/.cache/baloot-spec).
"""

from __future__ import annotations

import hashlib
import os
import pickle
from functools import lru_cache
from pathlib import Path

from .. import __version__
from ..resources import rules_dir


def cache_dir() -> Path | None:
    if os.environ.get("BALOOT_NO_CACHE"):
        return None
    if os.environ.get("BALOOT_CACHE_DIR"):
        return Path(os.environ["BALOOT_CACHE_DIR"])
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "baloot-spec"


@lru_cache(maxsize=8)
def _digest_of(directory: str, stamp: tuple) -> str:
    digest = hashlib.sha256(__version__.encode())
    for path in _producers():
        digest.update(path.read_bytes() + b"\0")
    root = Path(directory)
    for path in sorted(p for p in root.rglob("*") if p.is_file() and p.suffix in (".yaml", ".yml", ".lark", ".json")):
        digest.update(str(path.relative_to(root)).encode() + b"\0" + path.read_bytes() + b"\0")
    return digest.hexdigest()[:24]


def _producers() -> list[Path]:
    """The modules whose code shapes a cached variant or parse tree."""
    package = Path(__file__).resolve().parent.parent
    # (passes/ too; and engine/state.py, whose declarations the compiler reads: ENGINE_LISTS,
    # ENGINE_WRITES, IN_PLACE, CURRENT_TRICK)
    return sorted([*(package / "rules").rglob("*.py"), *(package / "expr").rglob("*.py"), package / "engine" / "state.py"])


def rules_digest() -> str:
    """A digest of every rules file's name and bytes (recomputed when a file's size or mtime changes)."""
    root = rules_dir()
    stamp = tuple(sorted((str(p), p.stat().st_mtime_ns, p.stat().st_size) for p in root.rglob("*") if p.is_file()))
    return _digest_of(str(root), stamp)


def _path(kind: str, key: str) -> Path | None:
    directory = cache_dir()
    if directory is None:
        return None
    name = hashlib.sha256(key.encode()).hexdigest()[:24]
    return directory / f"{rules_digest()}-{kind}-{name}.pickle"


def load(kind: str, key: str):
    """The cached object, or None."""
    path = _path(kind, key)
    if path is None or not path.is_file():
        return None
    try:
        with path.open("rb") as handle:
            return pickle.load(handle)
    except Exception:  # a damaged entry is only a miss
        return None


def store(kind: str, key: str, value) -> None:
    path = _path(kind, key)
    if path is None:
        return
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        temporary = path.with_suffix(f".{os.getpid()}.tmp")
        with temporary.open("wb") as handle:
            pickle.dump(value, handle, protocol=pickle.HIGHEST_PROTOCOL)
        os.replace(temporary, path)
    except Exception:  # read-only home, full disk...: the cache is an optimisation only
        return
