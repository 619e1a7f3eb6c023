"""Names resolved and types inferred (baloot_spec/expr/resolve.py, types.py): every name becomes
what it is, every loop variable a binder, every node a type; a value that must fail or mean
nothing where it is used is a located load error, never a run-time surprise."""

import pytest

from baloot_spec.cli import main
from baloot_spec.expr import tree as t
from baloot_spec.expr import types as ty
from baloot_spec.expr.compiler import CompileError, Scope, to_python
from baloot_spec.expr.parse import parse
from baloot_spec.expr.resolve import resolve
from baloot_spec.errors import RulesError

from shipped_expressions import shipped_expressions

SCOPE = Scope(state=frozenset({"hand", "trick", "tricks", "mode", "trump", "led"}), action=frozenset({"card", "call"}),
              functions={"led": 0, "wins": 1}, builtins={"len": (1, 1), "text": (1, 1), "seat_after": (2, 2)},
              params={"undertrump": "forced", "sira": True}, consts=frozenset({"teams", "order"}),
              const_values={"teams": ["NS", "EW"], "order": ["A", "T", "K"]},
              attributes=frozenset({"suit", "rank", "seat", "card", "leader", "plays", "winner", "cards", "text", "value", "name", "ekka"}),
              record_fields=frozenset({"value", "name"}), engine_fields=frozenset({"hand", "trick", "tricks"}))
SCOPE = Scope(**{**SCOPE.__dict__, "state": SCOPE.state - {"led"}})


def typed(text, boolean=False):
    return resolve(parse(text), SCOPE, boolean=boolean)


@pytest.mark.parametrize("text, kind", [
    ("hand", "list[card]"), ("hand[0]", "card"), ("hand[0].suit", "suit"), ("trick[0].card.rank", "text"),
    ("tricks[0].winner", "seat"), ("tricks[0].cards", "list[card]"), ("card", "card"), ("call", "unknown"),
    ("mode", "unknown"), ("param.sira", "bool"), ("param.undertrump", "text"), ("const.teams", "list[text]"),
    ("count(c.suit == trump for c in hand)", "int"), ("any(c == card for c in hand)", "bool"),
    ("[c.suit for c in hand]", "list[suit]"), ("map(1 for t in const.teams)", "map[int]"), ("len(hand) + 1", "int"),
    ("{value: 3, name: 'x'}.value", "int"), ("hand + [card]", "list[card]"), ("1 if mode else 2", "int"),
    ("text(mode)", "text"), ("seat_after(trick[0].seat, 1)", "seat"), ("first(c for c in hand)", "unknown"),
    ("mode + 1", "int"), ("not mode", "bool"), ("-len(hand)", "int"), ("mode or 3", "unknown"),
])
def test_every_node_has_a_type(text, kind):
    assert str(typed(text).type) == kind


def test_names_say_what_they_are():
    tree = typed("wins(card) and led == trump and param.sira and const.order[0] == 'A'")
    refs = [(n.kind, n.name) for n in t.walk(tree) if type(n) is t.Ref]
    assert refs == [("action", "card"), ("derived", "led"), ("state", "trump"), ("knob", "sira"), ("const", "order")]
    assert [n.kind for n in t.walk(tree) if type(n) is t.Call] == ["rule"]
    assert next(n for n in t.walk(tree) if type(n) is t.Ref and n.kind == "knob").value is True


def test_loop_variables_are_binders_even_when_names_repeat():
    tree = typed("any(any(c == x for c in hand) for x in [c for c in hand])")
    aggregates = [n for n in t.walk(tree) if type(n) is t.Aggregate]
    outer, inner, listed = aggregates[0], aggregates[1], aggregates[2]
    assert (outer.kind, inner.kind, listed.kind) == ("any", "any", "list")
    assert len({outer.var, inner.var, listed.var}) == 3 and inner.var.name == listed.var.name == "c"
    uses = [n for n in t.walk(inner.elem) if type(n) is t.Ref and n.kind == "local"]
    assert uses[0].binder is inner.var and uses[1].binder is outer.var
    assert str(outer.var and uses[1].type) == "card"   # (an item of a list of cards)


