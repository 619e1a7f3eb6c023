"""A finished trick's lists hold one item per seat (engine/state.py PER_SEAT_LISTS): an aggregate
over `x.cards` or `x.plays` of a value typed trick is written out item by item (expr/emit.py
`_per_seat`, expr/lengths.py `written`), as one over the current trick of a known length is: the
same items read, in the same order, no loop. What is not known to be a trick keeps its loop."""

import ast
import random

import pytest

from baloot_spec.cards import Card, Table
from baloot_spec.engine.random_play import play_random_hand
from baloot_spec.engine.state import PER_SEAT_LISTS, Play, Trick
from baloot_spec.expr import types as ty
from baloot_spec.expr.builtins import Rec, make_builtins
from baloot_spec.expr.emit import emit
from baloot_spec.expr.lengths import written
from baloot_spec.expr.resolve import check
from baloot_spec.expr.scope import Scope
from baloot_spec.rules import load_variant
from baloot_spec.rules.compiled import SAFE_PY_BUILTINS

SEATS = ["N", "W", "S", "E"]


def _scope(per_seat=PER_SEAT_LISTS) -> Scope:
    return Scope(state=frozenset({"tricks", "other"}), engine_fields=frozenset({"tricks"}), seats=4,
                 per_seat_lists=per_seat, builtins={"len": (1, 1)},
                 attributes=frozenset({"cards", "plays", "rank", "suit", "winner", "card", "seat"}))


def _run(text: str, per_seat=PER_SEAT_LISTS, **state):
    scope = _scope(per_seat)
    body = emit(check(text, scope), scope)
    namespace = {"__builtins__": SAFE_PY_BUILTINS, **make_builtins(Table(SEATS, {"NS": ["N", "S"], "EW": ["E", "W"]}))}
    module = ast.fix_missing_locations(ast.Module(body=[ast.FunctionDef(
        name="g", args=ast.arguments(posonlyargs=[], args=[ast.arg(arg="S")], vararg=None, kwonlyargs=[],
                                     kw_defaults=[], kwarg=None, defaults=[]),
        body=[ast.Return(value=body)], decorator_list=[], returns=None)], type_ignores=[]))
    exec(compile(module, "<test>", "exec"), namespace)
    return ast.unparse(body), namespace["g"](Rec(state))


def _trick(cards: str, winner: str = "N") -> Trick:
    return Trick("N", [Play(seat, Card(text[0], text[1])) for seat, text in zip(SEATS, cards.split())], winner)


TRICKS = [_trick("AS KS QS JS"), _trick("7H 8H 9H TH", "E")]


@pytest.mark.parametrize("text, value", [
    ("[sum(len(c.suit + c.rank) for c in x.cards) for x in tricks]", [8, 8]),
    ("[sum(c.suit == 'S' for c in x.cards) for x in tricks]", [4, 0]),
    ("[count(c.suit == 'S' for c in x.cards) for x in tricks]", [4, 0]),
    ("[first(p.seat for p in x.plays if p.card.rank == 'K') for x in tricks]", ["W", None]),
    ("[[c.rank for c in x.cards] for x in tricks]", [["A", "K", "Q", "J"], ["7", "8", "9", "T"]]),
    ("[max(c.rank for c in x.cards) for x in tricks]", ["Q", "T"]),
    ("[any(c.rank == '9' for c in x.cards) for x in tricks]", [False, True]),
])
def test_a_trick_list_is_written_out_with_the_same_value(text, value):
    source, got = _run(text, tricks=TRICKS)
    assert got == value == _run(text, frozenset(), tricks=TRICKS)[1]
    assert [type(v) for v in got] == [type(v) for v in value]
    assert ".cards[3]" in source or ".plays[3]" in source
    assert "for v_c in" not in source and "for v_p in" not in source


def test_a_list_not_known_to_be_a_tricks_keeps_its_loop():
    source, got = _run("[count(c.suit == 'S' for c in x.cards) for x in other]", other=TRICKS)
    assert got == [4, 0] and "for v_c in v_x.cards" in source


def test_a_written_out_sum_of_two_or_more_items_starts_with_the_first():
    two = written("sum", [ast.Name("a"), ast.Name("b")], None)
    assert ast.unparse(two) == "a + b"
    assert ast.unparse(written("sum", [ast.Name("a")], None)) == "0 + a"   # (one bool alone: 1, not True)
    assert ast.unparse(written("sum", [], None)) == "0"
    assert True + True == 0 + True + True and type(True + False) is int


def test_the_engine_closes_every_trick_with_one_play_per_seat():
    rules = load_variant("default")
    rng = random.Random(3)
    for number in range(30):
        hand = play_random_hand(rules, rng, rules.table.seats[number % 4])
        for trick in hand.state.tricks:
            assert len(trick.plays) == len(trick.cards) == len(rules.table.seats)


def test_the_default_rules_add_a_tricks_card_points_without_a_loop():
    rules = load_variant("default")
    rules.specialized("score", ("sun", None))
    assert ty.ATTRIBUTES["trick"]["cards"] == ty.list_of(ty.CARD)
    source = load_variant("default").python_source
    body = source.split("def facts_all", 1)[1].split("\ndef ", 1)[0]
    assert ".cards[3]" in body and ".cards:" not in body
