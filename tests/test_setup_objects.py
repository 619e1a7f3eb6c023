"""Making a hand makes fewer objects (tools/BENCHMARKS.md, step 101): a Deal has no instance dict,
the state's list and dict initials are copied by displays (no method call per container), and the
state keeps the match scores record the hand made for it (no second copy). The values and the
independence of each hand's containers are unchanged."""

import pytest

from baloot_spec.engine import hand as hand_module
from baloot_spec.engine.deal import Deal
from baloot_spec.engine.hand import Hand
from baloot_spec.engine.state import State
from baloot_spec.expr.builtins import Rec
from baloot_spec.rules import load_variant

DECK = ["AC", "KS", "7H", "QS", "TH", "KC", "JS", "JH", "TD", "AS", "KH", "8D", "KD", "TC", "QD", "8C",
        "7S", "JC", "TS", "7D", "QH", "AH", "8S", "9C", "9H", "JD", "QC", "9D", "8H", "7C", "9S", "AD"]


@pytest.fixture(scope="module")
def rules():
    return load_variant()


def test_a_deal_has_no_instance_dict(rules):
    deal = Deal(rules, "N", {"deck": DECK})
    assert not hasattr(deal, "__dict__")
    with pytest.raises(AttributeError):
        deal.anything_else = 1


def test_a_deals_order_is_a_new_list_each_read(rules):
    deal = Deal(rules, "N", {"deck": DECK})
    assert deal.order == list(rules.table.order_after("N")) == list(deal.initial)
    assert deal.order is not deal.order
    deal.order.append("X")   # (changing what was read changes nothing the deal holds)
    assert deal.order == list(rules.table.order_after("N"))


def test_the_state_init_copies_initials_by_displays(rules):
    # (the initials the engine changes in place are copied; the others are shared since step 112:
    # tests/test_shared_initials.py)
    init = State(rules, "N", {"NS": 0, "EW": 0}) and rules._state_made[1]
    assert "copy" not in init.__code__.co_names
    one, two = State(rules, "N", {"NS": 0, "EW": 0}), State(rules, "N", {"NS": 0, "EW": 0})
    for name, value in rules.state_init.items():
        if isinstance(value, (list, dict)):
            mine = getattr(one, name)
            assert mine == value and type(mine) is type(value) and mine is not value


@pytest.mark.parametrize("value", [[], [1, [2]], {}, {"a": [1], "b": 2}])
def test_a_copy_display_is_a_shallow_copy(value):
    from baloot_spec.engine.state import _copy_display
    values = {}

    def const(v):
        values[f"g{len(values)}"] = v
        return f"g{len(values) - 1}"

    made = eval(_copy_display(value, const), {"__builtins__": {}, **values})
    assert made == value and type(made) is type(value) and made is not value
    assert all(made[k] is value[k] for k in (value if isinstance(value, dict) else range(len(value))))


def test_the_state_keeps_the_record_the_hand_made(rules, monkeypatch):
    made = []

    def spy(*args):
        made.append(Rec(*args))
        return made[-1]

    monkeypatch.setattr(hand_module, "Rec", spy)
    hand = Hand(rules, "N", {"deck": DECK}, {"EW": 5, "NS": 7})
    assert hand.state.match_scores is made[-1]
    assert type(hand.state.match_scores) is Rec and list(hand.state.match_scores.items()) == [("NS", 7), ("EW", 5)]
    assert rules._engine_tables.no_points == {"NS": 0, "EW": 0}
    default = Hand(rules, "N", {"deck": DECK})
    assert default.state.match_scores is made[-1] and default.state.match_scores == {"NS": 0, "EW": 0}


def test_a_state_made_elsewhere_still_copies_the_scores(rules):
    scores = {"NS": 3, "EW": 4}
    state = State(rules, "N", scores)
    assert state.match_scores == scores and state.match_scores is not scores and type(state.match_scores) is Rec
    record = Rec(scores)
    assert State(rules, "N", record).match_scores is not record
    assert State(rules, "N", record, None, True).match_scores is record


def test_a_deal_without_a_cut_makes_no_list_of_moves(rules, monkeypatch):
    seen = []
    dealt = Deal._from_deck

    def spy(self, cards, packets, deck, moves=(), plan=None):
        seen.append(moves)
        return dealt(self, cards, packets, deck, moves, plan)

    monkeypatch.setattr(Deal, "_from_deck", spy)
    Deal(rules, "N", {"deck": DECK})   # (the common case, written out in Deal.__init__: no call)
    Deal(rules, "N", {"deck": type("Cards", (list,), {})(DECK)})   # (anything else: _from_deck's)
    assert seen[-1:] == [()] and type(seen[-1]) is tuple


def test_a_hand_outside_any_phase_shares_one_tuple(rules):
    from baloot_spec.engine.candidates import NO_FLAGS, NOTHING, NOWHERE
    assert NOWHERE == (None, None, NO_FLAGS, NO_FLAGS, NOTHING)
    hand = Hand(rules, "N", {"deck": DECK})
    while not hand.is_over():
        hand.apply(dict(hand.legal()[0], seat=hand.turn()))
    assert hand._now is NOWHERE
