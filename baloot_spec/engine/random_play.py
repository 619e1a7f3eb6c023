"""Random legal play: seeded deals and hands, for simulation, invariant tests and benchmarks."""

from __future__ import annotations

import random
from _random import Random as _Generator
from hashlib import sha512

from .hand import OVER, Hand, match_step


def seeded(text: str) -> random.Random:
    """`random.Random(text)`, in the same state (Random.seed's version 2 for a str: the text's
    UTF-8 bytes followed by their sha512, read as one int, seeds the generator), without the two
    Python frames of Random.__init__ and Random.seed: a simulated hand makes one (a test holds it
    to random.Random on many texts; tools/BENCHMARKS.md, step 92)."""
    rng = _NEW(random.Random)
    data = text.encode()
    _SEED(rng, int.from_bytes(data + sha512(data).digest()))
    rng.gauss_next = None
    return rng


_NEW = random.Random.__new__
_SEED = _Generator.seed   # (the C generator's own seed, which Random.seed ends with: `super().seed(a)`)


def random_deck(rules, rng: random.Random) -> list[str]:
    """The deck's cards in the order `rng.shuffle` puts them (the same seeded stream)."""
    deck, texts = rules.deck.cards, rules.deck.exact   # (a card's text -> the card, in the deck's order)
    deck = [*texts] if len(texts) == len(deck) else [card.text for card in deck]
    shuffle(deck, rng.getrandbits)
    return deck


def shuffle(items: list, getrandbits) -> None:
    """`random.Random.shuffle` written out with pick() inlined: the same swaps from the same
    draws (a test holds it to shuffle), without two Python calls a card (tools/BENCHMARKS.md,
    step 82); each place's range and bits read from a table made once per length."""
    steps = _SHUFFLES.get(len(items))
    if steps is None:
        steps = _SHUFFLES[len(items)] = tuple((i, i + 1, (i + 1).bit_length()) for i in range(len(items) - 1, 0, -1))
    for i, n, k in steps:
        j = getrandbits(k)
        while j >= n:
            j = getrandbits(k)
        items[i], items[j] = items[j], items[i]


_SHUFFLES: dict = {}   # a length -> shuffle's (place, its range, the bits drawn for it), in shuffle's order


def random_action(hand: Hand, rng: random.Random) -> dict:
    """A uniformly chosen legal action, with every announcement the rules allow added to a play
    (declare all held projects, Baloot, Ekka), as a careful player would make them."""
    seat = hand.turn()
    legal = hand.legal()
    action = dict(legal[pick(rng.getrandbits, len(legal))], seat=seat)
    annotations = hand.rules.phases[hand.phase].annotations   # (none but in a trick phase)
    if annotations:
        # (each kept if allowed with those kept before it: one question, not one per announcement)
        action.update(hand.allowed_announcements(action["card"], _wished(hand, annotations, seat)))
    return action


def pick(getrandbits, n: int) -> int:
    """A uniform index below n > 0 drawn as `random.Random.choice` draws it (its `_randbelow`:
    the fewest bits that hold n, drawn again while the number is n or more), so that the seeded
    hands stay the same; written out so that the random player's loop can inline it."""
    if n <= 0:
        raise IndexError("no legal action to choose from")
    k = n.bit_length()
    r = getrandbits(k)
    while r >= n:
        r = getrandbits(k)
    return r


def _wished(hand: Hand, annotations: dict, seat: str) -> dict:
    """What the random player says with a card in a phase of these annotations: every yes/no
    announcement, and for a list one the names of what the seat holds (the projects). Read only
    (the same dict for every card when there is nothing to add)."""
    known = _WISHES.get(id(annotations))
    if known is None or known[0] is not annotations:
        known = _wishes(annotations)
    _, wished, lists = known
    if lists:
        declared = _declared(hand.state, lists, seat)
        if declared:
            wished = {**wished, **declared}
    return wished


def _declared(state, lists: tuple, seat: str) -> dict:
    """For each list announcement of `lists`, the names of the projects the seat holds, where it
    holds any (a list announcement is what the seat declares of its projects)."""
    declared = {}
    for name in lists:
        try:
            found = state.projects[seat]
        except (AttributeError, KeyError, TypeError):   # (no projects, or none for this seat)
            continue
        if found:
            declared[name] = [p["name"] for p in found]
    return declared


class _Declared(dict):
    """seat -> what it would declare (_declared), each seat's worked out when first asked."""

    __slots__ = ("_state", "_lists")

    def __init__(self, state, lists: tuple):
        super().__init__()
        self._state, self._lists = state, lists

    def __missing__(self, seat):
        value = self[seat] = _declared(self._state, self._lists, seat)
        return value


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
    """Play one hand to its end with random legal actions; returns the finished Hand.

    Each step is random_action's choice, applied by `Hand.play_legal` (the action is one of the
    legal ones: nothing to judge but what is said; tools/BENCHMARKS.md, step 79), a card by
    `Hand.play_announcing` (the same, for the random player's wish; step 82); the cards of a
    trick phase are played by `Hand.play_random_cards`, many in one call (step 92), and the calls
    of a calls phase by `Hand.play_random_calls` (step 120)."""
    hand = Hand(rules, dealer, deal or {"deck": random_deck(rules, rng)}, match_scores)
    getrandbits = rng.getrandbits
    S, phases = hand.state, rules.phases
    play_calls, play_cards = hand.play_random_calls, hand.play_random_cards
    # what each seat would declare (_Declared), while the phase's annotations and the state's
    # projects are these: worked out once per seat, not once per card
    annotations = projects = declared = None
    lists = ()
    done = 0
    while done < max_events:
        phase = S.phase
        if phase == OVER:
            return hand
        said = phases[phase].annotations
        if not said:   # (the calls of a calls phase in one frame: play_random_calls)
            done += play_calls(getrandbits, max_events - done)
            continue
        if said is not annotations:
            annotations, lists, projects, declared = said, _wishes(said)[2], None, None
        if lists:
            found = getattr(S, "projects", None)
            if found is not projects or declared is None:
                projects, declared = found, _Declared(S, lists)
        # (the cards of a trick phase in one frame, until something may change the wish)
        done += play_cards(getrandbits, declared, max_events - done)
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
