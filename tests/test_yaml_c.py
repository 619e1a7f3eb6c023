"""Step 109: libyaml's C parser as a fast path for the rules files' YAML (rules/yamlc.py).

What must hold: every value, position and error is what the pure-Python parser gives. The C
path reads every rules file (that is the speed), and sends everything the two parsers may read
differently, and every refusal, to the Python parser."""

import random
from pathlib import Path

import pytest
import yaml

from baloot_spec.errors import RulesError
from baloot_spec.limits import MAX_INT_DIGITS, MAX_NESTING
from baloot_spec.rules import yamlc, yamlpos

pytestmark = pytest.mark.skipif(not yamlc.available(), reason="this PyYAML has no libyaml")

ROOT = Path(__file__).resolve().parent.parent
RULES = [(p.relative_to(ROOT).as_posix(), p.read_text(encoding="utf-8")) for p in sorted((ROOT / "rules").rglob("*.yaml"))]


def _snapshot(value):
    """A value with every position, key position, quoting and type written out."""
    if isinstance(value, dict):
        return ("map", type(value).__name__, value.file, value.line, value.column,
                [(type(k).__name__, k, value.key_lines[k], _snapshot(v)) for k, v in value.items()])
    if isinstance(value, list):
        return ("seq", type(value).__name__, value.file, value.line, value.column, [_snapshot(v) for v in value])
    if isinstance(value, yamlpos.LocStr):
        return ("str", str(value), value.file, value.line, value.column, value.quoted, value.block)
    return (type(value).__name__, repr(value))


def _read(text: str, c_path: bool, monkeypatch=None):
    """What load_yaml_text gives, with the C path allowed or not: the value, or the error in full."""
    saved = yamlpos.USE_LIBYAML
    yamlpos.USE_LIBYAML = c_path
    try:
        return _snapshot(yamlpos.load_yaml_text(text, "f.yaml"))
    except RulesError as exc:
        return ("error", str(exc), repr(sorted(vars(exc).items(), key=repr)))
    finally:
        yamlpos.USE_LIBYAML = saved


def _c_alone(text: str):
    """The C path alone: the value, or 'unsure', or 'refused' (libyaml's error or ours)."""
    if not yamlc.readable(text):
        return "unsure"
    loader = yamlc.loader_class()(text)
    try:
        node = loader.get_single_node()
        return None if node is None else _snapshot(yamlpos._build(node, loader, "f.yaml"))
    except yamlc.Unsure:
        return "unsure"
    except Exception:
        return "refused"
    finally:
        loader.dispose()


@pytest.mark.parametrize("name,text", RULES, ids=[n for n, _ in RULES])
def test_every_rules_file_goes_the_c_path_and_reads_as_the_python_parser_reads_it(name, text):
    python = _read(text, c_path=False)
    assert python[0] == "map"
    assert _c_alone(text) == python     # (not sent back to the Python parser: the speed is here)
    assert _read(text, c_path=True) == python


def test_load_yaml_text_takes_the_c_path_for_the_rules_files(monkeypatch):
    def refused(*args, **kwargs):
        raise AssertionError("the pure-Python loader was used")
    monkeypatch.setattr(yamlpos, "_LOADER", [refused])
    for name, text in RULES:
        yamlpos.load_yaml_text(text, name)


