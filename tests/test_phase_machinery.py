"""The phase machinery (engine/phases.py) reads what the compiler knows as values: a literal
`next` as the phase's `goes_to` (no call), the fixed state's values by the phase's `fixed_of`
(one getter), the rest of the deal by one generated function per taker (Deal.deal_rest), and the
seat to act in a calls phase without `_turn`'s frame. Same phases, same hands, same errors."""

import random
from dataclasses import replace

import pytest

from baloot_spec.engine.deal import Deal
from baloot_spec.engine.hand import Hand
from baloot_spec.engine.random_play import play_random_hand
from baloot_spec.errors import RuleRuntimeError
from baloot_spec.rules import load_variant
from baloot_spec.rules.compiled import fixed_getter
from baloot_spec.rules.passes.flow import always_next

PRESETS = ["default", "riyadh", "saudi-federation", "nl-rulebook", "online-apps"]


@pytest.fixture(scope="module")
def rules():
    return load_variant()


def _hands(rules, count, seed="machinery"):
    return [play_random_hand(rules, random.Random(f"{seed}:{n}"), "NESW"[n % 4]) for n in range(count)]


def _replayed(rules, played, hand=None):
    hand = hand or Hand(rules, played.deal.dealer, played.deal_spec)
    for event in played.events:
        hand.legal()
        hand.apply(dict(event))
    return hand


# ---- goes_to: a literal `next` read as a value -----------------------------------------------

def test_always_next_is_a_string_literal_only():
    import ast
    assert always_next(ast.Constant("play")) == "play" and type(always_next(ast.Constant("play"))) is str
    assert always_next(ast.parse("'a' if x else 'b'", mode="eval").body) is None
    assert always_next(ast.Constant(None)) is None and always_next(ast.Constant(3)) is None
    assert always_next(ast.Name(id="S", ctx=ast.Load())) is None


@pytest.mark.parametrize("preset", PRESETS)
def test_goes_to_is_what_next_gives_for_every_literal_next(preset):
    rules = load_variant(preset)
    hand = Hand(rules, "N", {"deck": [c.text for c in rules.deck.cards]})
    literal = 0
    for name, phase in rules.phases.items():
        source = rules.python_source.split(f"def {phase.next.__name__}(S):", 1)[1].split("\ndef ", 1)[0]
        assigned = source.split("R = ", 1)[1].split("\n", 1)[0]
        if phase.goes_to is None:
            assert not (assigned.startswith("'") and assigned.endswith("'") and assigned.count("'") == 2), name
        else:
            literal += 1
            assert phase.next(hand.state) == phase.goes_to and assigned == repr(phase.goes_to), name
    assert literal >= 1


def test_a_literal_next_is_not_called(rules):
    played = _hands(rules, 3)
    for game in played:
        hand = Hand(rules, game.deal.dealer, game.deal_spec)

        def never(S):
            raise AssertionError("next called")

        hand._phases = {name: replace(phase, next=never) if phase.goes_to is not None and not phase.fixed else phase
                        for name, phase in hand._phases.items()}   # (a map of the hand's own: the variant's is shared)
        _replayed(rules, game, hand)
        assert hand.result() == game.result()


def test_next_is_called_when_it_is_no_literal(rules):
    game = _hands(rules, 1)[0]
    hand = Hand(rules, game.deal.dealer, game.deal_spec)
    called = []
    hand._phases = {name: replace(phase, goes_to=None, next=lambda S, n=phase.goes_to: called.append(n) or n)
                    if phase.goes_to is not None and not phase.fixed else phase
                    for name, phase in hand._phases.items()}   # (a map of the hand's own: the variant's is shared)
    _replayed(rules, game, hand)
    assert called and hand.result() == game.result()


def test_a_failing_next_still_names_its_phase(rules_copy):
    doubling = rules_copy / "doubling.yaml"
    text = doubling.read_text(encoding="utf-8")
    assert "    next: \"'play'\"\n" in text
    doubling.write_text(text.replace("    next: \"'play'\"\n", "    next: \"'play' if tricks[9].winner == 'N' else 'score'\"\n", 1),
                        encoding="utf-8")
    rules = load_variant()
    assert rules.phases["doubling"].goes_to is None
    with pytest.raises(RuleRuntimeError) as caught:
        for number in range(40):   # (until a hand reaches the end of the doubling)
            play_random_hand(rules, random.Random(number), "N")
    assert caught.value.rule_id == "next of phase.doubling"


def test_a_literal_next_to_no_phase_fails_as_before(rules_copy):
    doubling = rules_copy / "doubling.yaml"
    text = doubling.read_text(encoding="utf-8")
    doubling.write_text(text.replace("    next: \"'play'\"\n", "    next: \"'nowhere'\"\n", 1), encoding="utf-8")
    rules = load_variant()
    assert rules.phases["doubling"].goes_to == "nowhere"
    with pytest.raises(RuleRuntimeError) as caught:
        for number in range(40):
            play_random_hand(rules, random.Random(number), "N")
    assert caught.value.rule_id == "phases" and "no phase named 'nowhere'" in str(caught.value)


# ---- fixed_of: the fixed state's values by one getter -----------------------------------------

class _State:
    a, b, c = 1, "x", None


def test_fixed_getter_gives_the_values_as_a_tuple_in_order():
    assert fixed_getter(()) is None
    assert fixed_getter(("a",))(_State) == (1,)
    assert fixed_getter(("b", "a"))(_State) == ("x", 1)
    assert fixed_getter(("c", "b", "a"))(_State) == (None, "x", 1)
    with pytest.raises(AttributeError):
        fixed_getter(("a", "nothing"))(_State)


