"""The refusal guard (rules/passes/guards.py refusal_guard): a test of the action alone that is
true only when a check refuses the action whatever the position. The random player skips asking
those (engine/announcing.py), so the guard must never claim a refusal the check does not make."""

import ast
import random

import pytest

from baloot_spec.engine.candidates import tables_of
from baloot_spec.engine.hand import Hand
from baloot_spec.engine.random_play import random_action, random_deck
from baloot_spec.rules import load_variant
from baloot_spec.rules.passes.guards import refusal_guard


def _expr(text: str) -> ast.expr:
    return ast.parse(text, mode="eval").body   # (fixtures written as Python: the pass reads `ast`)


def _shown(node) -> str | None:
    return None if node is None else ast.unparse(node)


def test_a_check_whose_test_folded_to_false_refuses_whatever_its_when_of_the_action_says():
    assert _shown(refusal_guard([("r", _expr("A.ekka"), ast.Constant(False), False)])) == "A.ekka"


def test_a_conjunct_of_the_action_alone_refuses_the_actions_it_is_false_for():
    guard = refusal_guard([("r", _expr("A.baloot"), _expr("A.card.suit == 'H' and S.holder == S.actor"), False)])
    assert _shown(guard) == "A.baloot and (not A.card.suit == 'H')"


@pytest.mark.parametrize("when, test", [
    ("A.ekka and len(S.trick) == 0", "False"),      # the position decides whether it applies
    ("A.ekka", "len(S.trick) == 0"),                 # the position decides whether it holds
])
def test_nothing_is_claimed_where_the_position_decides(when, test):
    assert refusal_guard([("r", _expr(when), _expr(test), False)]) is None


def test_an_if_possible_check_and_several_checks():
    checks = [("a", _expr("A.ekka"), ast.Constant(False), True),   # (waivable: never refused by the action alone)
              ("b", ast.Constant(True), ast.Constant(False), False),
              ("c", _expr("A.baloot"), ast.Constant(False), False)]
    assert _shown(refusal_guard(checks)) == "True or A.baloot"
    assert refusal_guard(checks[:1]) is None


@pytest.mark.parametrize("preset", ["default", "riyadh", "saudi-federation"])
def test_no_action_the_guard_refuses_is_ever_allowed_by_the_check(preset):
    """At every play position of 40 random hands, each card said with one yes/no announcement
    alone that the phase's guard refuses is refused by the check there; and the guard does
    refuse some (every one in a Sun), so the random player is spared those questions."""
    rules = load_variant(preset)
    rng = random.Random(preset)
    refused_seen = asked = 0
    sun_all = []
    for _ in range(40):
        hand = Hand(rules, "N", {"deck": random_deck(rules, rng)}, {"NS": 0, "EW": 0})
        while not hand.is_over():
            phase = rules.phases[hand.phase]
            if phase.kind == "tricks":
                compiled, table, _, _, refused = tables_of(rules).now(hand._now[0], hand.phase)
                said_alone = [said for card in hand.state.hands[hand.turn()] for said in table.yes_alone[card]]
                if hand.state.mode == "sun":
                    sun_all.append(all(said in refused for said in said_alone))
                probe = hand.copy()
                probe.state.actor = hand.turn()
                probe.state._memo = {}
                for said in said_alone:
                    if said in refused:
                        refused_seen += 1
                        assert compiled.check(probe.state, said) >= 0, (preset, said.card, hand.events[-4:])
                    asked += 1
            hand.apply(random_action(hand, rng))
    assert refused_seen > asked // 3 and sun_all and all(sun_all)
