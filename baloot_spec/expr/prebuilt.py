"""The expression grammar's LALR parser built ahead of time, shipped with the package.

Building Lark's parser from `rules/grammar/expr.lark` (the grammar analysed, the LALR tables
made) costs ~40 ms of a load with no disk cache; reading back the tables Lark itself serialises
(`Lark.save` / `Lark.load`) costs ~3 ms. The file (`expr_parser.bin`, written by
`tools/prebuild_parser.py`) starts with a line: the grammar's text and the parser's options,
hashed, then the Lark version that wrote it. A grammar that differs (an edited rules file,
BALOOT_RULES_DIR) or another Lark (whose serialisation may differ) builds the parser from the
text, as before. tests/test_prebuilt_parser.py fails when the shipped file was not built from
this grammar; a newer Lark installed (a fresh install takes the registry's latest) only skips the
tests that read the file, and costs those ~40 ms until the file is written again.
"""

from __future__ import annotations

import hashlib
import io
from pathlib import Path

import lark

OPTIONS = {"parser": "lalr", "propagate_positions": True, "maybe_placeholders": True}
PATH = Path(__file__).with_name("expr_parser.bin")


def grammar_key(grammar: str, version: str | None = None) -> bytes:
    """The file's first line for tables built from this grammar and the options by that Lark
    (by default the one installed)."""
    version = lark.__version__ if version is None else version
    text = repr((grammar, sorted(OPTIONS.items())))
    return hashlib.sha256(text.encode("utf-8")).hexdigest().encode("ascii") + b" " + version.encode("ascii")


def built_with(grammar: str) -> str | None:
    """The Lark version that wrote the shipped tables, if they were built from this grammar and
    the options (else None: the file is missing, damaged or out of date with the grammar)."""
    try:
        with PATH.open("rb") as handle:
            first = handle.readline(200).rstrip(b"\n")
    except OSError:
        return None
    digest, _, version = first.partition(b" ")
    try:
        version = version.decode("ascii")
    except UnicodeDecodeError:
        return None
    return version if version and first == grammar_key(grammar, version) else None


def load(grammar: str) -> lark.Lark | None:
    """The shipped parser if it was built from exactly this grammar by this Lark (else None)."""
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
