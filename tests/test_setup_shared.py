"""The setup's objects a hand no longer makes (tools/BENCHMARKS.md, step 115): the map of phases
shared and never written (engine/phases.py phases_with), `dealt` one dict of the variant's until
the completion makes each state a new one, and the stock read in the deal's deck (no list a hand)."""

import random

import pytest

from baloot_spec.engine.deal import Deal, DealError, _plan_of
from baloot_spec.engine.hand import Hand
from baloot_spec.engine.phases import phases_with
from baloot_spec.engine.random_play import play_random_hand
from baloot_spec.engine.state import State, initial_dealt
from baloot_spec.rules import load_variant
from test_phase_machinery import HANDS_DEAL   # (a deal of every seat's cards: the same as the phase tests')

PRESETS = ["default", "riyadh", "saudi-federation", "nl-rulebook", "online-apps"]
SCORES = {"NS": 0, "EW": 0}


@pytest.fixture(scope="module")
def rules():
    return load_variant()


def _played(rules, count, label):
    for number in range(count):
        rng = random.Random(f"setup-shared:{label}:{number}")
        yield play_random_hand(rules, rng, rng.choice(rules.table.seats), {"NS": 3, "EW": 40})


def _deck(rules, seed=5):
    cards = [c.text for c in rules.deck.cards]
    random.Random(seed).shuffle(cards)
    return cards


# ---- the map of phases -------------------------------------------------------------------------

@pytest.mark.parametrize("preset", PRESETS)
def test_a_hands_phases_are_the_variants_then_a_shared_map(preset):
    rules = load_variant(preset=preset)
    generic = dict(rules.phases)
    fresh = Hand(rules, "N", {"deck": _deck(rules)})
    assert fresh._phases is rules.phases   # (no map of its own)
    by_values = {}
    for hand in _played(rules, 30, preset):
        fixed = {name: phase.fixed_of(hand.state) for name, phase in rules.phases.items() if phase.fixed}
        expected = dict(rules.phases)
        for name, values in fixed.items():
            if (name, values) in rules._specialized and hand._phases[name] is rules._specialized[name, values]:
                expected[name] = rules._specialized[name, values]
        assert hand._phases == expected and list(hand._phases) == list(rules.phases)
        key = tuple((name, hand._phases[name] is rules.phases[name]) for name in fixed) + tuple(fixed.items())
        assert by_values.setdefault(key, hand._phases) is hand._phases   # (one map for the same phases)
    assert any(m is not rules.phases for m in by_values.values())
    assert rules.phases == generic and all(rules.phases[n] is p for n, p in generic.items())   # (never written)


def test_phases_with_keeps_one_map_per_map_and_phase(rules):
    name = next(n for n, p in rules.phases.items() if p.fixed)
    special = next(p for (n, _), p in rules._specialized.items() if n == name) if rules._specialized else None
    if special is None:
        next(_played(rules, 1, "one"))
        special = next(p for (n, _), p in rules._specialized.items() if n == name)
    one = phases_with(rules, rules.phases, name, special)
    assert one is phases_with(rules, rules.phases, name, special)
    assert one == {**rules.phases, name: special} and one is not rules.phases and rules.phases[name] is not special
    mine = dict(rules.phases)   # (a caller's map: kept as a key's object, never written)
    other = phases_with(rules, mine, name, special)
    assert other is not one and other == one and mine == rules.phases


def test_a_map_a_caller_gives_a_hand_is_never_written(rules):
    game = next(g for g in _played(rules, 10, "mine") if g.state.tricks)
    hand = Hand(rules, game.deal.dealer, game.deal_spec, {"NS": 3, "EW": 40})
    mine = hand._phases = dict(hand._phases)
    before = dict(mine)
    for event in game.events:
        hand.apply(event)
    assert hand.result() == game.result()
    assert mine == before and hand._phases is not mine


