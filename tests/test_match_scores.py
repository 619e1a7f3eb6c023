"""A hand's match scores are whole numbers of points, 0 or more, one for each team; anything
else is a DealError that names the field, never a crash or a silently wrong hand."""

import pytest

from baloot_spec.engine.deal import DealError
from baloot_spec.engine.hand import Hand
from baloot_spec.rules import load_variant

RULES = load_variant()
DECK = {"deck": [f"{r}{s}" for s in "SHDC" for r in "AKQJT987"]}


@pytest.mark.parametrize("scores", [{"NS": True, "EW": 0}, {"NS": -1, "EW": 0}, {"NS": 1.5, "EW": 0},
                                    {"NS": 0}, {"NS": 0, "EW": 0, "XX": 0}, [0, 0], {"NS": "10", "EW": 0}])
def test_bad_match_scores_are_refused_by_name(scores):
    with pytest.raises(DealError) as refused:
        Hand(RULES, "N", DECK, scores)
    assert refused.value.path == "match_scores" and "whole number of points" in str(refused.value)


def test_good_match_scores_are_taken_as_given():
    assert dict(Hand(RULES, "N", DECK, {"EW": 101, "NS": 0}).state.match_scores) == {"NS": 0, "EW": 101}
    assert dict(Hand(RULES, "N", DECK).state.match_scores) == {"NS": 0, "EW": 0}
