"""The random player's cards, played in one Python frame: while a trick phase runs, each card is
drawn among what the rules keep and, where nothing is said with it and no rule's action effect
applies to it, put into the trick here (the trick closed here at its last card), with the
phase's tables read once for the whole phase.

Why: the random player's step went through three calls a card (`legal`, `play_announcing`,
`apply`), each unpacking the position again; a card said with nothing was about 350 bytecodes of
that glue (tools/BENCHMARKS.md, step 92). Anything else (a card said with something, an action
effect, a card whose Play is not made yet, a phase whose tables do not allow it) goes the way it
went before, by `play_announcing`'s questions, `play_legal` or `apply`, so the events, the log and
the seeded draws are the same.

The calls of a calls phase go the same way (`play_random_calls`): each drawn among legal(True)
and, where no check and no action effect of the phase can apply to it, applied here as apply
applies a call the judgement has found (its shared logged event, the phase's end asked); else by
play_legal, as before (tools/BENCHMARKS.md, step 120).

A mixin of Hand (engine/hand.py): its methods read the hand's position as Hand keeps it."""

from __future__ import annotations

from operator import attrgetter

from .announcing import whole_wish
from .candidates import UNKNOWN, announced_action, seat_event
from .state import Trick

_NEW = object.__new__   # (a finished trick, its fields then set as Trick.__init__ sets them)
_CARD_OF = attrgetter("card")
_STR_ONLY = {str}   # (a list announcement's names: each exactly a str, as _said_with asks)


