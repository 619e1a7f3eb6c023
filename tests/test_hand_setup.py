"""Making a hand: what is the same for every hand of a variant is made once (the dealing plan per
dealer, the default match scores), and the state is made with the cards dealt (tools/BENCHMARKS.md,
step 95). Each hand still gets its own lists: nothing one hand changes reaches another."""

import pytest

from baloot_spec.engine import deal as deal_module
from baloot_spec.engine.deal import Deal, DealError
from baloot_spec.engine.hand import Hand
from baloot_spec.engine.state import State
from baloot_spec.rules import load_variant

DECK = ["AC", "KS", "7H", "QS", "TH", "KC", "JS", "JH", "TD", "AS", "KH", "8D", "KD", "TC", "QD", "8C",
        "7S", "JC", "TS", "7D", "QH", "AH", "8S", "9C", "9H", "JD", "QC", "9D", "8H", "7C", "9S", "AD"]


@pytest.fixture(scope="module")
def rules():
    return load_variant()


def _dealt_by_hand(rules, dealer, deck):
    """The cards each seat gets dealt packet by packet, worked out here the long way."""
    order = rules.table.order_after(dealer)
    cards, at, initial = [rules.deck.parse(c) for c in deck], 0, {seat: [] for seat in order}
    for size in rules.deal["packets"]:
        for seat in order:
            initial[seat] += cards[at:at + size]
            at += size
    return initial, cards[at], cards[at + 1:]


@pytest.mark.parametrize("dealer", ["N", "E", "S", "W"])
def test_a_deck_is_dealt_by_the_plan_as_packet_by_packet(rules, dealer):
    deal = Deal(rules, dealer, {"deck": DECK})
    initial, public, stock = _dealt_by_hand(rules, dealer, DECK)
    assert deal.initial == initial and list(deal.initial) == list(initial)
    assert deal.public is public and deal.stock == stock and deal.order == list(initial)


def test_the_plan_is_made_once_per_variant_and_dealer(rules):
    Deal(rules, "E", {"deck": DECK})
    plan = rules._deal_plans["E"]
    Deal(rules, "E", {"deck": DECK[::-1]})
    assert rules._deal_plans["E"] is plan
    assert plan.split.__code__.co_filename == "<deal split>"


def test_each_deal_has_its_own_lists(rules):
    one, two = Deal(rules, "N", {"deck": DECK}), Deal(rules, "N", {"deck": DECK})
    assert one.order is not two.order and one.stock is not two.stock
    assert all(one.initial[seat] is not two.initial[seat] for seat in one.initial)


def test_an_unknown_dealer_is_not_kept(rules):
    with pytest.raises(KeyError):
        deal_module._plan_of(rules, "X")
    assert "X" not in rules._deal_plans


def test_the_state_is_made_with_the_cards_dealt(rules):
    hand = Hand(rules, "N", {"deck": DECK})
    S = hand.state
    assert list(S.hands) == list(S.initial) == rules.table.seats   # the seats' order, not the dealing's
    for seat, cards in hand.deal.initial.items():
        assert S.initial[seat] is cards                     # the deal's own list
        assert S.hands[seat] is cards   # the same list until the play (tests/test_shared_initials.py)
    empty = State(rules, "N", {"NS": 0, "EW": 0})
    assert empty.hands == empty.initial == {seat: [] for seat in rules.table.seats}


def test_default_match_scores_are_a_new_dict_each_hand(rules):
    one, two = Hand(rules, "N", {"deck": DECK}), Hand(rules, "N", {"deck": DECK})
    assert one.state.match_scores == {"NS": 0, "EW": 0} and one.state.match_scores is not two.state.match_scores
    scored = Hand(rules, "N", {"deck": DECK}, {"EW": 5, "NS": 7})
    assert list(scored.state.match_scores.items()) == [("NS", 7), ("EW", 5)]   # the teams' order
    assert rules._engine_tables.no_points == {"NS": 0, "EW": 0}