@pytest.mark.parametrize("preset", PRESETS)
def test_every_fixed_phase_has_its_getter_specialised_ones_too(preset):
    rules = load_variant(preset)
    fixed = [phase for phase in rules.phases.values() if phase.fixed]
    assert fixed
    for game in _hands(rules, 4, preset):
        for phase in fixed:
            assert phase.fixed_of(game.state) == tuple(getattr(game.state, name) for name in phase.fixed)
        for phase in game._phases.values():
            assert (phase.fixed_of is None) == (not phase.fixed)
    assert all(phase.fixed_of is None for phase in rules.phases.values() if not phase.fixed)


def test_a_phase_is_specialised_by_its_getter(rules):
    game = next(g for g in _hands(rules, 10) if g.state.tricks)
    hand = Hand(rules, game.deal.dealer, game.deal_spec)
    asked = []
    spied = dict(hand._phases)   # (a map of the hand's own: the variant's is shared)
    for name, phase in spied.items():
        if phase.fixed:
            getter = phase.fixed_of
            spied[name] = replace(phase, fixed_of=lambda S, g=getter, n=name: asked.append(n) or g(S))
    hand._phases = spied
    _replayed(rules, game, hand)
    assert asked and set(asked) <= {n for n, p in rules.phases.items() if p.fixed}
    assert hand.result() == game.result()
    assert all(hand._phases[name] is rules._specialized[name, rules.phases[name].fixed_of(hand.state)] for name in set(asked))


# ---- the rest of the deal, generated per taker -------------------------------------------------

def _deck(rules):
    cards = [c.text for c in rules.deck.cards]
    random.Random(5).shuffle(cards)
    return cards


def _by_loop(deal, taker, hands, dealt):
    for seat, cards in deal.complete(taker).items():
        hands[seat] = hand = hands[seat] + cards
        dealt[seat] = [*hand]


@pytest.mark.parametrize("dealer", ["N", "E", "S", "W"])
@pytest.mark.parametrize("taker", ["N", "E", "S", "W", "nobody"])
def test_deal_rest_is_the_completion_loop(rules, dealer, taker):
    deal = Deal(rules, dealer, {"deck": _deck(rules)})
    hands = {seat: [*cards] for seat, cards in deal.initial.items()}
    dealt = {seat: [] for seat in hands}
    old = dict(hands)
    expected_hands, expected_dealt = dict(hands), dict(dealt)
    _by_loop(deal, taker, expected_hands, expected_dealt)
    deal.deal_rest(taker, hands, dealt)
    assert hands == expected_hands and dealt == expected_dealt
    assert list(hands) == list(expected_hands) and list(dealt) == list(expected_dealt)
    for seat in hands:
        assert hands[seat] is not old[seat] and dealt[seat] is not hands[seat]
        assert old[seat] == deal.initial[seat]   # (the hands before are not changed in place)
    fills = rules._deal_plans[dealer].fills
    if taker == "nobody":
        assert taker not in fills
    else:
        assert fills[taker].__code__.co_filename == "<deal fill>"
        made = fills[taker]
        deal.deal_rest(taker, {s: [*c] for s, c in deal.initial.items()}, {s: [] for s in hands})
        assert fills[taker] is made


# a deal given as every seat's cards and the public card (no deck): the hands deal's path
HANDS_DEAL = {"hands": {"W": ["JH", "9H", "AS", "KS", "QS", "7H", "8C", "7C"],
                        "S": ["AH", "TH", "AC", "KC", "QC", "JS", "TS", "9S"],
                        "E": ["KH", "QH", "AD", "KD", "QD", "JD", "TD", "9D"],
                        "N": ["8H", "TC", "JC", "9C", "8D", "7D", "8S", "7S"]}, "public": "7H"}


def test_deal_rest_of_a_hands_deal_takes_the_loop(rules):
    spec = HANDS_DEAL
    deal = Deal(rules, "N", spec)
    hands = {seat: [*cards] for seat, cards in deal.initial.items()}
    dealt = {seat: [] for seat in hands}
    expected_hands, expected_dealt = dict(hands), dict(dealt)
    _by_loop(deal, "W", expected_hands, expected_dealt)
    deal.deal_rest("W", hands, dealt)
    assert hands == expected_hands and dealt == expected_dealt


def test_a_hand_dealt_from_a_deck_is_completed_by_its_fill(rules, monkeypatch):
    played = [game for game in _hands(rules, 12, "fill") if not game.state.thrown_in]

    def never(self, taker):
        raise AssertionError("Deal.complete called")

    monkeypatch.setattr(Deal, "complete", never)
    for game in played:
        hand = _replayed(rules, game)
        assert hand.result() == game.result() and hand.state.dealt == game.state.dealt
        assert hand.state.hands == game.state.hands == {seat: [] for seat in game.state.hands}


def test_hands_and_dealt_after_the_bidding_are_the_completion(rules):
    for game in _hands(rules, 20, "rest"):
        if game.state.thrown_in:
            continue
        deal = Deal(rules, game.deal.dealer, game.deal_spec)
        taker = next(p for p in rules.phases.values() if p.kind == "deal_rest").taker(game.state)
        received = deal.complete(taker)
        for seat, cards in game.state.dealt.items():
            assert cards == deal.initial[seat] + received[seat]


# ---- the seat to act in a calls phase --------------------------------------------------------

def test_legal_in_a_calls_phase_needs_no_turn_frame(rules, monkeypatch):
    played = _hands(rules, 5, "turn")
    calls = {}

    def counting(self):
        phase = self._now[0]
        calls[phase.kind if phase is not None else None] = calls.get(phase.kind if phase is not None else None, 0) + 1
        return real(self)

    real = Hand._turn
    monkeypatch.setattr(Hand, "_turn", counting)
    for game in played:
        hand = _replayed(rules, game)
        assert hand.result() == game.result() and hand.events == game.events
    assert "calls" not in calls
