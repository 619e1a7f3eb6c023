"""`best_split` (baloot_spec/expr/split.py): on groups that are plain records of int value and
key and a list of hashable cards, the search on ints (bitmasks of groups, a total as an int)
chooses what the general search chooses: the same group objects in the same order, the first of
equal scores included; anything else goes the general way and raises what it raised."""

import random

import pytest

from baloot_spec.expr import split
from baloot_spec.expr.builtins import Rec, _best_split
from baloot_spec.rules import load_variant


def _general(groups):
    groups = list(groups)
    return groups if len(groups) < 2 else split._split_searched(groups)


def _same(groups):
    got, want = _best_split(groups), _general(groups)
    assert len(got) == len(want) and all(a is b for a, b in zip(got, want)), (groups, got, want)
    return got


def _random_groups(rng, values=(0, 1, 2, 2, 4, 4, 10, -1), keys=(-2, 3)):
    pool = list(range(rng.randint(1, 12)))
    return [Rec(kind="k", cards=rng.sample(pool, rng.randint(0, min(4, len(pool)))),
                value=rng.choice(values), key=rng.randint(*keys)) for _ in range(rng.randint(0, 9))]


@pytest.mark.parametrize("seed", range(8))
def test_the_int_search_chooses_what_the_general_search_chooses(seed):
    rng = random.Random(seed)
    for _ in range(600):   # (few values and keys: many ties of total, of pairs, of both)
        _same(_random_groups(rng))


def test_the_first_of_equal_scores_is_kept():
    a, b = Rec(cards=[1, 2], value=4, key=3), Rec(cards=[2, 3], value=4, key=3)
    assert _same([a, b]) == [a] and _best_split([a, b])[0] is a
    assert _best_split([b, a])[0] is b
    c, d = Rec(cards=[1], value=2, key=1), Rec(cards=[2], value=2, key=1)   # {c, d} or {e}: same total, more pairs
    e = Rec(cards=[1, 2], value=4, key=1)
    assert _same([e, c, d]) == [e]
    zero = Rec(cards=[9], value=0, key=0)   # a group of no value is still taken (a longer list of pairs)
    assert _same([e, zero]) == [e, zero]
    assert _same([Rec(cards=[1], value=-1, key=0), Rec(cards=[2], value=-2, key=0)]) == []


def test_int_groups_never_take_the_general_way(monkeypatch):
    monkeypatch.setattr(split, "_split_searched", lambda groups: pytest.fail("the general way"))
    rng = random.Random(5)
    for _ in range(200):
        _best_split(_random_groups(rng))


@pytest.mark.parametrize("odd", [
    {"value": 2.5}, {"value": True}, {"key": 1.5}, {"key": "x"}, {"cards": (1, 2)}, {"cards": [[1], [2]]},
])
def test_other_groups_take_the_general_way_and_raise_what_it_raises(odd, monkeypatch):
    groups = [Rec(cards=[1, 2], value=4, key=2), Rec(cards=[3], value=2, key=1), Rec({"cards": [2, 5], "value": 3, "key": 0, **odd})]
    try:
        want = ("value", _general(groups))
    except Exception as exc:
        want = ("error", type(exc), str(exc))
    called = []
    real = split._split_searched
    monkeypatch.setattr(split, "_split_searched", lambda gs: called.append(1) or real(gs))
    try:
        got = ("value", _best_split(groups))
    except Exception as exc:
        got = ("error", type(exc), str(exc))
    assert called and got[0] == want[0]
    assert (got[1] == want[1] and all(a is b for a, b in zip(got[1], want[1]))) if got[0] == "value" else got == want


def test_a_missing_field_and_a_non_record_raise_what_they_raised():
    for groups in ([Rec(cards=[1], value=1, key=1), Rec(cards=[2], value=1)],
                   [Rec(cards=[1], value=1, key=1), Rec(cards=[2], key=1)],
                   [Rec(cards=[1], value=1, key=1), ("not", "a", "record")]):
        with pytest.raises(Exception) as general:
            _general(groups)
        with pytest.raises(general.type) as got:
            _best_split(groups)
        assert str(got.value) == str(general.value)


def test_the_default_rules_projects_split_alike():
    """Every 8-card hand's candidates, as the default rules make them, split alike (random hands
    of a 32-card deck, both contracts)."""
    rules = load_variant()
    functions = rules.functions
    space = functions["best_projects"].__globals__
    deck = list(rules.deck.cards)

    class Frozen:
        pass
    rng = random.Random(3)
    seen = 0
    for number in range(3000):
        S = Frozen()
        S.mode = "sun" if number % 2 else "hokum"
        cards = rng.sample(deck, 8)
        candidates = space["f_sequence_projects"](S, cards) + space["f_four_projects"](S, cards)
        seen += len(candidates) >= 2
        _same(candidates)
    assert seen > 50
