"""Random simulation invariants per preset (as OpenSpiel does): thousands of seeded hands."""

import random

import pytest

from baloot_spec.engine.hand import Hand
from baloot_spec.rules import load_variant

PRESETS = ["default", "nl-rulebook", "saudi-federation", "riyadh", "online-apps"]


def play_random_hand(rules, rng, match_scores=None):
    deck = [c.text for c in rules.deck.cards]
    rng.shuffle(deck)
    hand = Hand(rules, rng.choice(rules.table.seats), {"deck": deck}, match_scores)
    steps = 0
    while not hand.is_over():
        legal = hand.legal()
        assert legal, f"stuck: phase {hand.phase}, {hand.turn()} to act, no legal action"
        action = dict(rng.choice(legal))
        if action["type"] == "play":  # announce whatever may be announced, as a player would
            for extra in ({"declare": [p.name for p in hand.state.projects[hand.turn()]]}, {"baloot": True}, {"ekka": True}):
                trial = dict(action, seat=hand.turn(), **extra)
                if hand.check(trial) is None:
                    action.update(extra)
        action["seat"] = hand.turn()
        hand.apply(action)
        steps += 1
        assert steps < 200
    return hand


@pytest.mark.parametrize("preset", PRESETS)
def test_random_hands_keep_the_invariants(preset):
    rules = load_variant(preset)
    rng = random.Random(f"invariants-{preset}")
    played = 0
    for _ in range(300):
        scores = {"NS": rng.choice([0, 60, 99, 100, 101, 140]), "EW": rng.choice([0, 60, 99, 100, 101, 140])}
        hand = play_random_hand(rules, rng, scores)
        result = hand.result()
        assert result["next_dealer"] == rules.table.after(hand.state.dealer)
        if result["thrown_in"]:
            continue
        played += 1
        S = hand.state
        assert len(S.tricks) == 8 and all(len(t.plays) == 4 for t in S.tricks)
        cards = [c for t in S.tricks for c in t.cards]
        assert len(cards) == 32 and len(set(cards)) == 32
        facts = hand.facts
        assert sum(facts.card_points.values()) == (162 if facts.mode == "hokum" else 130)
        assert sum(facts.tricks.values()) == 8
        assert all(v >= 0 for v in result["written"].values())
        if result["level"] == 1 and result["winner"] == result["buyer_team"] and not result["kaboot"]:
            assert sum(result["converted"].values()) == (16 if facts.mode == "hokum" else 26)
    assert played > 200


def test_bidding_never_gets_stuck_in_any_preset():
    for preset in PRESETS:
        rules = load_variant(preset)
        rng = random.Random(preset)
        for _ in range(500):
            deck = [c.text for c in rules.deck.cards]
            rng.shuffle(deck)
            hand = Hand(rules, rng.choice(rules.table.seats), {"deck": deck})
            while hand.phase in ("bidding", "trump", "doubling"):
                legal = hand.legal()
                assert legal and hand.turn() is not None
                # pass more often than not, so that round two and throw-ins happen
                passes = [a for a in legal if a.get("call") == "pass"]
                action = dict(rng.choice(passes if passes and rng.random() < 0.7 else legal), seat=hand.turn())
                hand.apply(action)
            assert hand.phase in ("play", "over")
