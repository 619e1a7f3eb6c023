"""Derived values as tables keyed by the state fields they read (baloot_spec/rules/passes/keyed.py):
which bodies qualify and the values of each key, which values may be shared (read only), the
table's filling (expr/builtins.py `keyed_fill`: as positions ask, never at load), and the
generated `f_<name>`: the table's entry where there is one, the body worked out as before
everywhere else. Fixtures: the default rules'
own derived values (doubling.yaml `opponents_in_order`, bidding.yaml `ashkal_seat`) and
hand-made bodies checked in a rule function's scope."""

import ast

import pytest

import time

from baloot_spec.cli import main
from baloot_spec.expr.builtins import keyed_fill
from baloot_spec.expr.resolve import check as check_expression
from baloot_spec.rules.compile import _VariantCompiler
from baloot_spec.rules.compiled import instantiate
from baloot_spec.rules.loader import resolve_variant
from baloot_spec.rules.passes.keyed import compared, constant_function, key_fields, read_only

SEATS = ("N", "W", "S", "E")
SUITS = ("S", "H", "D", "C")


@pytest.fixture(scope="module")
def compiled():
    compiler = _VariantCompiler(resolve_variant("default"))
    for stage in (compiler.functions, compiler.phases, compiler.rules, compiler.effects, compiler.scoring,
                  compiler.keyed, compiler.fuse):
        stage()
    plan = compiler.plan()
    _rules, namespace = instantiate(compiler.variant, plan)
    return compiler, namespace, plan["source"]


def _fields(compiler, text: str, values: dict | None = None):
    """key_fields of a derived value with body `text`, checked as a rule function's."""
    scope = compiler.scopes.function(())
    compiler.scopes.derived["probe_"] = (check_expression(text, scope), scope)
    try:
        return key_fields("probe_", compiler.scopes, SEATS, SUITS, values or {})
    finally:
        del compiler.scopes.derived["probe_"]


@pytest.mark.parametrize("text, expected", [
    ("team(buyer)", {"buyer": ("N", "S", "E", "W", None)}),   # the keys of const.team_of, and its initial none
    ("dealer", {"dealer": SEATS}),                           # a seat may be used in any way
    ("distance(dealer, actor) > 1", {"actor": SEATS, "dealer": SEATS}),
    ("seat_after(dealer, 2)", {"dealer": SEATS}),
    ("level == 2", {"level": (2, 1)}),                       # the literal compared with, and the initial value
    ("'x' if not gahwa else 'y'", {"gahwa": (True, False)}),
    ("mode in ['sun', 'hokum']", {"mode": ("sun", "hokum", None)}),
    ("team(at(1)) != team(buyer)", {"buyer": ("N", "S", "E", "W", None), "dealer": SEATS}),
    ("3", {}),                                               # no state: one entry
])
def test_which_fields_key_a_derived_value_and_their_values(compiled, text, expected):
    assert _fields(compiled[0], text) == expected


@pytest.mark.parametrize("text", [
    "buyer",                 # an untyped field returned as it is: equal values could be told apart
    "level + 1",             # arithmetic on an untyped field
    "len(hand)",             # a list the engine keeps
    "match_scores['NS'] > 100",   # a map
    "led_suit == 'S'",       # another derived value
    "text(level)",           # text of an untyped field: 1 and true differ
    "[s for s in buyer]",    # iterating an untyped field
])
def test_what_keeps_a_derived_value_from_being_a_table(compiled, text):
    assert _fields(compiled[0], text) is None


def test_a_field_gets_the_values_it_is_compared_with_elsewhere_and_a_table_stays_small(compiled):
    compiler = compiled[0]
    assert _fields(compiler, "level == 2", {"level": (3, 4)}) == {"level": (2, 3, 4, 1)}
    assert _fields(compiler, "level == 2", {"level": tuple(range(2000))}) is None


def test_compared_collects_the_literals_each_field_is_compared_with(compiled):
    scope = compiled[0].scopes.hand()
    trees = [check_expression(text, scope) for text in ("mode == 'sun'", "'hokum' != mode and level > 2",
                                                         "bid in ['sun', 'ashkal']", "'N' in all_seats")]
    assert compared(trees, {}) == {"mode": ("sun", "hokum"), "level": (2,), "bid": ("sun", "ashkal")}


@pytest.mark.parametrize("text, only_read", [
    ("opponents_in_order[0]", True),
    ("len(opponents_in_order)", True),
    ("actor in opponents_in_order", True),
    ("count(s for s in opponents_in_order if s == actor)", True),
    ("opponents_in_order == [actor]", False),     # compared as a whole: fine, but not what is allowed
    ("opponents_in_order + [actor]", False),
    ("unique([opponents_in_order, opponents_in_order])", False),   # (unique tells lists apart by identity)
    ("team(opponents_in_order[0]) if true else opponents_in_order", False),
])
def test_read_only(compiled, text, only_read):
    tree = check_expression(text, compiled[0].scopes.hand())
    assert read_only("opponents_in_order", [tree]) is only_read


def test_the_default_rules_only_read_opponents_in_order(compiled):
    compiler = compiled[0]
    trees = [*compiler.checked.values(), *compiler.template_trees,
             *(entry[1] for entry in compiler.scopes.inline.values()),
             *(entry[0] for entry in compiler.scopes.derived.values())]
    assert read_only("opponents_in_order", trees)


