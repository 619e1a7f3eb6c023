"""The expression grammar's LALR parser built ahead of time, shipped with the package.

Building Lark's parser from `rules/grammar/expr.lark` (the grammar analysed, the LALR tables
made) costs ~40 ms of a load with no disk cache; reading back the tables Lark itself serialises
(`Lark.save` / `Lark.load`) costs ~3 ms. The file (`expr_parser.bin`, written by
`tools/prebuild_parser.py`) starts with a key: the grammar's text, Lark's version and the
parser's options, hashed. A grammar that differs (an edited rules file, BALOOT_RULES_DIR) or
another Lark builds the parser from the text, as before; tests/test_prebuilt_parser.py fails
when the shipped file is out of date.
"""

from __future__ import annotations

import hashlib
import io
from pathlib import Path

import lark

OPTIONS = {"parser": "lalr", "propagate_positions": True, "maybe_placeholders": True}
PATH = Path(__file__).with_name("expr_parser.bin")


def grammar_key(grammar: str) -> bytes:
    """What the shipped tables were built from: the grammar, Lark's version, the options."""
    text = repr((grammar, lark.__version__, sorted(OPTIONS.items())))
    return hashlib.sha256(text.encode("utf-8")).hexdigest().encode("ascii")


def load(grammar: str) -> lark.Lark | None:
    """The shipped parser if it was built from exactly this grammar (else None)."""
    try:
        data = PATH.read_bytes()
    except OSError:
        return None
    key, _, tables = data.partition(b"\n")
    if key != grammar_key(grammar):
        return None
    try:
        return lark.Lark.load(io.BytesIO(tables))
    except Exception:   # a damaged file: the grammar is there to build from
        return None


def build(grammar: str) -> lark.Lark:
    return lark.Lark(grammar, **OPTIONS)


def serialised(grammar: str) -> bytes:
    """The file's bytes for this grammar: its key, then Lark's own serialisation of the parser."""
    out = io.BytesIO()
    build(grammar).save(out)
    return grammar_key(grammar) + b"\n" + out.getvalue()
