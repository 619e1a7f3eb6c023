"""Entering and leaving the phases of a hand (Hand's mixin): the generic machinery between the
events, driven by each compiled phase's kind, its enter and exit effects and its `next`.

It runs a few times a hand (six phases entered in a played hand), and each entry is work the
oracle, which has no phases, does not do: what is known when the rules are compiled is read as
a value here (a literal `next` as the phase's `goes_to`; the fixed state's values by the phase's
one getter, `fixed_of`), not worked out per hand (tools/BENCHMARKS.md, step 111).
"""

from __future__ import annotations

from ..errors import RuleRuntimeError
from .candidates import NOWHERE, UNKNOWN
from .scores import OVER
from .state import own_hands


def phases_with(rules, phases: dict, name: str, phase) -> dict:
    """`phases` with `name` as `phase`, a map made once per variant and kept by the rules (their
    `_phase_maps`): never written, so the hands that specialise the same phases alike share it,
    where each hand copied the variant's phases into a dict of its own to write two of them
    (tools/BENCHMARKS.md, step 115). A map a caller gave a hand is kept too (as long as the rules
    are): its id is then never another map's."""
    maps = rules._phase_maps
    key = (name, id(phases), id(phase))
    made = maps.get(key)
    if made is None:   # (a kept entry holds its two maps: no other live object has their ids)
        made = (phases, phase, {**phases, name: phase})
        if len(maps) < _KEPT_MAPS:
            maps[key] = made
    return made[2]


def entered_with(rules, phases: dict, key: tuple) -> tuple:
    """(phases, the phase specialised for `key` = (name, its fixed values), phases_with that
    phase), kept by the rules beside phases_with's entries under (key, id(phases)): what `_enter`
    reads with one lookup where it looked up the specialisation, then its map by three ids."""
    special = rules._specialized.get(key)   # (what specialized() keeps, read without its call)
    if special is None:
        special = rules.specialized(*key)
    made = (phases, special, phases_with(rules, phases, key[0], special))
    maps = rules._phase_maps
    if len(maps) < _KEPT_MAPS:   # (the entry holds `phases`: no other live map has its id)
        maps[key, id(phases)] = made
    return made


_KEPT_MAPS = 4096   # (a variant has a few dozen; past this, a map is made per call and not kept)


