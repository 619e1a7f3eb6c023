"""Hand.play_legal (the random player's step: a legal action applied with the announcements the
rules allow, without judging the event again) against the judged path it stands for:
`dict(legal()[i], seat=...)`, allowed_announcements' answer added, then apply()."""

import random

import pytest

from baloot_spec.engine.hand import Hand
from baloot_spec.engine.random_play import _wished, pick, play_random_hand, random_action, random_deck, shuffle
from baloot_spec.rules import load_variant

PRESETS = [("default", None), ("riyadh", None), ("saudi-federation", None),
           ("online-apps", {"late_projects": "until_third_card"})]


def _stepped(rules, seed: str, dealer: str = "N") -> Hand:
    """play_random_hand's hand, played the judged way: random_action's event, then apply()."""
    rng = random.Random(seed)
    hand = Hand(rules, dealer, {"deck": random_deck(rules, rng)}, {"NS": 0, "EW": 0})
    while not hand.is_over():
        hand.apply(random_action(hand, rng))
    return hand


@pytest.mark.parametrize("preset, sets", PRESETS)
def test_the_random_hands_are_those_of_the_judged_path(preset, sets):
    rules = load_variant(preset, sets)
    said = 0
    for number in range(60):
        fast = play_random_hand(rules, random.Random(f"pl{number}"), "N", {"NS": 0, "EW": 0})
        slow = _stepped(rules, f"pl{number}")
        assert fast.events == slow.events
        assert [type(e) for e in fast.events] == [type(e) for e in slow.events]   # (shared events where the judged path shares them)
        assert fast.result() == slow.result()
        said += sum(len(e) > 3 and e["type"] == "play" for e in fast.events)
    assert said > 10   # (announcements were made: the path that checks what is said ran)


@pytest.mark.parametrize("preset, sets", PRESETS[:2])
def test_every_legal_action_with_every_wish_is_what_apply_makes_of_it(preset, sets):
    rules = load_variant(preset, sets)
    rng = random.Random(preset)
    wishes = [None, {}, {"ekka": True}, {"baloot": True, "ekka": True}, {"declare": ["sira"], "ekka": True},
              {"declare": ["sira", "fifty"], "baloot": True}, {"ekka": "yes"}]
    checked = 0
    for _ in range(6):
        hand = Hand(rules, "E", {"deck": random_deck(rules, rng)}, {"NS": 0, "EW": 0})
        while not hand.is_over():
            legal = hand.legal()
            for index, event in enumerate(legal):
                for wished in wishes:
                    fast, slow = hand.copy(), hand.copy()
                    expected = dict(event, seat=hand.turn())
                    if wished is not None and "card" in event:
                        expected.update(slow.allowed_announcements(event["card"], wished))
                    slow.apply(expected)
                    assert fast.play_legal(index, wished) == expected
                    assert fast.events == slow.events and fast.turn() == slow.turn() and fast.legal() == slow.legal()
                    checked += 1
            hand.apply(dict(legal[pick(rng.getrandbits, len(legal))], seat=hand.turn()))
    assert checked > 1000


def test_an_index_out_of_range_is_refused_and_nothing_is_applied():
    rules = load_variant("default")
    hand = Hand(rules, "N", {"deck": random_deck(rules, random.Random(1))}, {"NS": 0, "EW": 0})
    with pytest.raises(IndexError):
        hand.play_legal(len(hand.legal()))
    assert hand.events == []
    over = play_random_hand(rules, random.Random(2), "N")
    with pytest.raises(IndexError):
        over.play_legal(0)


def test_pick_draws_as_choice_does():
    for seed in range(50):
        a, b = random.Random(seed), random.Random(seed)
        for n in (1, 2, 3, 5, 8, 13):
            assert pick(a.getrandbits, n) == b.choice(range(n))
    with pytest.raises(IndexError):
        pick(random.Random(0).getrandbits, 0)


@pytest.mark.parametrize("preset, sets", [PRESETS[0], PRESETS[3]])
def test_play_announcing_is_play_legal_with_the_random_players_wish(preset, sets):
    """At every position of random hands, each legal action: play_announcing with what the seat
    would declare gives the events and the position play_legal gives with the random player's
    whole wish (every yes/no announcement, the projects held)."""
    rules = load_variant(preset, sets)
    rng = random.Random(f"announcing {preset}")
    checked = said = 0
    for _ in range(8):
        hand = Hand(rules, "W", {"deck": random_deck(rules, rng)}, {"NS": 0, "EW": 0})
        while not hand.is_over():
            legal = hand.legal()
            kept = hand.legal(kept_only=True)   # (what the rules keep: a card or a call per legal event)
            assert len(kept) == len(legal) and all((k.text == e["card"]) if "card" in e else (k._event == e)
                                                   for k, e in zip(kept, legal))
            annotations = rules.phases[hand.phase].annotations
            for index in range(len(legal)):
                fast, slow = hand.copy(), hand.copy()
                if annotations:
                    wished = _wished(slow, annotations, slow.turn())
                    lists = {name: value for name, value in wished.items() if type(value) is list}
                    fast.play_announcing(index, {slow.turn(): lists})
                    slow.play_legal(index, wished)
                else:
                    fast.play_announcing(index)
                    slow.play_legal(index)
                assert fast.events == slow.events and [type(e) for e in fast.events] == [type(e) for e in slow.events]
                assert fast.turn() == slow.turn() and fast.legal() == slow.legal()
                said += bool(annotations) and len(fast.events[-1]) > 3
                checked += 1
            hand.apply(dict(legal[pick(rng.getrandbits, len(legal))], seat=hand.turn()))
    assert checked > 500 and said > 5   # (announcements were allowed: the way of play_legal ran)


