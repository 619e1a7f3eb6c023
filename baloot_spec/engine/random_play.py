"""Random legal play: seeded deals and hands, for simulation, invariant tests and benchmarks."""

from __future__ import annotations

import random

from .hand import Hand, match_step


def random_deck(rules, rng: random.Random) -> list[str]:
    deck = [card.text for card in rules.deck.cards]
    rng.shuffle(deck)
    return deck


def random_action(hand: Hand, rng: random.Random) -> dict:
    """A uniformly chosen legal action, with every announcement the rules allow added to a play
    (declare all held projects, Baloot, Ekka), as a careful player would make them."""
    seat = hand.turn()
    action = dict(rng.choice(hand.legal()), seat=seat)
    annotations = hand.rules.phases[hand.phase].annotations   # (none but in a trick phase)
    if annotations:
        _, yes_no, lists = _wishes(annotations)
        wished = {**yes_no}   # every yes/no announcement said
        for name in lists:   # a list announcement: the names of what the player holds (the projects)
            try:
                found = hand.state.projects[seat]
            except (AttributeError, KeyError, TypeError):   # (no projects, or none for this seat)
                continue
            held = [p["name"] for p in found]
            if held:
                wished[name] = held
        # (each kept if allowed with those kept before it: one question, not one per announcement)
        action.update(hand.allowed_announcements(action["card"], wished))
    return action


def _wishes(annotations: dict) -> tuple:
    """(annotations, {name: True} for each yes/no announcement, the names of the list ones), made
    once per phase's annotations (the random player's wishes, in the order they are declared)."""
    known = _WISHES.get(id(annotations))
    if known is None or known[0] is not annotations:
        known = _WISHES[id(annotations)] = (
            annotations, {name: True for name, default in annotations.items() if isinstance(default, bool)},
            tuple(name for name, default in annotations.items() if not isinstance(default, bool)))
    return known


_WISHES: dict = {}   # id(annotations) -> _wishes(annotations); the dict itself kept, so the id stays its own


def play_random_hand(rules, rng: random.Random, dealer: str, match_scores: dict | None = None,
                     deal: dict | None = None, max_events: int = 400) -> Hand:
    """Play one hand to its end with random legal actions; returns the finished Hand."""
    hand = Hand(rules, dealer, deal or {"deck": random_deck(rules, rng)}, match_scores)
    for _ in range(max_events):
        if hand.is_over():
            return hand
        hand.apply(random_action(hand, rng))
    raise RuntimeError(f"the hand did not end within {max_events} events (phase {hand.phase})")


def play_random_match(rules, rng: random.Random, dealer: str, max_hands: int = 300):
    """Play one match from 0 : 0 with random legal actions, the deal passing as the rules say.

    Yields (hand, scores before it, match step values or None for a thrown-in hand) per hand;
    stops when the match rules end it, or after max_hands (the caller can tell: the last values
    yielded do not say `ended`)."""
    scores = {team: 0 for team in rules.table.teams}
    for _ in range(max_hands):
        hand = play_random_hand(rules, rng, dealer, scores)
        result = hand.result()
        dealer = result["next_dealer"]
        values = None if result["thrown_in"] else match_step(rules, scores, result)
        yield hand, scores, values
        if values is not None:
            scores = dict(values["new_scores"])
            if values["ended"]:
                return
