"""Step 97: `a and True` / `a or False` (a knob folded in) emitted as `a` where `a` is True or
False by its form, and the engine's phase entry reading what it keeps per compiled phase."""

import random

import pytest

from baloot_spec.engine.candidates import UNKNOWN
from baloot_spec.engine.hand import Hand
from baloot_spec.engine.random_play import play_random_hand
from baloot_spec.expr.compiler import Scope, to_python
from baloot_spec.rules import load_variant

SCOPE = Scope(state=frozenset({"x", "flag", "n"}), builtins={"len": (1, 1)},
              params={"on": True, "off": False, "one": 1, "zero": 0})


@pytest.mark.parametrize("text, python", [
    ("x == 1 and param.on", "S.x == 1"),                       # a comparison: True or False
    ("x == 1 or param.off", "S.x == 1"),
    ("not flag and param.on", "not S.flag"),
    ("(x == 1 or n > 2) and param.on", "S.x == 1 or S.n > 2"),
    ("x == 1 and n > 2 and param.on", "S.x == 1 and S.n > 2"),
    ("x == 1 and param.on and n > 2", "S.x == 1 and S.n > 2"),
    ("param.on and x == 1 and param.on", "S.x == 1"),
    ("flag and param.on and n", "S.flag and S.n"),            # before another operand: whatever `flag` holds
    ("flag or param.off or n", "S.flag or S.n"),
    ("flag and param.one and n", "S.flag and S.n"),
    ("len(x) or param.zero or n", "b_len(S.x) or S.n"),
])
def test_a_literal_that_cannot_decide_after_a_boolean_is_dropped(text, python):
    assert to_python(text, SCOPE) == python


@pytest.mark.parametrize("text, python", [
    ("flag and param.on", "S.flag and True"),                  # a state field may hold 1: `1 and True` is True
    ("flag or param.off", "S.flag or False"),                  # None or False is False, not None
    ("x == 1 and param.one", "S.x == 1 and 1"),                # not the bool literal: its value is the chain's
    ("x == 1 or param.zero", "S.x == 1 or 0"),
    ("len(x) and param.on", "b_len(S.x) and True"),
    ("x == 1 and flag and param.on", "(S.x == 1 and S.flag) and True"),
    ("x == 1 and param.off", "S.x == 1 and False"),            # deciding: S.x is still read
])
def test_a_literal_is_kept_where_it_could_change_the_value(text, python):
    assert to_python(text, SCOPE) == python


@pytest.mark.parametrize("text, state, value", [
    ("flag and param.on and n", {"flag": 1, "n": 5}, 5), ("flag and param.on and n", {"flag": 0, "n": 5}, 0),
    ("flag or param.off or n", {"flag": None, "n": 0}, 0), ("flag or param.off or n", {"flag": 3, "n": 0}, 3),
    ("flag and param.on", {"flag": 1}, True), ("flag or param.off", {"flag": None}, False),
    ("x == 1 and param.on", {"x": 1}, True), ("x == 1 or param.off", {"x": 2}, False),
])
def test_the_values_are_python_s(text, state, value):
    from baloot_spec.expr.builtins import Rec
    source = to_python(text, SCOPE)
    assert eval(compile(source, "<t>", "eval"), {"__builtins__": {}, "b_len": len}, {"S": Rec(state)}) is value


def test_a_derived_value_whose_body_folds_to_a_literal_is_read_as_the_literal():
    """`ashkal_card_ok` with the default knobs is `True` (its function returns only that): the
    bidding's fused narrow reads no local for it, and the effects no `third_round` (False)."""
    import ast
    rules = load_variant()
    tree = ast.parse(rules.python_source)
    called = {node.func.id for node in ast.walk(tree) if isinstance(node, ast.Call) and isinstance(node.func, ast.Name)}
    functions = {node.name: node for node in tree.body if isinstance(node, ast.FunctionDef)}
    assert ast.unparse(functions["f_ashkal_card_ok"].body[-1]) == "return True"
    assert ast.unparse(functions["f_third_round"].body[-1]) == "return False"
    assert "f_ashkal_card_ok" not in called and "f_third_round" not in called
    # a knob that leaves the body open keeps the call
    other = load_variant(sets={"ashkal_on_ace": "refused"})
    assert "f_ashkal_card_ok(S)" in other.python_source


def _recorded(rules, seed):
    """(dealer, deal, events) of one random hand."""
    hand = play_random_hand(rules, random.Random(seed), "N")
    return "N", hand.deal_spec, [dict(e) for e in hand.events]


def _replayed(rules, dealer, deal, events):
    hand = Hand(rules, dealer, deal)
    for event in events:
        hand.legal()
        hand.apply(event)
    return hand


def _refused(*_):
    raise AssertionError("called")


def test_entering_a_phase_again_reads_what_is_kept_per_compiled_phase(monkeypatch):
    """A phase entered again (in another hand under the same rules) takes its specialised form
    and its candidate tables from what was kept, without calling for them."""
    rules = load_variant()
    dealer, deal, events = _recorded(rules, 11)
    first = _replayed(rules, dealer, deal, events)
    assert first.is_over() and first._tables._by_phase
    monkeypatch.setattr(type(first._tables), "now", _refused)
    monkeypatch.setattr(type(rules), "specialized", _refused)
    again = _replayed(rules, dealer, deal, events)   # the same phases, specialised alike
    assert again.is_over() and again.result() == first.result()


def test_the_turn_is_the_entered_phase_s():
    """turn() asks the phase entered (what _enter and _resume keep in _now), not the table of
    phases by name; once the hand is over, nobody."""
    rules = load_variant()
    dealer, deal, events = _recorded(rules, 5)
    hand = Hand(rules, dealer, deal)
    seat = hand.turn()
    hand._phases = {}   # (no phase is looked up by name)
    hand._seat = UNKNOWN
    assert hand.turn() == seat == hand._now[0].turn(hand.state)
    over = _replayed(rules, dealer, deal, events)
    over._seat = UNKNOWN
    assert over.turn() is None
