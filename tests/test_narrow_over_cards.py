"""The play rules narrow the hand's cards directly when they read nothing of a play but its
card; a rule that reads an announcement makes the engine build a play per card first. Both
must give the same legal sets and the same refusals."""

import random

from baloot_spec.engine.hand import Hand
from baloot_spec.engine.random_play import play_random_hand
from baloot_spec.rules import load_variant

# play.follow-suit as shipped, with an announcement read that never changes what it keeps
# (a candidate play announces nothing): only the way the engine narrows differs.
OVERLAY = '''overlay: follow-suit-reads-ekka
title: follow suit, written to read the Ekka announcement too
source: "choice: test"
replace:
  - id: play.follow-suit
    phase: play
    when: "len(trick) > 0"
    only: "card.suit == led_suit or (ekka and not ekka)"
    if_possible: true
    explain: "{actor} holds {led_suit} and must follow suit"
    source: "de: Das Spiel"
'''


def test_both_ways_of_narrowing_give_the_same_legal_sets_and_refusals(tmp_path):
    overlay = tmp_path / "reads-ekka.yaml"
    overlay.write_text(OVERLAY, encoding="utf-8")
    cards_rules, plays_rules = load_variant(), load_variant(overlays=[str(overlay)])
    assert cards_rules.phases["play"].narrow_over_cards and not plays_rules.phases["play"].narrow_over_cards
    refusals = 0
    for number in range(40):
        rng = random.Random(number)
        played = play_random_hand(cards_rules, rng, "N")
        other = Hand(plays_rules, "N", played.deal_spec)
        replayed = Hand(cards_rules, "N", played.deal_spec)
        for event in played.events:
            assert other.legal() == replayed.legal(), (number, len(other.events))
            if event["type"] == "play":
                legal = {e["card"] for e in replayed.legal()}
                wrong = [c.text for c in replayed.state.hands[event["seat"]] if c.text not in legal]
                if wrong:
                    refusals += 1
                    probe = {"type": "play", "seat": event["seat"], "card": wrong[0]}
                    mine, theirs = replayed.check(probe), other.check(probe)
                    assert mine is not None and theirs is not None and mine.rule_id == theirs.rule_id
            other.apply(event)
            replayed.apply(event)
        assert other.result() == replayed.result()
    assert refusals > 20   # (the comparison of refusals was exercised)
