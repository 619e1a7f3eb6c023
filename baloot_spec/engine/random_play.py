"""Random legal play: seeded deals and hands, for simulation, invariant tests and benchmarks."""

from __future__ import annotations

import random

from .hand import Hand


def random_deck(rules, rng: random.Random) -> list[str]:
    deck = [card.text for card in rules.deck.cards]
    rng.shuffle(deck)
    return deck


def random_action(hand: Hand, rng: random.Random) -> dict:
    """A uniformly chosen legal action, with every announcement the rules allow added to a play
    (declare all held projects, Baloot, Ekka), as a careful player would make them."""
    seat = hand.turn()
    action = dict(rng.choice(hand.legal()), seat=seat)
    phase = hand.rules.phases[hand.phase]
    if phase.kind == "tricks":
        for name, default in phase.annotations.items():
            if isinstance(default, bool):
                extra = {name: True}
            else:  # a list announcement: the names of what the player holds (the projects)
                held = [p["name"] for p in (getattr(hand.state, "projects", None) or {}).get(seat, [])]
                extra = {name: held} if held else None
            if extra and hand.announcements_allowed(dict(action, **extra)):
                action.update(extra)
    return action


def play_random_hand(rules, rng: random.Random, dealer: str, match_scores: dict | None = None,
                     deal: dict | None = None, max_events: int = 400) -> Hand:
    """Play one hand to its end with random legal actions; returns the finished Hand."""
    hand = Hand(rules, dealer, deal or {"deck": random_deck(rules, rng)}, match_scores)
    for _ in range(max_events):
        if hand.is_over():
            return hand
        hand.apply(random_action(hand, rng))
    raise RuntimeError(f"the hand did not end within {max_events} events (phase {hand.phase})")