def test_a_copy_shares_the_map_and_plays_alike(rules):
    game = next(g for g in _played(rules, 10, "copy") if g.state.tricks)
    hand = Hand(rules, game.deal.dealer, game.deal_spec, {"NS": 3, "EW": 40})
    for event in game.events[:len(game.events) // 2]:
        hand.apply(event)
    copy = hand.copy()
    assert copy._phases is hand._phases
    for event in game.events[len(game.events) // 2:]:
        copy.apply(event)
    assert copy.result() == game.result()


# ---- dealt before and after the completion ---------------------------------------------------

@pytest.mark.parametrize("preset", PRESETS)
def test_dealt_is_the_variants_until_the_completion_makes_a_new_one(preset):
    rules = load_variant(preset=preset)
    shared = initial_dealt(rules)
    assert shared == {seat: [] for seat in rules.table.seats} and list(shared) == list(rules.table.seats)
    empty = shared[rules.table.seats[0]]
    assert Hand(rules, "N", {"deck": _deck(rules)}).state.dealt is shared
    completed = 0
    for hand in _played(rules, 30, preset):
        S = hand.state
        if S.dealt is not shared:
            completed += 1
            assert list(S.dealt) == list(rules.table.seats)
            assert all(S.dealt[seat] == S.initial[seat] + hand.deal.complete(S.dealt and _taker(rules, S))[seat]
                       for seat in S.dealt)
    assert completed > 10
    assert shared == {seat: [] for seat in rules.table.seats} and all(cards is empty for cards in shared.values())


def _taker(rules, S):
    return next(p for p in rules.phases.values() if p.kind == "deal_rest").taker(S)


@pytest.mark.parametrize("dealer", ["N", "E", "S", "W"])
@pytest.mark.parametrize("taker", ["N", "E", "S", "W", "nobody"])
def test_deal_rest_with_no_dealt_is_the_in_place_one_in_the_seats_order(rules, dealer, taker):
    deal = Deal(rules, dealer, {"deck": _deck(rules, 9)})
    hands = {seat: cards for seat, cards in deal.initial.items()}
    into = {seat: [] for seat in rules.table.seats}
    written = deal.deal_rest(taker, dict(hands), into)
    assert written is into
    made = deal.deal_rest(taker, dict(hands))
    assert made == into and list(made) == list(rules.table.seats)
    assert all(made[seat] is not into[seat] for seat in made)


def test_deal_rest_of_a_hands_deal_with_no_dealt(rules):
    spec = HANDS_DEAL
    deal = Deal(rules, "N", spec)
    made = deal.deal_rest("W", {s: [*c] for s, c in deal.initial.items()})
    assert list(made) == list(rules.table.seats) and [c.text for c in made["W"][:5]] == spec["hands"]["W"][:5] and len(made["W"]) == 8


def test_a_copy_before_the_completion_completes_its_own_dealt(rules):
    game = next(g for g in _played(rules, 10, "dealt") if g.state.tricks)
    hand = Hand(rules, game.deal.dealer, game.deal_spec, {"NS": 3, "EW": 40})
    copy = hand.copy()
    own = copy.state.dealt
    assert own is not initial_dealt(rules) and own == initial_dealt(rules)
    for event in game.events:
        copy.apply(event)
    assert copy.state.dealt == game.state.dealt and copy.state.dealt is not initial_dealt(rules)
    if copy._tables.copy_dealt:   # (an effect may hold it: a new one, as before)
        assert copy.state.dealt is not own and own == initial_dealt(rules)
    else:   # (written in place: its own)
        assert copy.state.dealt is own
    assert initial_dealt(rules) == {seat: [] for seat in rules.table.seats}


# ---- the stock in the deal's deck ----------------------------------------------------------------

@pytest.mark.parametrize("dealer", ["N", "E", "S", "W"])
def test_the_stock_is_read_in_the_deck(rules, dealer):
    texts = _deck(rules, 11)
    deal = Deal(rules, dealer, {"deck": texts})
    plan = _plan_of(rules, dealer)
    assert plan.stock_at == len(plan.order) * plan.first + 1
    assert [c.text for c in deal.stock] == texts[plan.stock_at:]
    assert deal.stock is not deal.stock and deal._deck[plan.stock_at:] == deal.stock


def test_an_unknown_dealer_is_refused_before_anything(rules):
    for dealer in ("X", ["N"], None, 3):
        with pytest.raises(DealError, match="unknown dealer"):
            Hand(rules, dealer, {"deck": _deck(rules)})


def test_a_state_made_alone_shares_the_variants_dealt(rules):
    assert State(rules, "N", SCORES).dealt is initial_dealt(rules) is State(rules, "E", SCORES).dealt


def test_a_hands_state_is_what_state_makes(rules):
    """Hand makes its state with the variant's class and init at once (state_maker), as State() does."""
    from baloot_spec.expr.builtins import Rec
    hand = Hand(rules, "E", {"deck": _deck(rules, 3)}, {"EW": 7, "NS": 5})
    alone = State(rules, "E", Rec({"NS": 5, "EW": 7}), hand.deal.initial, True)
    S = hand.state
    assert type(S) is type(alone) and S._fields == alone._fields
    for name in S._fields:
        if name not in ("public", "exposed", "phase", "actor", "_memo", "leader"):   # (what the hand sets after)
            assert getattr(S, name) == getattr(alone, name), name
    assert type(S.match_scores) is Rec and list(S.match_scores.items()) == [("NS", 5), ("EW", 7)]
    assert S.public is hand.deal.public and S.initial == hand.deal.initial


def test_the_completion_of_a_fresh_hand_makes_its_dealt_whole(rules, monkeypatch):
    """A state holding the variant's `dealt` is given a new dict by the fill (no dict to write in
    place, none copied first), whether or not an effect may hold `dealt`."""
    games = [g for g in _played(rules, 8, "whole") if g.state.tricks]
    seen = []
    original = Deal.deal_rest

    def spy(self, taker, hands, dealt=None):
        seen.append(dealt)
        return original(self, taker, hands, dealt)

    monkeypatch.setattr(Deal, "deal_rest", spy)
    for game in games:
        hand = Hand(rules, game.deal.dealer, game.deal_spec, {"NS": 3, "EW": 40})
        for event in game.events:
            hand.apply(event)
        assert hand.state.dealt == game.state.dealt and hand.result() == game.result()
    assert len(seen) == len(games) and all(dealt is None for dealt in seen)


def test_a_position_and_a_projects_case_write_a_dealt_of_their_own(rules):
    """What writes `dealt` seat by seat (a position's cards, a conformance projects case) first
    gives the state a dict of its own: the variant's stays empty."""
    from baloot_spec.conformance.runner import projects_position
    from baloot_spec.engine.position import hand_from_position, position_of
    game = next(g for g in _played(rules, 10, "position") if g.state.tricks)
    hand = Hand(rules, game.deal.dealer, game.deal_spec, {"NS": 3, "EW": 40})
    for event in game.events:   # (to the first card: a position is in a phase of its spec)
        hand.apply(event)
        if hand.state.trick:
            break
    again = hand_from_position(rules, position_of(hand))
    assert again.state.dealt == hand.state.dealt and again.state.dealt is not initial_dealt(rules)
    deck = _deck(rules, 4)
    projects_position(rules, {"dealer": "N", "mode": "sun", "hands": {s: deck[i * 8:i * 8 + 8] for i, s in
                                                                      enumerate(rules.table.seats)}})
    assert initial_dealt(rules) == {seat: [] for seat in rules.table.seats}