@pytest.mark.parametrize("text, boolean, message, column", [
    ("hand", True, "must be true or false; this is a list[card]", 1),
    ("count(c == card for c in hand)", True, "must be true or false; this is an int", 1),
    ("1 if hand else 2", False, "the condition after `if` must be true or false; this is a list[card]", 6),
    ("[c for c in hand if c.rank]", False, "must be true or false; this is a text", 21),
    ("any(c.rank for c in hand)", False, "what any(...) tests must be true or false; this is a text", 5),
    ("hand - 1", False, "cannot subtract a list[card] and an int", 1),
    ("len(hand) + 'x'", False, "cannot add an int and a text", 1),
    ("mode * hand", False, "cannot multiply an unknown and a list[card]", 1),
    ("-hand", False, "cannot negate a list[card]", 1),
    ("hand < 3", False, "a list[card] and an int cannot be ordered with <", 1),
    ("card in 3", False, "`in` looks in a list, map or text; this is an int", 9),
    ("card.seat", False, "a card has no attribute 'seat' (it has: suit, rank, text)", 6),
    ("hand.suit", False, "a list[card] has no attribute 'suit'", 6),
    ("{value: 1}.name", False, "this record has no field 'name'", 12),
    ("len(hand)[0]", False, "an int cannot be indexed", 1),
    ("hand['x']", False, "a list is indexed by a number, not by a text", 6),
    ("sum(c for c in hand)", False, "sum(...) adds numbers; this is a card", 5),
    ("any(x for x in len(hand))", False, "any(...) goes over an int, which has no items", 16),
    ("param.sira.value", False, "a bool has no attribute 'value'", 12),
])
def test_type_errors_are_positioned(text, boolean, message, column):
    with pytest.raises(CompileError) as caught:
        typed(text, boolean)
    assert message in caught.value.message
    assert (caught.value.line, caught.value.column) == (1, column)


@pytest.mark.parametrize("text", [
    "mode == 3", "mode < 3", "call in ['a', 'b']", "mode + mode", "trick[0].ekka", "len(mode) > 0",
    "any(x for x in mode)", "hand[mode]", "first(c for c in hand).suit", "{value: 1}.value + 1",
    "'NS' in const.teams", "card.suit == trump and not mode", "true + 1", "count(1 for c in hand if c != card)",
])
def test_what_may_succeed_is_not_refused(text):
    typed(text)


@pytest.mark.parametrize("text, message, column", [
    ("led_sut", "unknown name 'led_sut' (did you mean 'led'?)", 1),
    ("param", "'param' is a namespace: write param.<name>", 1),
    ("param.nope", "unknown knob 'param.nope'", 7),
    ("const.nope", "unknown constant 'const.nope'", 7),
    ("card.nope", "unknown attribute 'nope'", 6),
    ("wins()", "function 'wins' takes 1 argument(s), given 0", 1),
    ("led(1)", "function 'led' takes 0 argument(s), given 1", 1),
    ("wins", "function 'wins' takes 1 argument(s); call it as wins(...)", 1),
    ("nope(1)", "unknown function 'nope'", 1),
    ("any", "unknown name 'any'", 1),
    ("len(1, 2)", "builtin 'len' takes 1 argument(s), given 2", 1),
    ("count(x)", "unknown name 'x'", 7),   # (the argument first: as the text compiler found it)
    ("frobnicate(x for x in hand)", "unknown aggregate 'frobnicate' (one of: all, any, count, first, map, max, min, sum)", 1),
    ("any(x for trump in hand)", "loop variable 'trump' hides a rule name; choose another", 11),
    ("{nope: 1}", "record field 'nope' is not a declared attribute", 2),
    ("[x for x in nope]", "unknown name 'nope'", 13),
    ("any(undefined for x in hand)", "unknown name 'undefined'", 5),
])
def test_name_errors_keep_the_text_compilers_messages(text, message, column):
    """The messages and positions expr/compiler.py's text emitter gave (checked equal to it
    while both existed), which users and tests/test_rules_errors.py know."""
    with pytest.raises(CompileError) as caught:
        typed(text)
    assert message in caught.value.message and (caught.value.line, caught.value.column) == (1, column)


def test_every_shipped_expression_resolves_and_prints_back():
    for text, scope, rule_id, _where in shipped_expressions():
        tree = resolve(parse(text), scope)
        assert all(node.type is not None for node in t.walk(tree)), text
        assert parse(t.to_text(tree)) == parse(text), text
        assert not any(type(node) is t.Name for node in t.walk(tree)), text


def replace_in(path, old, new):
    text = path.read_text(encoding="utf-8")
    assert old in text, f"{old!r} not in {path}"
    path.write_text(text.replace(old, new, 1), encoding="utf-8")


@pytest.mark.parametrize("old, new, message", [
    ('only: "card.suit == led_suit"', 'only: "hand"', "must be true or false; this is a list[card]"),
    ('when: "len(trick) > 0"', 'when: "len(trick)"', "must be true or false; this is an int"),
    ('only: "card.suit == led_suit"', 'only: "card.seat == led_suit"', "a card has no attribute 'seat'"),
])
def test_a_type_error_in_the_rules_is_a_located_load_error(rules_copy, capsys, old, new, message):
    replace_in(rules_copy / "play.yaml", old, new)
    code = main(["rules", "check"])
    err = capsys.readouterr().err
    assert code == 2 and "Traceback" not in err
    line = next(l for l in err.splitlines() if message in l)
    assert "rules/play.yaml:" in line and "rule play.follow-suit" in line
    file_line = int(line.split("play.yaml:")[1].split(":")[0])
    assert new.split(": ")[1] in (rules_copy / "play.yaml").read_text().splitlines()[file_line - 1]
