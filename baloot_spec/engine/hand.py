"""One hand, from the deal to the score, driven entirely by the compiled rules.

The machine is generic: phases of calls (whose turn, which actions, the rules that narrow them,
the effects of a call, the end condition), a completion of the deal, trick play (lead, follow,
the winner leads) and scoring steps. Which phases exist, in which order, and every condition in
them come from rules/*.yaml. As in python-chess, checking an event (`check`) is separate from
applying a trusted one, and `legal()` lists what the player to act may do.
"""

from __future__ import annotations

from operator import attrgetter

from ..errors import RuleRuntimeError  # noqa: F401  (public here too: audit.py)
from ..expr.builtins import Rec
from .announcing import Announcing
from .candidates import NOWHERE, UNKNOWN, logged_call, seat_event, tables_of
from .deal import Deal, DealError
from .judgement import NOT_IN_HAND, OUT_OF_TURN, WRONG_ACTION, Judging  # noqa: F401  (public here too)
from .phases import Phases
from .random_cards import RandomCards
from .results import match_step, run_rule, score_facts  # noqa: F401  (public here too)
from .scores import OVER, Scores
from .state import Play, State, Trick  # noqa: F401  (State: public here too)


class Hand(Judging, Announcing, RandomCards, Scores, Phases):
    """A hand being played under one compiled variant. The judgement of an event (engine/judgement.py),
    the announcement questions (engine/announcing.py), the random player's cards
    (engine/random_cards.py), its score and result (engine/scores.py) and the entering and
    leaving of its phases (engine/phases.py) are its mixins."""

    # (slots: the machinery reads these on every action; copy() copies them by name)
    __slots__ = ("rules", "deal", "deal_spec", "state", "events", "_seat", "_kept", "facts", "_score", "_shown",
                 "_tables", "_phases", "_now", "_n_seats", "_owned")

    def __init__(self, rules, dealer: str, deal: dict, match_scores: dict | None = None):
        try:   # (tables_of and Table.is_seat read without their calls: two frames a hand)
            tables = rules._engine_tables
        except AttributeError:
            tables = tables_of(rules)
        if not (isinstance(dealer, str) and dealer in tables.next_seat):   # (every seat, as Table.is_seat)
            raise DealError(f"unknown dealer {dealer!r} (seats: {' '.join(rules.table.seats)})", "dealer")
        self.rules = rules
        self._tables = tables
        # (the state's own record, in the teams' order: State keeps it, own=True)
        scores = None
        if match_scores is None:
            scores = Rec(tables.no_points)
        elif type(match_scores) is dict and tuple(match_scores) == tables.teams:
            # (_points_of's common case written out, a frame fewer: a plain dict in the teams'
            # order of plain ints 0 or more, the record made from it at once, not made and updated)
            for value in match_scores.values():
                if type(value) is not int or value < 0:
                    break
            else:
                scores = Rec(match_scores)
        if scores is None:   # (anything else: checked by _points_of, and kept in the teams' order)
            scores = Rec(tables.no_points)
            if not _points_of(match_scores, scores):
                raise DealError(f"match_scores must give a whole number of points for {' and '.join(scores)}", "match_scores")
            dict.update(scores, match_scores)   # (not scores.update: a Rec's own names go through its __getattribute__)
        self.deal = dealt = Deal(rules, dealer, deal)
        self.deal_spec = deal
        # (each seat's initial is the deal's own list: nothing changes it; its hand the same list
        # until a tricks phase makes it a copy, which a card played changes in place: own_hands)
        # (State(rules, dealer, scores, dealt.initial, True) written out: its class and init read)
        kind, init, _ = tables.state_made
        self.state = S = _NEW(kind)
        init(S, dealer, scores, dealt.initial)
        S.public = dealt.public
        S.exposed = dealt.exposed
        self.events: list[dict] = []
        # What is known of the current position (apply() forgets it): the seat to act and the
        # candidate actions the rules keep for it.
        self._seat = UNKNOWN
        self._kept = None
        self.facts = None
        self._score = self._shown = None
        # (the variant's phases, never written: a phase with `fixed` state is swapped for its
        # specialised form by swapping the map for a shared one, phases_with in engine/phases.py)
        self._phases = rules.phases
        # The current phase (as compiled for this hand), its candidate table, and the candidates
        # no check / no action effect of the phase can apply to (the engine skips those calls).
        self._now = NOWHERE
        self._owned = False   # (each hand its seat's initial list until the completion or the play: own_hands)
        self._n_seats = len(tables.next_seat)   # (every seat)
        self._enter(rules.first_phase)

    # ---- questions --------------------------------------------------------------------------
    @property
    def phase(self) -> str:
        return self.state.phase

    def is_over(self) -> bool:
        return self.state.phase == OVER

    def turn(self):
        """The seat to act, or None when the hand is over (computed once per position)."""
        seat = self._seat
        if seat is UNKNOWN:
            seat = self._seat = self._turn()
        return seat

    def _turn(self):
        # (the current phase as entered, self._now[0]: what _enter and _resume set with S.phase;
        # None once the hand is over)
        phase = self._now[0]
        if phase is None:
            return None
        kind = phase.kind
        if kind == "calls":
            turn = phase.turn   # (LOAD_ATTR: a method call of an instance's function is not specialised)
            return turn(self.state)   # (names its phase if it fails)
        if kind == "tricks":
            trick = self.state.trick
            if not trick:
                return self.state.leader
            return self._tables.next_seat[trick[-1].seat]
        return None

    def legal(self, kept_only: bool = False) -> list[dict]:
        """The legal actions of the player to act, as events without the seat. A new list of
        read-only events (LegalEvent) made once per variant: `dict(event, seat=...)` to act.

        What the rules keep (`_kept`: the cards of a trick phase, else the candidate calls; []
        when the hand is over) is worked out here, once per position; the judgement of an event
        reads it (calling this first if needed). With kept_only that is returned instead, shared
        and read only: in legal()'s order, without its list of events (the random player draws
        an index among them; tools/BENCHMARKS.md, step 82)."""
        kept = self._kept
        if kept is not None:   # (asked again at the same position)
            if kept_only:
                return kept
            table = self._now[1]
            if table is not None and table.play_type:
                return [*map(table.event_get, kept)]
            return [*map(_EVENT_OF, kept)]
        S = self.state
        phase, table, _, _, _ = self._now
        seat = self._seat
        if seat is UNKNOWN:
            if phase is not None and phase.kind == "calls":   # (_turn's answer, without its frame)
                turn = phase.turn
                seat = turn(S)   # (names its phase if it fails)
            else:
                seat = self._turn()
            self._seat = seat
        if seat is None:
            self._kept = []
            return []
        if S.actor != seat:
            S.actor = seat
            if S._memo:   # (see State: an empty memo is kept)
                S._memo = {}
        # (each kind returns at once: the phase's table read once, its kind tested once, as its
        # table's play type: None but in a tricks phase)
        if not table.play_type:
            narrow = phase.narrow
            kept = narrow(S, table.calls)
            if kept is None:   # a rule failed: run them one by one, which names it
                kept, _ = self._narrow(phase, table.calls, None)
            self._kept = kept
            if kept_only:   # (a flag, not a method of its own: the replay's legal() stays one call)
                return kept
            return [*map(_EVENT_OF, kept)]
        if phase.narrow_over_cards:   # the rules look at the cards alone
            # (compiled for the current trick's length: CURRENT_TRICK, engine/state.py)
            kept = phase.narrows[len(S.trick)](S, S.hands[seat])
            if kept is None:
                kept = self._kept_cards(phase)
        else:
            narrow = phase.narrows[len(S.trick)]
            kept = narrow(S, list(map(table.by_card.__getitem__, S.hands[seat])))
            kept = self._kept_cards(phase) if kept is None else list(map(_CARD_OF, kept))
        self._kept = kept
        if kept_only:
            return kept
        # (C-level, no Python frame per item; a display, not a call of list(), and a getter bound
        # once per table: 225 -> 172 ns for five cards)
        return [*map(table.event_get, kept)]

    def copy(self) -> "Hand":
        """An independent copy of the position, for search and perft: every list, dict, set and
        Rec of the state (and the event log) is copied; cards, plays, finished tricks, actions,
        the deal and the compiled rules are shared, since nothing changes them in place."""
        new = object.__new__(type(self))
        for name in Hand.__slots__:
            value = getattr(self, name)
            setattr(new, name, value if name in _SHARED else _copied(value))
        new.state = self.state.copy(_copied)
        return new

    # ---- applying ---------------------------------------------------------------------------
    def apply(self, event: dict, force: bool = False, _judged: tuple | None = None) -> None:
        """Check and apply one event; IllegalAction (nothing applied) if the rules refuse it.

        With force=True the obligations (filter and check rules) are not applied: an auditor
        replays a recorded illegal card that was really played, so the rest of the hand can
        still be checked. Turn, phase and holding the card are required all the same."""
        S = self.state
        if _judged is None:
            # _judge's fast path written out for a plain dict at a position whose legal set is
            # known (the same tests in the same order): a card said with nothing, or a call found
            # by its values, by the seat to act, one of the actions kept, its check (if any) run
            # here. A frame, a tuple and a second read of the phase's tables fewer on almost
            # every event; anything else (an announcement, a read-only event, force, a refusal,
            # before legal()) is judged by _judge, which explains a refusal.
            kept = self._kept
            phase, table, quiet_checks, quiet, _ = self._now
            action = None
            if kept and not force and type(event) is dict:
                try:
                    actor = event["seat"]
                    if actor == self._seat:
                        play_type = table.play_type
                        if not play_type:   # (the call's candidate by its values: engine/call_finders.py)
                            find = table.call_of.get(event["type"])
                            if find is not None:
                                found = find(event)
                                if found in kept:   # (`exact` is read for a card only)
                                    action = found
                        elif len(event) == 3 and event["type"] == play_type:   # a card, nothing said
                            action = table.by_signature[event["card"]]
                            if action.card in kept:
                                exact = True
                            else:
                                action = None
                except (KeyError, TypeError):   # a field missing, an unknown card, an unhashable value
                    action = None
            if action is None:
                phase, action, exact = self._judge(event, force)
                quiet = self._now[3]
                play_type = phase.kind == "tricks"   # (what the table's play type says: truthy in a tricks phase)
                actor = S.actor = event["seat"]
            else:
                # (S.actor is already this seat: legal() set it when it kept `kept`, and whatever
                # sets it while a legal set is kept sets the seat to act, self._seat; see
                # tests/test_apply_fast_path.py)
                if not quiet_checks[action._at]:   # (the flags: see _Tables.now)
                    check = phase.check
                    if check(S, action) >= 0:
                        self._check_announcements(phase, action)   # raises, explained
        else:
            phase, action, exact = _judged
            quiet = self._now[3]
            play_type = phase.kind == "tricks"   # (what the table's play type says: truthy in a tricks phase)
            actor = S.actor = event["seat"]
        self._kept = None
        if not play_type:   # (a calls phase: the short branch first, see _judge on long jumps)
            # (logged_call and _settle written out: two Python calls a call, 10% of the engine's
            # bytecodes in the bidding)
            made = action._logged   # the candidate's shared event per seat (None: not a candidate)
            logged = made.get(actor) if made is not None else None
            if logged is None:
                logged = logged_call(action, actor, event)
            elif logged != event:
                logged = {**event}
            self._seat = UNKNOWN
            if S._memo:   # (see State: an empty memo is kept)
                S._memo = {}
            if not quiet[action._at]:   # (the flags: see _Tables.now)
                phase.effects["action"](S, action)
            end = phase.end
            if end(S):
                self._leave(phase)
        else:
            card = action.card
            try:   # (a candidate's Play per seat, made once; _plays is None: not a candidate)
                play = action._plays[actor]
            except (KeyError, TypeError):   # not made for this seat yet, or not a candidate
                play = _new_play(phase, action, actor, action._plays)
            # An event known to be this candidate's, exactly, is logged as the candidate's shared
            # read-only event; anything else as a copy (the caller's event may change). Copying
            # every event was 4% of a replayed hand.
            logged = play._event if exact else {**event}
            tables = self._tables
            if tables.in_place:   # (no effect can hold what a card changes: IN_PLACE, state.py)
                S.hands[actor].remove(card)
                trick = S.trick
                trick.append(play)
                S.played.append(card)
            else:
                _change_copies(S, tables, actor, card, play)
                trick = S.trick
            if S._memo:   # (see State: an empty memo is kept)
                S._memo = {}
            if not quiet[action._at]:   # (the flags: see _Tables.now)
                phase.effects["action"](S, action)
            if len(trick) < self._n_seats:
                self._seat = tables.next_seat[actor]   # (what _turn() says in a trick)
            else:
                self._seat = UNKNOWN
                winner = phase.winner
                winner = winner(S)
                # (Trick(...) written out: its fields set here, no __init__ frame; 8 a hand)
                done = _NEW(Trick)
                done.leader = trick[0].seat
                done.plays = trick
                done.winner = winner
                done.cards = [*map(_CARD_OF, trick)]
                if tables.copy_tricks:   # (an effect may hold them: IN_PLACE, state.py)
                    S.tricks = [*S.tricks, done]
                else:
                    S.tricks.append(done)
                S.trick = []
                S.leader = winner
                if S._memo:   # (see State: an empty memo is kept)
                    S._memo = {}
                if any(S.hands.values()):
                    self._seat = winner   # (what _turn() says when a trick is to be led: the leader)
                else:
                    following = phase.goes_to   # (a literal `next`)
                    if phase.on_exit or following is None:
                        self._leave(phase)
                    else:   # (_leave written out: _enter sets no actor and empties the memo)
                        self._enter(following)
        self.events.append(logged)
    def play_legal(self, index: int, wished: dict | None = None) -> dict:
        """Apply the action `legal()[index]` for the seat to act, a card said with those of the
        announcements `wished` the rules allow (what allowed_announcements keeps); return the
        event applied: what `dict(legal()[index], seat=...)` with those announcements added gives.

        A player choosing among the legal actions (the random player) needs no judgement of its
        event: the action is the candidate itself, and the `require` check is the one asked of
        what it says (tools/BENCHMARKS.md, step 79). IndexError for an index out of legal()'s range."""
        kept = self._kept
        if kept is None:
            kept = self.legal(True)
        item = kept[index]
        seat = self._seat
        phase, table, quiet_checks, _, _ = self._now
        if table.play_type:
            action = table.by_card[item]
            event = {**action._event, "seat": seat}
            if wished:
                said, announced = self._announced(phase, table, seat, action, wished)
                if said:
                    event.update(said)
                    self.apply(event, _judged=(phase, announced, False))
                    return event
            exact = True
        else:
            action, event, exact = item, {**item._event, "seat": seat}, False
        if not quiet_checks[action._at]:
            self._set_actor(seat)
            check = phase.check
            if check(self.state, action) >= 0:
                self._check_announcements(phase, action)   # raises, explained
        self.apply(event, _judged=(phase, action, exact))
        return event

    def pass_turn(self, seat: str) -> None:
        """The turn in a trick passes to `seat`: a referee going on from a card the log records out
        of turn (the card is then judged as that seat's)."""
        S = self.state
        if S.phase != self._tables.play_phase or not self.rules.table.is_seat(seat) or seat not in S.hands:
            raise ValueError(f"the turn cannot pass to {seat} in the {S.phase} phase")
        if seat != self.turn():
            self._seat = seat
            self._kept = None

    def resume_turn(self) -> None:
        """After a card played out of turn: the turn in the trick passes to the first seat after
        the trick's first card that has not played to it (in regular play, the seat the engine
        names anyway)."""
        S = self.state
        if not S.trick or S.phase != self._tables.play_phase:
            return
        played = {p.seat for p in S.trick}
        seat = S.trick[0].seat
        for _ in range(self._n_seats):
            seat = self._tables.next_seat[seat]
            if seat not in played:
                self.pass_turn(seat)
                return

    def exchange(self, seat: str, card, other: str, given) -> None:
        """`seat` receives `card` from `other`, who receives `given` in its place: a referee's
        correction of a recorded deal that a recorded play contradicts (the log is what happened)."""
        S = self.state
        if card not in S.hands[other] or given not in S.hands[seat]:
            raise ValueError(f"{other} does not hold {card} or {seat} does not hold {given}")
        S.hands = {**S.hands, seat: [c for c in S.hands[seat] if c != given] + [card],
                   other: [c for c in S.hands[other] if c != card] + [given]}
        if S.dealt and card in (S.dealt.get(other) or ()) and given in (S.dealt.get(seat) or ()):
            swap = {given: card, card: given}
            S.dealt = {**S.dealt, seat: [swap.get(c, c) for c in S.dealt[seat]],
                       other: [swap.get(c, c) for c in S.dealt[other]]}
        self._kept = None
        if S._memo:   # (see State: an empty memo is kept)
            S._memo = {}