# What libyaml reads and PyYAML does not, or reads with other positions (found by the fuzz below
# and by reading both scanners); each must go to the Python parser.
DIFFERENT = [
    "a: Four\t).\n",                       # a tab inside a plain scalar
    "a: b\t\n",                            # a tab after one
    "a:\tb\n",                             # a tab as the separator
    "{type: list, d?efault: []}\n",        # '?' in a flow plain scalar (libyaml >= 0.2.5)
    "set: {r? edeal: x}\n",
    "a: >#x\n  b\n",                       # a comment right after a block scalar's indicators
    "a: |-#\n  b\n",
    "- 'a\ufeffb'\n- {c: d}\n",            # a BOM in mid-text moves libyaml's columns
    "\ufeffa: 1\n",
    "%YAML 1.2\n---\na: 1\n",              # libyaml takes 1.2 (>= 0.2.3), PyYAML warns of none
    "%YAML 1.3\n---\na: 1\n",
    "[!!str, a]\n",                        # a tag followed by ',' (libyaml >= 0.2.5)
    "[ ? ] ]\n",                           # libyaml < 0.2.6 takes it
    "[a: b, ? c]\n",
    "a: 1\r\nb: [x,\r y]\r\n",             # CR, NEL, LS, PS breaks
    "a: 'x\u2028y'\nb: \"p\x85q\"\n",
    "a: \x00\n", "a: \x07b\n", "a: \x1b\n", "a: \ufffe\n",   # what PyYAML's reader refuses
    "a: &x 1\nb: *x\n",                    # anchors and aliases (aliases are refused)
    "a: !!int 3\n", "a: !x y\n", "a: !<tag:yaml.org,2002:str> 3\n",
    "a: 1\na: 2\n",                        # a duplicate key
    "a: " + "9" * (MAX_INT_DIGITS + 1) + "\n",
    "[" * (MAX_NESTING + 1) + "]" * (MAX_NESTING + 1) + "\n",
    "a: \"\\ud800\"\n", "a: \"\\/\\'\"\n", "a: \"\\U00110000\"\n",
    "a: b: c\n", "- a\nb: c\n", "a:\n  - b\n c: d\n", "{a: 1\n", "a: 'x\n", "--- a\n--- b\n",
]


@pytest.mark.parametrize("text", DIFFERENT)
def test_what_the_parsers_may_read_differently_is_the_python_parser_s_reading(text):
    assert _read(text, c_path=True) == _read(text, c_path=False)
    assert _c_alone(text) in ("unsure", "refused")


def test_libyaml_unguarded_reads_some_of_them_differently():
    """(Why the guards are there: PyYAML's own composer over libyaml's events, with no check,
    accepts what the Python parser refuses.)"""
    class Unguarded(yaml.composer.Composer, yaml.cyaml.CParser, yaml.constructor.SafeConstructor,
                    yaml.resolver.Resolver):
        def __init__(self, text):
            yaml.cyaml.CParser.__init__(self, text)
            yaml.composer.Composer.__init__(self)
            yaml.constructor.SafeConstructor.__init__(self)
            yaml.resolver.Resolver.__init__(self)

    accepted = []
    for text in ["a: Four\t).\n", "{type: list, d?efault: []}\n", "a: >#x\n  b\n"]:
        loader = Unguarded(text)
        try:
            loader.get_single_node()
            accepted.append(text)
        except yaml.YAMLError:
            pass
        finally:
            loader.dispose()
        assert _read(text, c_path=False)[0] == "error"
    assert accepted


def _mutated(rng: random.Random, texts: list, alphabet: list) -> str:
    text = rng.choice(texts)
    start = rng.randrange(max(1, len(text) - 1500))
    text = text[start:start + 1500]
    if start:
        text = text[text.find("\n") + 1:]
    for _ in range(rng.randint(1, 4)):
        i = rng.randrange(len(text) + 1)
        op = rng.random()
        if op < 0.4:
            text = text[:i] + rng.choice(alphabet) + text[i:]
        elif op < 0.7:
            text = text[:i] + text[i + rng.randint(1, 5):]
        else:
            j = rng.randrange(len(text) + 1)
            text = text[:i] + text[j:j + rng.randint(1, 40)] + text[i:]
    return text


