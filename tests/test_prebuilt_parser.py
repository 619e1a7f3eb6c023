"""The expression parser is read from the LALR tables shipped with the package
(baloot_spec/expr/expr_parser.bin, Lark's own serialisation), not built from the grammar in every
process with no disk cache (~40 ms of the cold load, step 107). The file is keyed by the grammar,
Lark's version and the options: these tests fail when it is out of date with
rules/grammar/expr.lark (run `python tools/prebuild_parser.py`), and check that the parser read
back parses, locates and refuses expressions exactly as one built from the grammar."""

import subprocess
import sys
from pathlib import Path

import lark
import pytest

from baloot_spec.expr import parser as P
from baloot_spec.expr import prebuilt

ROOT = Path(__file__).resolve().parent.parent
GRAMMAR = (ROOT / "rules" / "grammar" / "expr.lark").read_text(encoding="utf-8")

SAMPLES = ["1 + 2 * 3", "max(a, b) - -c", "not (x.y or z) and w"]
BAD = ["1 +", "a b", "(x", "x $ y", "[1, 2", "a.", "f(,)", "a ==\n== b"]


def _shipped_for_this_lark():
    """Skip a test that reads the shipped tables where another Lark wrote them (a fresh install
    takes the registry's latest Lark: the file is then not used, and nothing else changes)."""
    version = prebuilt.built_with(GRAMMAR)
    if version is not None and version != lark.__version__:
        pytest.skip(f"the shipped tables were written by Lark {version}; Lark {lark.__version__} is installed")


def test_the_shipped_parser_is_up_to_date_with_the_grammar():
    assert prebuilt.built_with(GRAMMAR) is not None, "run: python tools/prebuild_parser.py"
    done = subprocess.run([sys.executable, str(ROOT / "tools" / "prebuild_parser.py"), "--check"],
                          capture_output=True, text=True, cwd=ROOT)
    assert done.returncode == 0, done.stderr


def test_tables_written_by_another_lark_are_not_read_and_the_check_says_so(monkeypatch, tmp_path):
    other = tmp_path / "expr_parser.bin"
    key, _, tables = prebuilt.PATH.read_bytes().partition(b"\n")
    other.write_bytes(prebuilt.grammar_key(GRAMMAR, "0.0.1") + b"\n" + tables)
    monkeypatch.setattr(prebuilt, "PATH", other)
    assert prebuilt.built_with(GRAMMAR) == "0.0.1"
    assert prebuilt.load(GRAMMAR) is None   # (built from the grammar instead)
    assert prebuilt.built_with(GRAMMAR + "\n// edited\n") is None
    other.write_bytes(b"garbage \xff\n" + tables)
    assert prebuilt.built_with(GRAMMAR) is None and prebuilt.load(GRAMMAR) is None


def test_expression_parser_reads_the_shipped_tables(monkeypatch):
    _shipped_for_this_lark()
    def refused(grammar):
        raise AssertionError("the parser was built from the grammar")
    monkeypatch.setattr(prebuilt, "build", refused)
    monkeypatch.setattr(lark.Lark, "__init__", refused)   # (Lark.load makes its object without it)
    P.expression_parser.cache_clear()
    try:
        assert P.expression_parser().parse("a + 1").data
    finally:
        P.expression_parser.cache_clear()


def test_another_grammar_or_a_damaged_file_is_built_from_the_text(monkeypatch, tmp_path):
    assert prebuilt.load(GRAMMAR + "\n// edited\n") is None
    damaged = tmp_path / "expr_parser.bin"
    damaged.write_bytes(prebuilt.grammar_key(GRAMMAR) + b"\nnot a pickle")
    monkeypatch.setattr(prebuilt, "PATH", damaged)
    assert prebuilt.load(GRAMMAR) is None
    monkeypatch.setattr(prebuilt, "PATH", tmp_path / "missing.bin")
    assert prebuilt.load(GRAMMAR) is None


def _shape(tree):
    """A tree with every node's and token's position (what the compiler and the errors read)."""
    if isinstance(tree, lark.Tree):
        meta = tree.meta
        where = None if meta.empty else (meta.line, meta.column, meta.end_line, meta.end_column,
                                         meta.start_pos, meta.end_pos)
        return (tree.data, where, [_shape(child) for child in tree.children])
    if isinstance(tree, lark.Token):
        return ("token", tree.type, str(tree), tree.line, tree.column, tree.end_line, tree.end_column)
    return tree


def _outcome(parser, text):
    """The tree with its positions, or the refusal with its position and what was expected."""
    try:
        return _shape(parser.parse(text))
    except lark.UnexpectedInput as exc:
        token = getattr(exc, "token", None)
        return (type(exc).__name__, exc.line, exc.column, str(token) if token is not None else None,
                sorted(getattr(exc, "expected", ()) or ()))


def _strings(value):
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for item in value.values():
            yield from _strings(item)
    elif isinstance(value, list):
        for item in value:
            yield from _strings(item)


def test_the_shipped_parser_gives_what_the_built_one_gives_on_every_string_of_the_rules():
    _shipped_for_this_lark()
    import yaml
    built, shipped = prebuilt.build(GRAMMAR), prebuilt.load(GRAMMAR)
    texts = set(SAMPLES + BAD)
    for path in sorted((ROOT / "rules").rglob("*.yaml")):
        texts.update(_strings(yaml.safe_load(path.read_text(encoding="utf-8"))))
    parsed = 0
    for text in sorted(texts):
        outcome = _outcome(built, text)
        parsed += outcome[0] not in ("UnexpectedCharacters", "UnexpectedToken", "UnexpectedEOF")
        assert _outcome(shipped, text) == outcome, text
    assert parsed >= 200   # (the rules' expressions: the rest are prose, names, ids)


@pytest.mark.parametrize("text", BAD)
def test_the_shipped_parser_refuses_what_the_built_one_refuses(text):
    _shipped_for_this_lark()
    built, shipped = prebuilt.build(GRAMMAR), prebuilt.load(GRAMMAR)
    refused = _outcome(built, text)
    assert refused[0].startswith("Unexpected")
    assert _outcome(shipped, text) == refused
