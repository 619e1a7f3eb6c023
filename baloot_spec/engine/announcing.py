"""The questions a player choosing among legal actions asks of a hand: whether what it would say
with a card (Ekka, Baloot, its projects) is allowed. Answered by the phase's compiled `require`
check of the shared actions the candidate tables hold, never by judging a whole event: building
the action anew for each question was half of a simulated hand (tools/BENCHMARKS.md, step 73).

A mixin of Hand (engine/hand.py): its methods read the hand's position as Hand keeps it."""

from __future__ import annotations

from ..errors import IllegalAction
from .candidates import UNKNOWN, announced_action, card_action

_STR_ONLY = {str}


def whole_wish(table, lists: dict) -> dict:
    """The random player's whole wish: every yes/no announcement, and the lists (copied)."""
    wished = {**table.all_yes}
    for name, names in lists.items():
        wished[name] = [*names]   # (the event keeps its own list)
    return wished


class Announcing:
    """Hand's announcement questions (see the module's docstring)."""

    __slots__ = ()

    def announcements_allowed(self, event: dict) -> bool:
        """Whether what is said with an action the player may take is allowed (the `require`
        rules only: a cheap question for a player choosing among legal actions).

        A card said with announcements is the shared action `card_action` makes once per variant
        (as the judgement finds it), asked of the phase's compiled check: building the action
        anew for each question was half of a simulated hand (tools/BENCHMARKS.md, step 73)."""
        phase, table, _, _, _ = self._now
        seat = self.turn()
        if phase is None or seat is None or event.get("seat") != seat:
            return False
        self._set_actor(seat)
        if table.play_type:
            try:
                target = card_action(phase, table, event)
            except (KeyError, TypeError):   # (an unhashable card: the slow path says what is wrong)
                target = None
            if target is not None and target.card in self.state.hands[seat]:
                check = phase.check
                return check(self.state, target) < 0
        try:
            return self._check_announcements(phase, self._action_of(phase, event), explain=False) is None
        except IllegalAction:
            return False

    def allowed_announcements(self, card: str, wished: dict) -> dict:
        """Of the announcements `wished` (annotation name -> value) with a play of `card` by the
        seat to act, those the `require` rules allow, taken in the phase's order of annotations,
        each kept if allowed together with the ones kept before it: what asking
        announcements_allowed once per announcement, adding each one allowed, gives. {} when no
        card is to be played, `card` is not held, or a value is not of its annotation's type.

        One question a play for the random player instead of one per announcement, each asked
        of the shared action for the card and the values so far (tools/BENCHMARKS.md, step 74)."""
        seat = self._seat
        if seat is UNKNOWN:
            seat = self.turn()
        phase, table, _, _, _ = self._now
        if seat is None or table is None or not table.play_type:
            return {}
        try:
            base = table.by_signature[card]
        except (KeyError, TypeError):   # (not a card of the deck; a list is unhashable)
            return {}
        if base.card not in self.state.hands[seat]:
            return {}
        return self._announced(phase, table, seat, base, wished)[0]

    def play_announcing(self, index: int, declared: dict | None = None) -> None:
        """What play_legal(index, wished) does for the random player's wish: every yes/no
        announcement said true and, for a list one, the names `declared[seat]` gives for the
        seat to act (seat -> {annotation name: a non-empty list of str}; a list one left out is
        not said). Returns nothing.

        While nothing is kept, each yes/no announcement is asked of the phase's check as the
        card's shared action with it said alone (made per table; not asked where the phase's
        refusal guard says a check refuses it whatever the position), and a card said with nothing
        is applied without an event built: the log keeps the candidate's shared event. With a
        list to say, the wish is read in the annotations' order without a wish dict
        (_said_with); a yes/no one allowed with no list goes the way of play_legal
        (tools/BENCHMARKS.md, steps 82 and 86)."""
        kept = self._kept
        if kept is None:
            kept = self.legal(True)
        phase, table, quiet_checks, _, refused_alone = self._now
        if table is None or not table.play_type:
            self.play_legal(index)
            return
        card = kept[index]
        seat = self._seat
        S = self.state
        if S.actor != seat:   # (Hand._set_actor, written out: this runs at every card of a simulated hand)
            S.actor = seat
            if S._memo:   # (see State: an empty memo is kept)
                S._memo = {}
        check = phase.check
        action = table.by_card[card]
        lists = None if declared is None else declared[seat]
        if lists:
            said = self._said_with(phase, table, card, lists)
            if said is None:   # (a name that is not text: what play_legal makes of it)
                self.play_legal(index, whole_wish(table, lists))
                return
            if said:
                chosen, said = said
                self.apply({**action._event, "seat": seat, **said}, _judged=(phase, chosen, False))
                return
        else:
            for said in table.yes_alone[card]:
                if said not in refused_alone and check(S, said) < 0:   # (allowed: play_legal keeps it, and asks the rest with it)
                    self.play_legal(index, table.all_yes)
                    return
        if not quiet_checks[action._at] and check(S, action) >= 0:
            self._check_announcements(phase, action)   # raises, explained
        # (the candidate's own card with nothing said: apply reads only the seat of the event)
        self.apply({"seat": seat}, _judged=(phase, action, True))

    def _said_with(self, phase, table, card, lists: dict):
        """_announced for the wish of every yes/no announcement and `lists` (name -> names), read
        without the wish dict: (the shared action of what is kept, {name: value kept}), () when
        nothing is, None for a list whose names are not all text (play_legal then explains).
        Written out again in random_cards.play_random_cards (step 120): change both;
        tests/test_random_cards.py holds the loop to play_announcing."""
        S = self.state
        check = phase.check
        refused_alone = self._now[4]
        unsaid = values = table.default_values
        row = table.alone_actions[card]
        announced = table.announced
        chosen, kept = None, {}
        for place, name, yes_no in table.annotation_slots:
            if yes_no:
                if values is unsaid:   # (nothing kept yet: the action made per table)
                    action = row[place][True]
                    if action not in refused_alone and check(S, action) < 0:
                        values = table.said_alone[place, True]
                        kept[name] = True
                        chosen = action
                    continue
                said = True
            else:
                names = lists.get(name)
                if names is None:
                    continue
                if type(names) is not list or (names and set(map(type, names)) != _STR_ONLY):
                    return None
                said = tuple(names)
            trial = (*values[:place], said, *values[place + 1:])
            action = announced.get((card, trial))
            if action is None:
                action = table.by_card[card] if trial == unsaid else announced_action(phase, table, card, trial)
            if check(S, action) < 0:
                values, chosen = trial, action
                kept[name] = True if yes_no else [*names]   # (the event keeps its own list)
        return (chosen, kept) if kept else ()

    def _announced(self, phase, table, seat, base, wished: dict) -> tuple:
        """(allowed_announcements' answer, the shared action of the card said with them) for the
        held card whose candidate is `base`; ({}, None) for a value not of its annotation's type.
        The action passed the phase's check when anything was kept (Hand.play_legal applies it
        without judging it again)."""
        S = self.state
        card = base.card
        self._set_actor(seat)
        check = phase.check
        refused_alone = self._now[4]
        announced = table.announced
        unsaid = values = table.default_values
        alone = table.said_alone
        kept = {}
        chosen = base
        row = table.alone_actions[card]
        for index, name, yes_no in table.annotation_slots:
            if name not in wished:
                continue
            value = wished[name]
            if yes_no:
                if value is not True and value is not False:
                    return {}, None
                if values is unsaid:   # (nearly always: nothing kept yet; the action made per table)
                    action = row[index][value]
                    if action not in refused_alone and check(S, action) < 0:
                        values = alone[index, value]
                        kept[name] = value
                        chosen = action
                    continue
                said = value
            elif type(value) is list and (not value or set(map(type, value)) == _STR_ONLY):
                said = tuple(value)
            else:
                return {}, None
            trial = (*values[:index], said, *values[index + 1:])
            action = announced.get((card, trial))
            if action is None:
                action = base if trial == unsaid else announced_action(phase, table, card, trial)
            if check(S, action) < 0:
                values = trial
                kept[name] = value
                chosen = action
        return kept, chosen