def test_an_index_out_of_range_is_refused_by_play_announcing():
    rules = load_variant("default")
    hand = Hand(rules, "N", {"deck": random_deck(rules, random.Random(1))}, {"NS": 0, "EW": 0})
    with pytest.raises(IndexError):
        hand.play_announcing(len(hand.legal()))
    assert hand.events == []


def test_shuffle_is_random_shuffle():
    for seed in range(200):
        items = list(range(seed % 40))
        mine, theirs = list(items), list(items)
        shuffle(mine, random.Random(seed).getrandbits)
        random.Random(seed).shuffle(theirs)
        assert mine == theirs


def test_the_random_hands_say_every_announcement_as_the_judged_path_does():
    """Many random hands of the default rules against the judged path, until each announcement
    was made (a Baloot is rare: about one hand in a hundred)."""
    rules = load_variant("default")
    made = {"ekka": 0, "baloot": 0, "declare": 0}
    for number in range(1500):
        fast = play_random_hand(rules, random.Random(f"say{number}"), "S", {"NS": 0, "EW": 0})
        slow = _stepped(rules, f"say{number}", "S")
        assert fast.events == slow.events
        for event in fast.events:
            for name in made:
                made[name] += bool(event.get(name))
        if min(made.values()) >= 3:
            break
    assert min(made.values()) >= 3, made


def test_said_with_is_announced_for_the_random_players_wish():
    """Hand._said_with (every yes/no announcement, and lists of names) against _announced with
    the same wish as a dict, for every held card at every position of random hands of two
    presets where an Ekka and projects are sometimes allowed together (the later one asked with
    the first kept), with the seat's own projects and with made-up ones."""
    from baloot_spec.engine.random_play import _declared
    both = 0
    for preset, sets in (("saudi-federation", None), ("online-apps", {"late_projects": "until_third_card"})):
        rules = load_variant(preset, sets)
        rng = random.Random("said with")
        for _ in range(150):
            hand = Hand(rules, "N", {"deck": random_deck(rules, rng)}, {"NS": 0, "EW": 0})
            while not hand.is_over():
                seat = hand.turn()
                phase, table, _, _, _ = hand._now
                if table is not None and table.play_type:
                    own = _declared(hand.state, ("declare",), seat)
                    for lists in (own, {"declare": ["sira"]}) if own else ({"declare": ["sira"]},):
                        for card in list(hand.state.hands[seat]):
                            kept, chosen = hand._announced(phase, table, seat, table.by_card[card], {**table.all_yes, **lists})
                            said = hand._said_with(phase, table, card, lists)
                            assert (said[1] if said else {}) == kept
                            assert not said or said[0] is chosen
                            both += len(kept) > 1
                legal = hand.legal()
                hand.apply(dict(legal[pick(rng.getrandbits, len(legal))], seat=seat))
    assert both >= 2   # (two announcements kept together)


def test_seeded_is_random_random_of_the_text():
    """random_play.seeded(text): the state random.Random(text) starts from (simulate seeds every
    hand and match with it), on texts of simulate's shape and others (empty, non-ASCII)."""
    from baloot_spec.engine.random_play import seeded
    texts = [f"{seed}:hand:{number}" for seed in (0, 5, 20261201) for number in range(40)]
    texts += [f"3:match:{number}" for number in range(10)] + ["", "é\u2603", "x" * 300]
    for text in texts:
        rng = seeded(text)
        assert type(rng) is random.Random
        assert rng.getstate() == random.Random(text).getstate()
        assert rng.gauss(0, 1) == random.Random(text).gauss(0, 1)


def test_a_random_deck_is_the_shuffled_card_texts():
    for preset in ("default", "nl-rulebook"):
        rules = load_variant(preset)
        for seed in range(20):
            deck = [card.text for card in rules.deck.cards]
            random.Random(seed).shuffle(deck)
            assert random_deck(rules, random.Random(seed)) == deck