def test_keyed_fill_keeps_plain_values_of_the_fields_few_values_only():
    fields = (("a", ("x", "y")), ("b", (1, 2)))
    table: dict = {}
    assert keyed_fill(table, fields, _State(a="x", b=1), "v", False) == "v"
    assert table == {"x": {1: "v"}}
    listed = ["N", "S"]
    assert keyed_fill(table, fields, _State(a="y", b=2), listed, True) is listed   # (a list, where only read)
    assert table == {"x": {1: "v"}, "y": {2: listed}}
    for state, value, lists in [(_State(a="z", b=1), "v", False),     # a value outside the field's few
                                (_State(a="x", b=2), ["N"], False),   # a list, where it may not be shared
                                (_State(a="x", b=2), {"r": 1}, True),  # not plain
                                (_State(a=["x"], b=2), "v", False),   # unhashable
                                (_State(a="x"), "v", False)]:         # a field the state lacks
        assert keyed_fill(table, fields, state, value, lists) is value
    assert table == {"x": {1: "v"}, "y": {2: listed}}
    table = {}
    assert keyed_fill(table, (), _State(), 7, False) == 7 and table == {(): 7}


def test_the_module_reads_opponents_in_order_from_a_table_filled_as_positions_ask(compiled):
    _compiler, namespace, source = compiled
    assert "return k__keyed_opponents_in_order[S.buyer][S.dealer]" in source
    table = namespace["k__keyed_opponents_in_order"]
    assert table == {}   # (nothing worked out at load)
    opponents = namespace["f_opponents_in_order"]
    first = _State(buyer="N", dealer="N")
    assert opponents(first) == ["W", "E"] and first._memo == {"opponents_in_order": ["W", "E"]}
    assert table == {"N": {"N": ["W", "E"]}}
    again = _State(buyer="N", dealer="N")
    assert opponents(again) is table["N"]["N"] and again._memo == {}   # (the table's entry: no body run)
    body = namespace["m_keyed_opponents_in_order"]
    for buyer in SEATS:
        for dealer in SEATS:
            assert opponents(_State(buyer=buyer, dealer=dealer)) == body(_State(buyer=buyer, dealer=dealer))
    assert set(table) == set(SEATS) and all(set(row) == set(SEATS) for row in table.values())


L20 = "[" + ",".join(str(n) for n in range(20)) + "]"


def _slow(names: str) -> str:
    """Aggregates nested len(names) deep over a 20-item list (20**6 steps: about a minute a value
    worked out, minutes for a table built at load)."""
    inner = f"count(1 for {names[-1]} in {L20} if {names[-1]} != {names[-2]} and dealer == 'N')"
    for outer, name in zip(reversed(names[:-2]), reversed(names[1:-1])):
        inner = f"count(1 for {name} in {L20} if {name} != {outer} and {inner} > 0)"
    return f"'double' if count(1 for {names[0]} in {L20} if {inner} > 0) > 5 else 'four'"


def test_a_slow_keyed_derived_value_does_not_hold_up_loading_the_rules(tmp_path, monkeypatch, capsys):
    """Hostile input: a derived value of the dealer alone (a table's candidate) whose body takes
    hours. Built at load, the table would run it for every dealer; filled as positions ask, the
    rules load at once and the body runs where the rules read it, under the hand's budget."""
    overlay = tmp_path / "slow.yaml"
    overlay.write_text("overlay: slowkey\ntitle: a slow derived value of the dealer\nsource: 'choice: test'\n"
                       "replace:\n  - id: fn.next-step\n    name: next_step\n    doc: slow\n"
                       f"    expr: \"{_slow('abcdef')}\"\n    source: 'choice: test'\n", encoding="utf-8")
    monkeypatch.setenv("BALOOT_NO_CACHE", "1")
    started = time.monotonic()
    assert main(["rules", "check", "--overlay", str(overlay), "--show-code", "doubling"]) == 0
    assert time.monotonic() - started < 30
    assert "k__keyed_next_step[" in capsys.readouterr().out   # (it is a keyed table)


class _State:
    """A position's state: the fields read, and a memo."""

    def __init__(self, **fields):
        self.__dict__.update(fields)
        self._memo = {}


def test_outside_the_table_the_body_is_worked_out_as_before(compiled):
    namespace = compiled[1]
    opponents = namespace["f_opponents_in_order"]
    assert opponents(_State(buyer="S", dealer="E")) is namespace["k__keyed_opponents_in_order"]["S"]["E"]
    with pytest.raises(KeyError):   # (no buyer yet: the body's own error)
        opponents(_State(buyer=None, dealer="E"))
    with pytest.raises(TypeError):  # (an unhashable value: the body runs, and fails on its own)
        opponents(_State(buyer=["S"], dealer="E"))
    state = _State(buyer="S", dealer="X")   # (a value the table has no row for: worked out, memoised)
    with pytest.raises(KeyError):
        opponents(state)
    next_step = namespace["f_next_step"]
    state = _State(level=7, mode="sun", gahwa=False)   # (no level 7 in the table: worked out, memoised)
    assert next_step(state) is None and state._memo == {"next_step": None}
    state = _State(level=1, mode="sun", gahwa=False)   # (the first position to ask fills the table)
    assert next_step(state) == "double" and state._memo == {"next_step": "double"}
    state = _State(level=1, mode="sun", gahwa=False)
    assert next_step(state) == "double" and state._memo == {}
    ashkal_seat = namespace["f_ashkal_seat"]   # (the dealer speaks 4th, the seat before him 3rd)
    assert [ashkal_seat(_State(actor=seat, dealer="N")) for seat in SEATS] == [True, False, False, True]


def test_a_derived_value_folded_to_a_literal_has_no_memo(compiled):
    source = compiled[2]
    assert "def f_ashkal_card_ok(S):\n    return True\n" in source
    fn = constant_function("f_x", ast.Constant(3))
    space: dict = {}
    exec(compile(ast.fix_missing_locations(ast.Module(body=[fn], type_ignores=[])), "<test>", "exec"), space)
    assert space["f_x"](None) == 3