_EVENT_OF = attrgetter("_event")
_CARD_OF = attrgetter("card")
_NEW = object.__new__   # (a finished trick, its fields then set as Trick.__init__ sets them)
_SHARED = frozenset(("rules", "deal", "deal_spec", "state", "_tables", "_phases"))   # Hand.copy: not copied (state is, apart)


_CONTAINERS = frozenset((list, dict, Rec, set))


def _copied(value):
    """A structural copy of the containers in `value`; anything else (cards, plays...) shared."""
    kind = type(value)
    if kind is list:
        return [_copied(v) if type(v) in _CONTAINERS else v for v in value]
    if kind is dict or kind is Rec:
        return kind({k: (_copied(v) if type(v) in _CONTAINERS else v) for k, v in value.items()})
    if kind is set:
        return set(value)
    return value


def _points_of(match_scores, scores: dict) -> bool:
    """Whether match_scores gives a whole number of points (not a bool), 0 or more, for exactly
    the teams of `scores` (a loop: a generator in all() is resumed once per team)."""
    if not isinstance(match_scores, dict) or match_scores.keys() != scores.keys():
        return False
    for value in match_scores.values():
        if type(value) is not int and (not isinstance(value, int) or isinstance(value, bool)):
            return False
        if value < 0:
            return False
    return True


def _new_play(phase, action, actor, plays) -> Play:
    """The Play of a card action for `actor`, kept in the candidate's own `plays` if it has one
    (made once a seat; apart from apply, whose `action` a comprehension here made a cell there)."""
    play = Play(actor, action.card, **{k: getattr(action, k) for k in phase.annotations})
    if plays is not None:
        plays[actor] = play
        play._event = seat_event(action, actor)   # (what the log keeps)
    return play


def _change_copies(S, tables, actor, card, play) -> None:
    """A card played where an effect may hold the hands, the trick or the cards played: each
    such container changes as a new one (the others in place)."""
    if tables.copy_hands:
        S.hands = {**S.hands, actor: [c for c in S.hands[actor] if c is not card]}
    else:
        S.hands[actor].remove(card)
    if tables.copy_trick:
        S.trick = [*S.trick, play]
    else:
        S.trick.append(play)
    if tables.copy_played:
        S.played = [*S.played, card]
    else:
        S.played.append(card)
