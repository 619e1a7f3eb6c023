"""The random player's loop, step 120: Hand.play_random_calls (the calls of a calls phase in one
frame) against the step it stands for (an index drawn among legal(True) as random.Random.choice
draws it, then play_legal(index)), and play_random_cards' per-phase table (_per_phase), which
answers a card's three questions (anything asked of it, a check, an action effect) by one lookup.
The same events (shared where shared), position and seeded draws as the general way."""

import random

import pytest

from baloot_spec.engine.hand import Hand
from baloot_spec.engine.random_cards import _NO_PLAYS, _asked_alone, _per_phase
from baloot_spec.engine.random_play import pick, play_random_hand, random_deck
from baloot_spec.rules import load_variant

from test_random_cards import PRESETS, _forked, _same

PRESETS5 = PRESETS + [("nl-rulebook", None)]


def _stepped(hand, rng, budget: int) -> None:
    """`budget` steps of the random player's calls as they were: legal(True), pick, play_legal."""
    for _ in range(budget):
        hand.play_legal(pick(rng.getrandbits, len(hand.legal(True))))


@pytest.mark.parametrize("preset, sets", PRESETS5)
def test_play_random_calls_is_the_random_players_steps(preset, sets):
    rules = load_variant(preset, sets)
    rng = random.Random(f"calls {preset}")
    runs = checked = 0
    for _ in range(30):
        hand = Hand(rules, "S", {"deck": random_deck(rules, rng)}, {"NS": 0, "EW": 0})
        while not hand.is_over():
            if not rules.phases[hand.phase].annotations:
                for budget in (1, 2, 40):
                    fast, slow, fast_rng, slow_rng = _forked(hand, rng)
                    phase = fast.phase
                    done = fast.play_random_calls(fast_rng.getrandbits, budget)
                    assert 1 <= done <= budget
                    assert done == budget or fast.phase != phase or fast._now[0] is not hand._now[0]
                    _stepped(slow, slow_rng, done)
                    _same(fast, slow)
                    assert fast.state.actor == slow.state.actor and fast._kept == slow._kept
                    assert fast_rng.getstate() == slow_rng.getstate()   # (the same draws)
                    runs += done > 2
                    checked += 1
            legal = hand.legal()
            hand.apply(dict(legal[pick(rng.getrandbits, len(legal))], seat=hand.turn()))
    assert checked > 100 and runs > 20   # (many calls in one call: the loop ran)


def test_play_random_calls_in_a_trick_phase_plays_one_action_as_play_legal():
    rules = load_variant("default")
    rng = random.Random("one")
    hand = Hand(rules, "N", {"deck": random_deck(rules, rng)})
    while not rules.phases[hand.phase].annotations:
        hand.play_legal(pick(rng.getrandbits, len(hand.legal(True))))
    fast, slow, fast_rng, slow_rng = _forked(hand, rng)
    assert fast.play_random_calls(fast_rng.getrandbits, 40) == 1
    _stepped(slow, slow_rng, 1)
    _same(fast, slow)


@pytest.mark.parametrize("preset, sets", PRESETS5)
def test_the_random_players_calls_skip_play_legal_where_nothing_is_checked(monkeypatch, preset, sets):
    """The mechanism: a call no check and no action effect of its phase applies to is applied by
    play_random_calls itself; only the others go through play_legal. The hands are the same."""
    rules = load_variant(preset, sets)
    want = [play_random_hand(rules, random.Random(seed), "E").events for seed in range(20)]
    general = []
    original = Hand.play_legal

    def counted(self, index, wished=None):
        general.append(self._now[0].kind)
        return original(self, index, wished)

    monkeypatch.setattr(Hand, "play_legal", counted)
    got = [play_random_hand(rules, random.Random(seed), "E") for seed in range(20)]
    assert [hand.events for hand in got] == want
    calls = sum("card" not in event for hand in got for event in hand.events)
    assert calls > 40
    assert general.count("calls") < calls / 2   # (before step 120: every call went through play_legal)


@pytest.mark.parametrize("preset, sets", PRESETS5)
def test_a_cards_per_phase_table_is_its_three_questions(preset, sets):
    """_per_phase: per compiled phase's flags, card -> its candidate's own Plays (the dict the
    Plays are made into) exactly where nothing is asked of the card (_asked_alone) and the phase's
    flags say no check and no action effect applies to it, else the empty dict never written;
    made once."""
    rules = load_variant(preset, sets)
    rng = random.Random("per phase")
    seen, quick_seen = set(), 0
    for _ in range(60):
        hand = Hand(rules, "N", {"deck": random_deck(rules, rng)}, {"NS": 0, "EW": 0})
        while not hand.is_over():
            now = hand._now
            phase, table, quiet_checks, quiet_effects, refused = now
            if table is not None and table.play_type and id(now) not in seen:
                seen.add(id(now))
                asked, quick = _per_phase(table, now)
                assert asked is _asked_alone(table, refused)
                again = _per_phase(table, now)
                assert again[0] is asked and again[1] is quick
                assert quick.keys() == table.by_card.keys()
                for card, action in table.by_card.items():
                    if not asked[card] and quiet_checks[action._at] and quiet_effects[action._at]:
                        assert quick[card] is action._plays
                        quick_seen += 1
                    else:
                        assert quick[card] is _NO_PLAYS
            legal = hand.legal()
            hand.apply(dict(legal[pick(rng.getrandbits, len(legal))], seat=hand.turn()))
    assert seen and quick_seen and not _NO_PLAYS


def test_no_legal_action_is_an_error_not_an_endless_draw():
    """An empty legal set (none in real rules; here forced) raises, in both loops, before any bit
    of the stream is drawn: getrandbits(0) is 0, which is not below 0."""
    rules = load_variant("default")
    rng = random.Random("empty")
    hand = Hand(rules, "N", {"deck": random_deck(rules, rng)})
    hand.legal(True)
    hand._kept = []
    state = rng.getstate()
    with pytest.raises(RuntimeError, match="no legal action in the"):
        hand.play_random_calls(rng.getrandbits, 5)
    assert rng.getstate() == state
    while not rules.phases[hand.phase].annotations:
        hand._kept = None
        hand.play_legal(pick(rng.getrandbits, len(hand.legal(True))))
    hand.legal(True)
    hand._kept = []
    state = rng.getstate()
    with pytest.raises(RuntimeError, match="no legal action in the"):
        hand.play_random_cards(rng.getrandbits, None, 5)
    assert rng.getstate() == state
