"""A rule expression that fails while running names its own rule, whichever fused generated
function it runs in (filters in one pass, checks, effects, scoring steps)."""

import pytest

from baloot_spec.engine.hand import Hand
from baloot_spec.errors import RuleRuntimeError
from baloot_spec.rules import load_variant

DEAL = {"hands": {"W": ["JH", "9H", "AS", "KS", "QS", "7H", "8C", "7C"],
                  "S": ["AH", "TH", "AC", "KC", "QC", "JS", "TS", "9S"],
                  "E": ["KH", "QH", "AD", "KD", "QD", "JD", "TD", "9D"],
                  "N": ["8H", "TC", "JC", "9C", "8D", "7D", "8S", "7S"]}, "public": "7H"}


def rules_with(tmp_path, items_yaml: str, section: str = "rules"):
    overlay = tmp_path / "broken.yaml"
    overlay.write_text("overlay: broken\ntitle: A rule that fails at run time\nsource: \"choice: test\"\n"
                       f"add:\n  {section}:\n" + items_yaml, encoding="utf-8")
    return load_variant("default", {}, [str(overlay)])


def failing_rule(rules, act) -> str:
    """The rule id of the RuleRuntimeError that `act(hand)` raises on a fresh hand."""
    hand = Hand(rules, "N", DEAL)
    with pytest.raises(RuleRuntimeError) as caught:
        act(hand)
    return caught.value.rule_id


def test_a_failing_bidding_filter_among_plain_filters_is_named(tmp_path):
    # Plain (not if_possible) bidding filters run in one pass; the failing one is still named.
    rules = rules_with(tmp_path, "    - id: test.broken-filter\n      phase: bidding\n"
                                 "      only: \"call == 'pass' or len(tricks[3].cards) > 0\"\n"
                                 "      source: \"choice: test\"\n")
    assert failing_rule(rules, lambda hand: hand.legal()) == "test.broken-filter"


def test_a_failing_check_is_named(tmp_path):
    rules = rules_with(tmp_path, "    - id: test.broken-check\n      phase: bidding\n"
                                 "      when: \"call == 'hokum'\"\n      require: \"tricks[3].winner == actor\"\n"
                                 "      source: \"choice: test\"\n")
    assert failing_rule(rules, lambda hand: hand.apply({"seat": "W", "type": "bid", "call": "hokum"})) == "test.broken-check"


def test_a_failing_effect_is_named(tmp_path):
    rules = rules_with(tmp_path, "    - id: test.broken-effect\n      phase: bidding\n      when: \"call == 'pass'\"\n"
                                 "      set: {round: \"tricks[3].winner\"}\n      source: \"choice: test\"\n", "effects")
    assert failing_rule(rules, lambda hand: hand.apply({"seat": "W", "type": "bid", "call": "pass"})) == "test.broken-effect"


def test_a_failing_phase_expression_is_named_with_its_phase(rules_copy):
    # A phase's own expressions (turn, end, next, leader, winner, taker) name themselves.
    play = rules_copy / "play.yaml"
    play.write_text(play.read_text(encoding="utf-8").replace("    winner: winning.seat\n", "    winner: \"tricks[9].winner\"\n", 1),
                    encoding="utf-8")
    from baloot_spec.engine.random_play import play_random_hand
    import random
    with pytest.raises(RuleRuntimeError) as caught:
        for number in range(20):   # (until a hand is played to its first full trick)
            play_random_hand(load_variant(), random.Random(number), "N")
    assert caught.value.rule_id == "winner of phase.play"