class RandomCards:
    """Hand's random player's loop over a trick phase (see the module's docstring)."""

    __slots__ = ()

    def play_random_cards(self, getrandbits, declared=None, budget: int = 1) -> int:
        """Play up to `budget` random legal actions while the current phase lasts, as the random
        player of engine/random_play.py does: each an index drawn among `legal(True)` as
        `random.Random.choice` draws it (`getrandbits` of the seeded stream), then
        `play_announcing(index, declared)`. Returns how many were played (at least one); it
        stops early where the phase, or what a seat would declare, may have changed."""
        phase, table, quiet_checks, quiet_effects, refused_alone = self._now
        tables = self._tables
        if table is None or not table.play_type or not phase.narrow_over_cards or not tables.in_place:
            n = len(self.legal(True))
            if not n:
                raise RuntimeError(f"no legal action in the {self.state.phase} phase")
            k = n.bit_length()
            index = getrandbits(k)
            while index >= n:
                index = getrandbits(k)
            if table is not None and table.play_type:
                self.play_announcing(index, declared)
            else:
                self.play_legal(index)
            return 1
        S = self.state
        narrows, check, winner_of = phase.narrows, phase.check, phase.winner
        by_card, (asked, quick) = table.by_card, _per_phase(table, self._now)
        # (what _said_with reads, for a seat with lists to declare)
        unsaid, slots, said_alone = table.default_values, table.annotation_slots, table.said_alone
        alone_actions, announced = table.alone_actions, table.announced
        next_seat, seats = tables.next_seat, self._n_seats
        if declared is None:
            declared = dict.fromkeys(next_seat)   # (no seat declares anything)
        log = self.events.append
        # (a tricks phase's own: nothing here makes them anew, IN_PLACE; the trick is made anew
        # here only, at its last card)
        hands, played, trick = S.hands, S.played, S.trick
        # (kept only here, and in the hand where play_legal reads it)
        kept, self._kept = self._kept, None
        seat = self.turn()
        if S.actor != seat:
            S.actor = seat
            if S._memo:   # (see State: an empty memo is kept)
                S._memo = {}
        done = 0
        for done in range(1, budget + 1):
            # (the seat to act; the memo is empty here after a card: emptied when it was played)
            S.actor = seat
            if kept is None:   # (legal(True) of a phase whose rules look at the cards alone)
                kept = narrows[len(trick)](S, hands[seat])   # (as legal() takes it: CURRENT_TRICK, engine/state.py)
                if kept is None:
                    kept = self._kept_cards(phase)
            n = len(kept)
            k = n.bit_length()   # (random_play.pick, inlined)
            index = getrandbits(k)
            while index >= n:   # (and for n = 0: getrandbits(0) is 0)
                if not n:
                    raise RuntimeError(f"no legal action in the {S.phase} phase")
                index = getrandbits(k)
            card = kept[index]
            lists = declared[seat]
            # (a card nothing is asked of, no check and no action effect applies to: its Play
            # for the seat, if made; _per_phase)
            play = None if lists else quick[card].get(seat)
            if play is None:
                action = by_card[card]
                if lists:   # (projects to declare: play_announcing's way, its _said_with written out)
                    values, chosen, said, row = unsaid, None, {}, alone_actions[card]
                    for place, name, yes_no in slots:
                        if yes_no:
                            if values is unsaid:   # (nothing kept yet: the action made per table)
                                trial = row[place][True]
                                if trial not in refused_alone and check(S, trial) < 0:
                                    values, chosen, said[name] = said_alone[place, True], trial, True
                                continue
                            value = True
                        else:
                            value = lists.get(name)
                            if value is None:
                                continue
                            if type(value) is not list or (value and set(map(type, value)) != _STR_ONLY):
                                # (a name that is not text: what play_legal makes of it)
                                self._kept = kept
                                self.play_legal(index, whole_wish(table, lists))
                                return done
                            value = tuple(value)
                        trial = (*values[:place], value, *values[place + 1:])
                        found = announced.get((card, trial))
                        if found is None:
                            found = action if trial == unsaid else announced_action(phase, table, card, trial)
                        if check(S, found) < 0:
                            values, chosen = trial, found
                            said[name] = True if yes_no else [*value]   # (the event keeps its own list)
                    if said:
                        self.apply({**action._event, "seat": seat, **said}, _judged=(phase, chosen, False))
                        return done
                else:
                    for said in asked[card]:
                        if check(S, said) < 0:   # (allowed: said with the card)
                            self._kept = kept
                            self.play_legal(index, table.all_yes)
                            return done
                if not quiet_checks[action._at] and check(S, action) >= 0:
                    self._check_announcements(phase, action)   # raises, explained
                play = action._plays.get(seat)
                if play is None or not quiet_effects[action._at]:
                    self.apply({"seat": seat}, _judged=(phase, action, True))
                    return done
            # (what apply does with the candidate's own card, nothing said, no effect: IN_PLACE, state.py)
            kept = None
            hands[seat].remove(card)
            trick.append(play)
            played.append(card)
            if S._memo:   # (see State: an empty memo is kept)
                S._memo = {}
            if len(trick) < seats:
                seat = self._seat = next_seat[seat]
                log(play._event)
                continue
            self._seat = UNKNOWN   # (the trick's last card)
            winner = winner_of(S)
            closed = _NEW(Trick)   # (Trick(...) written out, as in Hand.apply)
            closed.leader = trick[0].seat
            closed.plays = trick
            closed.winner = winner
            closed.cards = [*map(_CARD_OF, trick)]
            S.tricks.append(closed)
            S.trick = trick = []
            S.leader = winner
            if S._memo:   # (see State: an empty memo is kept)
                S._memo = {}
            if any(hands.values()):
                seat = self._seat = winner
                log(play._event)
                continue
            self._leave(phase)
            log(play._event)
            return done
        self._kept = kept
        return done

    def play_random_calls(self, getrandbits, budget: int = 1) -> int:
        """Play up to `budget` random legal actions of a calls phase, as the random player of
        engine/random_play.py does: each an index drawn among `legal(True)` as
        `random.Random.choice` draws it, then `play_legal(index)`. Returns how many were played
        (at least one); it stops where the phase ends."""
        phase, table, quiet_checks, quiet_effects, _ = self._now
        S = self.state
        if table is None or table.play_type or phase.kind != "calls":   # (play_legal's way, one action)
            n = len(self.legal(True))
            if not n:
                raise RuntimeError(f"no legal action in the {S.phase} phase")
            k = n.bit_length()
            index = getrandbits(k)
            while index >= n:
                index = getrandbits(k)
            self.play_legal(index)
            return 1
        log, turn, narrow, end, calls = self.events.append, phase.turn, phase.narrow, phase.end, table.calls
        done = 0
        for done in range(1, budget + 1):
            kept = self._kept
            if kept is None:   # (legal(True) of a calls phase, written out)
                seat = self._seat
                if seat is UNKNOWN:
                    seat = self._seat = turn(S)   # (names its phase if it fails)
                if seat is not None:
                    if S.actor != seat:
                        S.actor = seat
                        if S._memo:   # (see State: an empty memo is kept)
                            S._memo = {}
                    kept = narrow(S, calls)
                if kept is None:   # (no seat to act, or a rule failed: legal() says which)
                    kept = self.legal(True)
                self._kept = kept
            n = len(kept)
            k = n.bit_length()   # (random_play.pick, inlined)
            index = getrandbits(k)
            while index >= n:   # (and for n = 0: getrandbits(0) is 0)
                if not n:
                    raise RuntimeError(f"no legal action in the {S.phase} phase")
                index = getrandbits(k)
            action = kept[index]
            made = action._logged   # (a candidate's shared event per seat; None: not a candidate)
            if made is None or not quiet_checks[action._at]:
                self.play_legal(index)   # (a check to ask, or not a candidate: the general way)
                if self._now[0] is not phase:
                    return done
                continue
            # (apply's call, judged: the candidate's own event, which play_legal makes equal to the
            # shared one, logged; the seat to act is S.actor already, set with the legal set)
            seat = self._seat
            logged = made.get(seat)
            if logged is None:
                logged = made[seat] = seat_event(action, seat)
            self._kept = None
            self._seat = UNKNOWN
            if S._memo:   # (see State: an empty memo is kept)
                S._memo = {}
            if not quiet_effects[action._at]:
                phase.effects["action"](S, action)
            if end(S):
                self._leave(phase)
                log(logged)
                return done
            log(logged)
        return done