class Phases:
    """Hand's phase machinery, over the hand's slots (`state`, `rules`, `deal`, `_phases`: each
    phase as compiled for this hand, a map shared and never written: phases_with), `_tables`, `_now`, `_seat`, `_kept`, `facts`, `_owned`: every
    hand a list of the state's own, see own_hands)."""

    __slots__ = ()

    def phase_rule_id(self) -> str | None:
        """The id of the current phase (what gives the turn), None when the hand is over."""
        return None if self.is_over() else self._phases[self.state.phase].id

    def _enter(self, name: str) -> None:
        if name == OVER:
            return self._end()
        S = self.state
        S.actor = None
        if S._memo:   # (see State: an empty memo is kept)
            S._memo = {}
        phase = self._phases.get(name)
        if phase is None:
            raise RuleRuntimeError("phases", KeyError(f"no phase named {name!r}"))
        S.phase = name
        if phase.on_enter:   # (a phase with no enter effect: its fused function would do nothing)
            phase.effects["enter"](S, None)
        if phase.fixed:   # from here on the phase runs code compiled for these values
            fixed_of = phase.fixed_of   # (one getter: tuple(map(S.__getattribute__, ...)) was ~0.8 µs)
            key = (name, fixed_of(S))
            # (the phase specialised and the hand's map of phases swapped for the one with it:
            # shared, never written; entered_with read without its call, one lookup)
            phases = self._phases
            made = self.rules._phase_maps.get((key, id(phases)))
            if made is None:
                made = entered_with(self.rules, phases, key)
            phase = made[1]
            self._phases = made[2]
        kind = phase.kind
        if kind == "score":
            whole = phase.facts_scored   # (specialised: the facts, the steps and both records from the state)
            if whole is not None:   # (its tables not read: it is left at once; _failed_scoring reads them)
                try:
                    self.facts, self._shown = whole(S)   # (the result itself: engine/scores.py)
                except BaseException:
                    self._failed_scoring(phase, name)
                    raise
                if phase.on_exit or phase.goes_to != OVER:
                    return self._leave(phase)
                # nothing to do on leaving: the end at once, _end written out (no _leave, no _end frame)
                S.actor = None
                if S._memo:   # (scoring fills it)
                    S._memo = {}
                S.phase = OVER
                self._now = NOWHERE
                return
        tables = self._tables   # (_Tables.now's tuple read without its call)
        now = tables._by_phase.get(id(phase))
        if now is None or now[0] is not phase:
            now = tables.now(phase, name)
        self._now = now
        if kind == "calls":   # (_settle written out)
            end = phase.end
            if end(S):
                self._leave(phase)
        elif kind == "deal_rest":
            taker = phase.taker(S)
            if tables.copy_hands:   # (an effect may hold them: see IN_PLACE, state.py)
                S.hands = dict(S.hands)
            dealt = S.dealt
            if dealt is tables.initial_dealt:   # (the variant's, shared: a new dict, made whole)
                S.dealt = self.deal.deal_rest(taker, S.hands)   # (each hand a new list, dealt a copy of it)
            else:   # (a state's own, as a position or a copy gives it: written in place)
                if tables.copy_dealt:
                    S.dealt = dealt = dict(dealt)
                self.deal.deal_rest(taker, S.hands, dealt)
            self._owned = True
            self._leave(phase)
        elif kind == "tricks":
            if not self._owned:   # (no completion has replaced the hands: see own_hands)
                own_hands(S)
                self._owned = True
            leader = phase.leader
            S.leader = leader(S)
        elif kind == "score":   # (not specialised whole: the facts, then the steps)
            rules = self.rules
            values = (phase.facts_all or rules.facts_all)(S)
            scored = phase.scored or rules.scored   # (the facts and score records, the steps in between)
            if scored is None:
                self.facts = rules.facts_of(values)
                self.score = rules.score_of(rules.steps_all(values))
            else:
                try:
                    self.facts, self.score = scored(values)
                except BaseException:   # (a step failed: the facts were already there)
                    self.facts = rules.facts_of(values)
                    raise
            self._leave(phase)

    def _failed_scoring(self, phase, name: str) -> None:
        """Still in the phase, with its tables; its facts if they can be made (a step failed), else none."""
        self._now = self._tables.now(phase, name)
        try:
            self.facts = self.rules.facts_of((phase.facts_all or self.rules.facts_all)(self.state))
        except BaseException:
            pass

    def _resume(self, name: str, enter: bool) -> None:
        """Be in phase `name` with the state as a position set it (engine/position.py): entered as
        usual (its entry effects run), or with enter=False as it stands (the position carries
        what the entry effects set)."""
        if enter:
            self._enter(name)
        else:
            S = self.state
            S.actor = None
            if S._memo:   # (see State: an empty memo is kept)
                S._memo = {}
            S.phase = name
            phase = self._phases[name]
            if phase.fixed:
                phase = self.rules.specialized(name, phase.fixed_of(S))
                self._phases = phases_with(self.rules, self._phases, name, phase)
            if phase.kind == "tricks":
                own_hands(S)
                self._owned = True
            self._now = self._tables.now(phase, name)
        self._seat = UNKNOWN
        self._kept = None

    def _settle(self) -> None:
        S = self.state
        phase = self._now[0]
        end = phase.end
        if phase.kind == "calls" and end(S):
            self._leave(phase)

    def _leave(self, phase) -> None:
        S = self.state
        if S.actor is not None:
            S.actor = None
            if S._memo:   # (see State: an empty memo is kept)
                S._memo = {}
        if phase.on_exit:
            phase.effects["exit"](S, None)
        following = phase.goes_to   # (a literal `next`, read: no call)
        if following is None:
            following = phase.next
            following = following(S)   # (names its phase if it fails)
        if following == OVER:
            return self._end()   # (not through _enter: a frame fewer)
        self._enter(following)

    def _end(self) -> None:
        """The hand over: no actor, an empty memo, no phase's tables (written out once, in _enter's
        scoring, the way every played hand ends)."""
        S = self.state
        S.actor = None
        if S._memo:   # (see State: an empty memo is kept)
            S._memo = {}
        S.phase = OVER
        self._now = NOWHERE

    def _set_actor(self, seat) -> None:
        S = self.state
        if S.actor != seat:
            S.actor = seat
            if S._memo:   # (see State: an empty memo is kept)
                S._memo = {}