@pytest.mark.parametrize("scores", [{"NS": True, "EW": 0}, {"NS": -1, "EW": 0}, {"NS": 1.0, "EW": 0},
                                    {"NS": 1}, [("NS", 1)], {"NS": "1", "EW": 0}])
def test_bad_match_scores_are_refused_as_before(rules, scores):
    with pytest.raises(DealError, match="match_scores must give a whole number of points for NS and EW"):
        Hand(rules, "N", {"deck": DECK}, scores)


def test_an_int_subclass_is_a_whole_number(rules):
    class Points(int):
        pass
    assert Hand(rules, "N", {"deck": DECK}, {"NS": Points(3), "EW": 0}).state.match_scores["NS"] == 3


def test_a_state_takes_the_cards_dealt(rules):
    initial = {seat: [rules.deck.cards[i]] for i, seat in enumerate(["E", "S", "W", "N"])}
    S = State(rules, "N", {"NS": 0, "EW": 0}, initial)
    assert list(S.hands) == rules.table.seats
    assert all(S.initial[seat] is initial[seat] and S.hands[seat] == initial[seat]
               and S.hands[seat] is initial[seat] for seat in initial)   # (until the play: own_hands)


def _completed_by_hand(deal, taker):
    """Deal.complete of a deck worked out the long way: the stock in dealing order, the taker's
    cards led by the public card."""
    received, at = {}, 0
    for seat in deal.order:
        count = deal.completion - (seat == taker)
        cards = deal.stock[at:at + count]
        received[seat] = [deal.public, *cards] if seat == taker else cards
        at += count
    return received


@pytest.mark.parametrize("dealer", ["N", "E"])
@pytest.mark.parametrize("taker", ["N", "E", "S", "W"])
def test_the_completion_is_generated_once_per_taker(rules, dealer, taker):
    deal = Deal(rules, dealer, {"deck": DECK})
    received = deal.complete(taker)
    assert received == _completed_by_hand(deal, taker) and list(received) == deal.order
    complete = rules._deal_plans[dealer].completes[taker]
    assert complete.__code__.co_filename == "<deal complete>"
    again = deal.complete(taker)
    assert rules._deal_plans[dealer].completes[taker] is complete
    assert all(again[seat] is not received[seat] for seat in received)   # new lists each time


def test_a_completed_hand_holds_its_cards_once(rules):
    hand = Hand(rules, "N", {"deck": DECK})
    while hand.phase == "bidding":
        hand.apply(dict(next(e for e in hand.legal() if e.get("call") == "sun") if hand.turn() == "E"
                        else next(e for e in hand.legal() if e.get("call") == "pass"), seat=hand.turn()))
    S = hand.state
    assert list(S.hands) == list(S.dealt) == rules.table.seats
    for seat in rules.table.seats:
        assert len(S.hands[seat]) == 8 and S.dealt[seat] == S.hands[seat] and S.dealt[seat] is not S.hands[seat]
    assert S.public in S.hands[S.taker]


def test_packets_a_rules_file_makes_huge_fail_as_a_wrong_deck_without_filling_memory(rules_copy):
    # (BALOOT_RULES_DIR: a copy someone edited. The dealing plan's split is made only once a deck
    # of the right length was read; made with the plan, packets of 10**8 built lists of 4 * 10**8
    # positions before the deck's length was checked.)
    import resource

    from baloot_spec.engine.deal import DealError
    from baloot_spec.rules import load_variant as load

    game = rules_copy / "game.yaml"
    text = game.read_text(encoding="utf-8")
    assert "packets: [3, 2]" in text
    game.write_text(text.replace("packets: [3, 2]", "packets: [100000000]"), encoding="utf-8")
    rules = load("default")
    deck = [f"{rank}{suit}" for suit in "SHDC" for rank in ("7", "8", "9", "10", "J", "Q", "K", "A")]
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    with pytest.raises(DealError) as info:
        Hand(rules, "N", {"deck": deck})
    assert "the deck must list all" in str(info.value)
    assert resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before < 200_000   # KiB: no lists of 10**8