_ALPHABET = list(" \t\n:-#&*!|>'\"{}[],?%@`\\.0123456789abcxyz\x85\u2028\u00a0\ufeff\x00\x07\x1b\r\U0001F600é—") + [
    "  ", "\n  ", ": ", "- ", "---\n", "...\n", "\t- ", "&a ", "*a", "!!str ", "!!int ", '"\\x41"', "'it''s'",
    "|\n  x\n", ">-\n", "0x1F", "1_000", ".inf", "2001-12-14", "~", "yes", "null", "? ", "[? ]", "{a: b}", "[a: b]",
    "%YAML 1.1\n", "\\/", "\\t", "\\\n", "<<: ", ":x", "x:", "{? a}", "[a, b]: c", "#", " #", "|2\n", ">+\n",
    '"\\u263A"', "!x ", "!<a> ", ">#", "|#", "|-#", ">2#", '"a"#', "'a'#", " #x", "]#", "}#", "-#", "?#", ":#",
    ",#", "\n#", "\n---", "\n...", "- - ", "- ? a", ": : ", "{a: [b, {c: d}]}", "'a\n\n  b'", "\n\n", "@", "`"]

_FRAGMENTS = [
    "a", "b: c", "key", ":", ": ", "- ", "-", "? ", "?", "[", "]", "{", "}", ",", ", ", '"x y"', "'q'",
    '"\\n\\u00e9\\/"', '"a\\\n b"', "'a\n\n b'", "|", ">", "|-", ">+", "|2", "#c", " #c", "\n", "\n  ", "\n    ",
    "\n- ", "\n  - ", "---", "...", "--- ", "~", "null", "1", "-2", "0o7", "0x1f", "1_0", "1e3", ".5", ".nan", "yes",
    "No", "2001-01-01", "2001-01-01 10:00:00", "<<", "x:y", "a?b", "a#b", "é", "—", "\U0001F600", "  ", "\\", '"',
    "'", "`", "@", "%", "!", "&", "*", "a b", " : ", "::", "-1:", "? a\n: b", "[a: b]", "{a, b}", "{a: }", "[ ? ]",
    "[,]", "{,}", "- - a", "a: b: c", "\n\n", "x\n y", " ", "=", ".", "..", "...x", "---x", "-a", ">x", "|x", "a:\n"]


@pytest.mark.parametrize("seed", [1, 2])
def test_a_differential_fuzz_of_mutated_rules_files(seed):
    rng = random.Random(seed)
    texts = [text for _, text in RULES]
    through_c = 0
    for _ in range(1200):
        text = _mutated(rng, texts, _ALPHABET)
        fast = _read(text, c_path=True)
        assert fast == _read(text, c_path=False), text
        through_c += fast[0] != "error" and _c_alone(text) == fast
    assert through_c > 200   # (the fuzz reaches the C path: most mutations stay valid YAML)


@pytest.mark.parametrize("seed", [1, 2])
def test_a_differential_fuzz_of_small_documents(seed):
    rng = random.Random(seed)
    through_c = 0
    for _ in range(3000):
        text = "".join(rng.choice(_FRAGMENTS) for _ in range(rng.randint(1, 14)))
        fast = _read(text, c_path=True)
        assert fast == _read(text, c_path=False), text
        through_c += fast[0] != "error" and _c_alone(text) == fast
    assert through_c > 500


def test_without_libyaml_the_python_parser_reads_everything(monkeypatch):
    monkeypatch.setattr(yaml, "__with_libyaml__", False)
    assert not yamlc.available()

    def refused():
        raise AssertionError("the C path was tried")
    monkeypatch.setattr(yamlc, "loader_class", refused)
    for name, text in RULES:
        yamlpos.load_yaml_text(text, name)
    with pytest.raises(RulesError, match="duplicate key"):
        yamlpos.load_yaml_text("a: 1\na: 2\n")


def test_the_gate_keeps_the_python_reader_s_refusals():
    refused = yaml.reader.Reader.NON_PRINTABLE
    for code in range(0x110000):   # (everything PyYAML's reader refuses is read by it alone)
        if refused.match(chr(code)):
            assert not yamlc.readable(chr(code)), hex(code)
    for ch in "\t\r\x85\u2028\u2029\ufeff\x00\x01\x7f\x9f\ud800\ufffe\uffff":
        assert not yamlc.readable(f"a: b{ch}c\n"), repr(ch)
    assert not yamlc.readable("%YAML 1.1\n---\na: 1\n")
    assert yamlc.readable("a: '%x' # 100 %\nb: \u00e9\u2014\U0001F600\n")
