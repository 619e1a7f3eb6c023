"""What an engine says it produces (hello's `produces`), per case kind: the expected keys it
answers. A key it does not produce is `unsupported` for every case, never a failure.

`produces` is optional; a kind it does not name, or a hello without it, produces every key
(protocol 1 as it was). The keys of each kind are the keys of that kind's `expect` (README).
"""

from __future__ import annotations

KINDS_WITH_KEYS = ("legal", "reject", "hand", "score", "projects", "match", "audit")


def produced_keys(hello: dict | None, kind: str) -> frozenset | None:
    """The keys of `kind` the engine produces, or None for all of them."""
    produces = (hello or {}).get("produces") or {}
    listed = produces.get(kind)
    return None if listed is None else frozenset(listed)


def unproduced(hello: dict | None, kind: str, expected_keys) -> str | None:
    """Why a case of `kind` expecting these keys cannot be compared at all (None: some key can)."""
    produced = produced_keys(hello, kind)
    keys = list(expected_keys)
    if produced is None or any(k in produced for k in keys):
        return None
    return (f"produces none of the keys this {kind} case expects ({', '.join(keys)}; "
            f"hello's produces.{kind}: {', '.join(sorted(produced)) or 'nothing'})")
