"""rules/LANGUAGE.md is the generated text, and every example in it evaluates as it says."""

import json
import re
from pathlib import Path

import pytest

from baloot_spec.cards import Table
from baloot_spec.errors import RulesError
from baloot_spec.expr.builtins import Rec, builtin_arity, make_builtins
from baloot_spec.expr.compiler import Scope, to_python
from baloot_spec.rules.compiled import SAFE_PY_BUILTINS
from baloot_spec.rules.language import language_markdown

ROOT = Path(__file__).resolve().parent.parent
TEXT = (ROOT / "rules" / "LANGUAGE.md").read_text(encoding="utf-8")
ROWS = re.findall(r"^\| `([^`]+)` \| `([^`]+)` \|$", TEXT.split("## Examples", 1)[1].split("## Grammar", 1)[0], re.M)


def evaluate(text, **state):
    """Compile one expression over the names given, with every builtin, and run it."""
    scope = Scope(state=frozenset(state), builtins=builtin_arity(), attributes=frozenset({"seat", "name"}))
    namespace = {"__builtins__": SAFE_PY_BUILTINS, "_R": Rec,
                 **make_builtins(Table(["N", "W", "S", "E"], {"NS": ["N", "S"], "EW": ["E", "W"]}))}
    exec(compile(f"def f(S):\n    return {to_python(text, scope)}\n", "<example>", "exec"), namespace)
    return namespace["f"](Rec(state))


def test_the_file_is_the_generated_text():
    assert TEXT == language_markdown(), "rules/LANGUAGE.md is out of date: run `baloot rules doc --language --out rules/LANGUAGE.md`"


def test_there_are_examples():
    assert len(ROWS) >= 30


@pytest.mark.parametrize("text, value", ROWS)
def test_every_example_evaluates_as_stated(text, value):
    assert evaluate(text, x=3, xs=[1, 2, 3], t="NS") == json.loads(value)


def test_comparisons_do_not_chain_and_unknown_names_fail_to_load():
    for text, words in (("1 < x < 5", "syntax error"), ("y + 1", "unknown name 'y'"), ("lenn(xs)", "did you mean 'len'?")):
        with pytest.raises(RulesError, match=re.escape(words)):
            evaluate(text, x=3, xs=[1, 2, 3])


def test_the_grammar_is_included_verbatim():
    grammar = (ROOT / "rules" / "grammar" / "expr.lark").read_text(encoding="utf-8").rstrip("\n")
    assert "```lark\n" + grammar + "\n```" in TEXT
