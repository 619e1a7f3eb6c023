"""Random simulation invariants per preset (as OpenSpiel does): thousands of seeded hands."""

import random

import pytest

from baloot_spec.engine.hand import Hand
from baloot_spec.engine.random_play import play_random_hand, random_deck
from baloot_spec.rules import load_variant
from baloot_spec.simulate import simulate_matches

PRESETS = ["default", "nl-rulebook", "saudi-federation", "riyadh", "online-apps"]
SCORES = [0, 60, 99, 100, 101, 140]


@pytest.mark.parametrize("preset", PRESETS)
def test_random_hands_keep_the_invariants(preset):
    rules = load_variant(preset)
    rng = random.Random(f"invariants-{preset}")
    played = 0
    for _ in range(1000):
        scores = {"NS": rng.choice(SCORES), "EW": rng.choice(SCORES)}
        hand = play_random_hand(rules, rng, rng.choice(rules.table.seats), scores)
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
            if rules.variant.knobs.get("other_team_points") == "own":   # nl: each team rounded on its own
                assert sum(result["converted"].values()) in ({16, 17} if facts.mode == "hokum" else {24, 26, 28})
            else:
                assert sum(result["converted"].values()) == (16 if facts.mode == "hokum" else 26)
    assert played > 700


@pytest.mark.parametrize("preset", PRESETS)
def test_random_matches_end(preset):
    rules = load_variant(preset)
    for document in simulate_matches(rules, 12, seed=4):
        claimed = document["claimed"]
        assert claimed["winner"] in ("NS", "EW"), "the match did not end"
        assert max(claimed["scores"].values()) >= rules.variant.knobs["match_target"] or \
            any(h.get("claimed", {}).get("gahwa") for h in document["hands"])


def test_bidding_never_gets_stuck_in_any_preset():
    for preset in PRESETS + ["default+knobs"]:
        rules = load_variant("default", {"kawesh": "true", "third_round": "true", "ashkal_round_two": "true"}) \
            if preset == "default+knobs" else load_variant(preset)
        rng = random.Random(preset)
        for _ in range(600):
            hand = Hand(rules, rng.choice(rules.table.seats), {"deck": random_deck(rules, rng)})
            while hand.phase in ("bidding", "trump", "doubling"):
                legal = hand.legal()
                assert legal and hand.turn() is not None
                # pass more often than not, so that round two and throw-ins happen
                passes = [a for a in legal if a.get("call") == "pass"]
                action = dict(rng.choice(passes if passes and rng.random() < 0.7 else legal), seat=hand.turn())
                hand.apply(action)
            assert hand.phase in ("play", "over")