def _per_phase(table, now: tuple) -> tuple:
    """(_asked_alone's table, card -> its candidate's Plays by seat, or an empty dict where a card
    is asked something, or a check or an action effect may apply to it), per compiled phase's
    flags (`Hand._now`): the three questions of a card answered by one lookup, made once. Kept in
    the table (`random_plays`), so it lives as long as the variant."""
    known = table.random_plays.get(id(now))
    if known is None or known[0] is not now:
        _, _, quiet_checks, quiet_effects, refused = now
        asked = _asked_alone(table, refused)
        quick = {card: (action._plays if not asked.get(card) and quiet_checks[action._at] and quiet_effects[action._at]
                        else _NO_PLAYS) for card, action in table.by_card.items()}
        known = table.random_plays[id(now)] = (now, asked, quick)
    return known[1:]


_NO_PLAYS: dict = {}   # (never written: the Plays of a card that goes the general way)


def _asked_alone(table, refused: frozenset) -> dict:
    """card -> its shared actions said with one yes/no announcement alone that the phase's
    refusal guard does not refuse (the ones a check is asked of), per candidate table and refused
    set (one per compiled phase); made once, where play_announcing tests each against the refused
    set at every card. Kept in the table (`asked_alone`), so it lives as long as the variant."""
    known = table.asked_alone.get(id(refused))
    if known is None or known[0] is not refused:
        known = table.asked_alone[id(refused)] = (refused, {
            card: tuple(said for said in row if said not in refused) for card, row in table.yes_alone.items()})
    return known[1]
