"""One hand, from the deal to the score, driven entirely by the compiled rules.

The machine is generic: phases of calls (whose turn, which actions, the rules that narrow them,
the effects of a call, the end condition), a completion of the deal, trick play (lead, follow,
the winner leads) and scoring steps. Which phases exist, in which order, and every condition in
them come from rules/*.yaml. As in python-chess, checking an event (`check`) is separate from
applying a trusted one, and `legal()` lists what the player to act may do.
"""

from __future__ import annotations

from operator import attrgetter

from ..cards import CardError
from ..errors import BalootError, IllegalAction, RuleRuntimeError
from ..expr.builtins import Rec, Values
from ..text import show
from .candidates import (_NOTHING, _call_signature, _card_action, _announced_action, _logged_call,  # noqa: F401
                         _STR_ONLY, _seat_event, _signature, _tables, _with_every_field)
from .deal import Deal, DealError
from .state import Action, LegalEvent, Play, State, Trick

OUT_OF_TURN = "turn.out-of-turn"
WRONG_ACTION = "phase.wrong-action"
NOT_IN_HAND = "{action}.not-in-hand"
OVER = "over"


class Hand:
    """A hand being played under one compiled variant."""

    # (slots: the machinery reads these on every action; copy() copies them by name)
    __slots__ = ("rules", "deal", "deal_spec", "state", "events", "_seat", "_kept", "facts", "score",
                 "_tables", "_phases", "_now", "_n_seats")

    def __init__(self, rules, dealer: str, deal: dict, match_scores: dict | None = None):
        if not rules.table.is_seat(dealer):
            raise DealError(f"unknown dealer {dealer!r} (seats: {' '.join(rules.table.seats)})", "dealer")
        self.rules = rules
        teams = list(rules.table.teams)
        scores = {team: 0 for team in teams}
        if match_scores is not None:
            if not _points_of(match_scores, scores):
                raise DealError(f"match_scores must give a whole number of points for {' and '.join(teams)}", "match_scores")
            scores.update(match_scores)
        self.deal = Deal(rules, dealer, deal)
        self.deal_spec = deal
        self.state = S = State(rules, dealer, scores)
        S.public = self.deal.public
        S.exposed = self.deal.exposed
        for seat, cards in self.deal.initial.items():
            S.initial[seat] = cards   # (the deal's own list: nothing changes it)
            S.hands[seat] = [*cards]   # (a card played changes this one in place)
        self.events: list[dict] = []
        # What is known of the current position (apply() forgets it): the seat to act and the
        # candidate actions the rules keep for it.
        self._seat = _UNKNOWN
        self._kept = None
        self.facts = None
        self.score = None
        self._tables = _tables(rules)
        self._phases = dict(rules.phases)   # a phase with `fixed` state is swapped for its specialised form
        # The current phase (as compiled for this hand), its candidate table, and the candidates
        # no check / no action effect of the phase can apply to (the engine skips those calls).
        self._now = (None, None, _NOTHING, _NOTHING)
        self._n_seats = len(rules.table.seats)
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
        if seat is _UNKNOWN:
            seat = self._seat = self._turn()
        return seat

    def _turn(self):
        S = self.state
        if S.trick and S.phase == self._tables.play_phase:   # in a trick: the next seat
            return self._tables.next_seat[S.trick[-1].seat]
        phase = self._phases.get(S.phase)
        if phase is None:
            return None
        if phase.kind == "calls":
            turn = phase.turn   # (LOAD_ATTR: a method call of an instance's function is not specialised)
            return turn(S)   # (names its phase if it fails)
        if phase.kind == "tricks":
            if not S.trick:
                return S.leader
            return self._tables.next_seat[S.trick[-1].seat]
        return None

    def legal(self) -> list[dict]:
        """The legal actions of the player to act, as events without the seat. A new list of
        read-only events (LegalEvent) made once per variant: `dict(event, seat=...)` to act.

        What the rules keep (`_kept`: the cards of a trick phase, else the candidate calls; []
        when the hand is over) is worked out here, once per position; the judgement of an event
        reads it (calling this first if needed)."""
        kept = self._kept
        if kept is None:
            seat = self._seat
            if seat is _UNKNOWN:
                seat = self._seat = self._turn()
            if seat is None:
                self._kept = []
                return []
            S = self.state
            phase, table, _, _ = self._now
            if S.actor != seat:
                S.actor = seat
                S._memo = {}
            if phase.kind != "tricks":
                narrow = phase.narrow
                kept = narrow(S, table.calls)
                if kept is None:   # a rule failed: run them one by one, which names it
                    kept, _ = self._narrow(phase, table.calls, None)
            elif phase.narrow_over_cards:   # the rules look at the cards alone
                narrow = phase.narrow
                kept = narrow(S, S.hands[seat])
                if kept is None:
                    kept = self._kept_cards(phase)
            else:
                kept = phase.narrow(S, list(map(table.by_card.__getitem__, S.hands[seat])))
                kept = self._kept_cards(phase) if kept is None else list(map(_CARD_OF, kept))
            self._kept = kept
        table = self._now[1]
        # (C-level, no Python frame per item; a display, not a call of list(), and a getter bound
        # once per table: 225 -> 172 ns for five cards)
        if table is not None and table.play_type:
            return [*map(table.event_get, kept)]
        return [*map(_EVENT_OF, kept)]

    def _kept_cards(self, phase) -> list:
        """The cards the filter rules keep, run one by one (which names a rule that fails)."""
        kept, _ = self._narrow(phase, self._candidates(phase), None)
        return list(map(_CARD_OF, kept))

    def _legal_keys(self) -> list:
        """What the rules keep at this position, as _key() gives it (see legal())."""
        if self._kept is None:
            self.legal()
        phase = self._now[0]
        return self._kept if phase.kind == "tricks" else [self._key(phase, a) for a in self._kept]

    def check(self, event: dict):
        """The IllegalAction that refuses `event`, or None if it is legal (nothing is applied)."""
        try:
            self._judge(event)
        except IllegalAction as refusal:
            return refusal
        return None

    def announcements_allowed(self, event: dict) -> bool:
        """Whether what is said with an action the player may take is allowed (the `require`
        rules only: a cheap question for a player choosing among legal actions).

        A card said with announcements is the shared action `_card_action` makes once per variant
        (as the judgement finds it), asked of the phase's compiled check: building the action
        anew for each question was half of a simulated hand (tools/BENCHMARKS.md, step 73)."""
        phase, table, _, _ = self._now
        seat = self.turn()
        if phase is None or seat is None or event.get("seat") != seat:
            return False
        self._set_actor(seat)
        if table.play_type:
            try:
                target = _card_action(phase, table, event)
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
        if seat is _UNKNOWN:
            seat = self.turn()
        phase, table, _, _ = self._now
        if seat is None or table is None or not table.play_type:
            return {}
        try:
            base = table.by_signature[card]
        except (KeyError, TypeError):   # (not a card of the deck; a list is unhashable)
            return {}
        S = self.state
        card = base.card
        if card not in S.hands[seat]:
            return {}
        if S.actor != seat:
            S.actor = seat
            S._memo = {}
        check = phase.check
        announced = table.announced
        unsaid = values = table.default_values
        alone = table.said_alone
        kept = {}
        for index, name, yes_no in table.annotation_slots:
            if name not in wished:
                continue
            value = wished[name]
            if yes_no:
                if value is not True and value is not False:
                    return {}
                said = value
            elif type(value) is list and (not value or set(map(type, value)) == _STR_ONLY):
                said = tuple(value)
            else:
                return {}
            if values is unsaid and yes_no:   # (nearly always: nothing kept yet, a yes/no wish)
                trial = alone[index, said]
            else:
                trial = (*values[:index], said, *values[index + 1:])
            action = announced.get((card, trial))
            if action is None:
                action = base if trial == unsaid else _announced_action(phase, table, card, trial)
            if check(S, action) < 0:
                values = trial
                kept[name] = value
        return kept

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
        phase, action, exact = _judged or self._judge(event, force)
        S = self.state
        self._kept = None
        actor = S.actor = event["seat"]
        if phase.kind != "tricks":   # (the short branch first: see _judge on long jumps)
            logged = _logged_call(action, actor, event)
            self._seat = _UNKNOWN
            S._memo = {}
            if action not in self._now[3]:
                phase.effects["action"](S, action)
            self._settle()
        else:
            card = action.card
            plays = action._plays   # a candidate's Play per seat, made once (None: not a candidate)
            try:
                play = plays[actor]
            except (KeyError, TypeError):   # not made for this seat yet, or not a candidate
                play = None
            if play is None:
                play = Play(actor, card, **{k: getattr(action, k) for k in phase.annotations})
                if plays is not None:
                    plays[actor] = play
                    play._event = _seat_event(action, actor)   # (what the log keeps)
            # An event known to be this candidate's, exactly, is logged as the candidate's shared
            # read-only event; anything else as a copy (the caller's event may change). Copying
            # every event was 4% of a replayed hand.
            logged = play._event if exact else {**event}
            tables = self._tables
            if tables.in_place:   # (no effect can hold what a card changes: IN_PLACE, state.py)
                S.hands[actor].remove(card)
                S.trick.append(play)
                S.played.append(card)
            else:
                _change_copies(S, tables, actor, card, play)
            trick = S.trick
            S._memo = {}
            if action not in self._now[3]:
                phase.effects["action"](S, action)
            if len(trick) < self._n_seats:
                self._seat = tables.next_seat[actor]   # (what _turn() says in a trick)
            else:
                self._seat = _UNKNOWN
                winner = phase.winner
                winner = winner(S)
                if tables.copy_tricks:   # (an effect may hold them: IN_PLACE, state.py)
                    S.tricks = [*S.tricks, Trick(trick[0].seat, trick, winner)]
                else:
                    S.tricks.append(Trick(trick[0].seat, trick, winner))
                S.trick = []
                S.leader = winner
                S._memo = {}
                if any(S.hands.values()):
                    self._seat = winner   # (what _turn() says when a trick is to be led: the leader)
                else:
                    self._leave(phase)
        self.events.append(logged)

    def apply_unless_refused(self, event: dict):
        """Apply `event` if the rules allow it and return None; else apply nothing and return
        the IllegalAction (check() and apply() in one judgement, for a referee)."""
        try:
            judged = self._judge(event)
        except IllegalAction as refusal:
            return refusal
        self.apply(event, _judged=judged)
        return None

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
        S._memo = {}

    # ---- machinery --------------------------------------------------------------------------
    def _judge(self, event: dict, force: bool = False):
        """(phase, the action, whether `event` is exactly the action's own) for an event the
        rules allow, else IllegalAction. The fast path: exactly one of the legal actions.

        (Each test here jumps only a few instructions: in CPython 3.11 a comparison is
        specialised only when the jump after it needs no EXTENDED_ARG, that is when it jumps
        over fewer than 256 code units; a long block after an `if` made every one generic.)"""
        if force or not (type(event) is dict or type(event) is LegalEvent):
            return self._judge_slowly(event, force)
        kept = self._kept
        if kept is None:
            self.legal()
            kept = self._kept
        phase, table, quiet_checks, _ = self._now
        # exact: a card with nothing said, whose event is type, seat and card, all three equal
        # to the candidate's, so it is the candidate's event for this seat. (Subscripts, not
        # dict.get: a missing field or an unknown card is rare, and the slow path explains it;
        # four get() calls were 140 method calls a hand.)
        exact = False
        try:
            if not kept or event["seat"] != self._seat:
                target = None
            elif len(event) == 3 and event["type"] == table.play_type:  # a card, nothing said
                target = table.by_signature[event["card"]]
                exact = True
            elif table.play_type:   # a card with announcements, or its defaults spelled out
                target = _card_action(phase, table, event)
            else:
                target = table.by_signature.get(_signature(phase, table, event))
        except (KeyError, TypeError):  # a field missing, an unknown card, an unhashable value
            target = None
        if target is None or (target.card if table.play_type else target) not in kept:
            return self._judge_slowly(event, False)
        if target not in quiet_checks:
            check = phase.check
            if check(self.state, target) >= 0:
                self._check_announcements(phase, target)   # raises, explained
        return phase, target, exact

    def _judge_slowly(self, event, force: bool):
        """_judge for any event: checked field by field, a refusal explained by its rule."""
        S = self.state
        if not isinstance(event, dict) or not isinstance(event.get("type"), str):
            raise IllegalAction(WRONG_ACTION, "an event is an object with a 'type'")
        if self.is_over():
            raise IllegalAction(WRONG_ACTION, f"the hand is over; no {event['type']} is possible")
        phase = self._phases[S.phase]
        seat = self.turn()
        if event.get("seat") != seat:
            raise IllegalAction(OUT_OF_TURN, f"it is {seat}'s turn, not {event.get('seat')}'s")
        allowed = [phase.action] if phase.kind == "tricks" else list(phase.actions)
        if event["type"] not in allowed:
            raise IllegalAction(WRONG_ACTION, f"a {event['type']} is not an action of the {S.phase} phase (expected: {', '.join(allowed)})")
        self._set_actor(seat)
        target = self._action_of(phase, event)
        if force:
            return phase, target, False
        key = self._key(phase, target)
        if key not in self._legal_keys():
            _, excluded_by = self._narrow(phase, self._candidates(phase), key)
            if excluded_by is not None:
                raise IllegalAction(excluded_by.id, self._explain(excluded_by, target), _source_text(excluded_by.source))
        self._check_announcements(phase, target)
        return phase, target, False

    def _check_announcements(self, phase, target, explain: bool = True):
        """The `require` rules: what is said with an action (they never narrow the legal set).
        Raises IllegalAction, or with explain=False returns the refusing rule (None if fine)."""
        refused = phase.check(self.state, target)
        if refused < 0:
            return None
        rule = phase.checks[refused]
        if not explain:
            return rule
        raise IllegalAction(rule.id, self._explain(rule, target), _source_text(rule.source))

    @staticmethod
    def _key(phase, action):
        return action.card if phase.kind == "tricks" else action.key()

    def _action_of(self, phase, event) -> Action:
        S = self.state
        if phase.kind == "tricks":
            text = event.get("card")
            card = self.rules.deck.exact.get(text) if type(text) is str else None   # (a list is unhashable)
            if card is None:
                try:
                    card = self.rules.deck.parse(event.get("card"))
                except CardError as exc:
                    raise IllegalAction(WRONG_ACTION, str(exc)) from None
            if card not in S.hands[S.actor]:
                raise IllegalAction(NOT_IN_HAND.format(action=phase.action), f"{S.actor} does not hold {card}")
            fields = {"card": card}
            for name, default in phase.annotations.items():
                value = event.get(name, default)
                if isinstance(default, bool) and not isinstance(value, bool):
                    raise IllegalAction(WRONG_ACTION, f"'{name}' is true or false, not {value!r}")
                if isinstance(default, list) and not (isinstance(value, list) and all(isinstance(v, str) for v in value)):
                    raise IllegalAction(WRONG_ACTION, f"'{name}' is a list of names, not {value!r}")
                fields[name] = list(value) if isinstance(value, list) else value
            return Action(phase.action, **fields)
        params = phase.actions[event["type"]]
        fields = {}
        for name, domain in params.items():
            default = domain[0] if isinstance(domain[0], bool) else None
            value = event.get(name, default)
            if value not in domain or (isinstance(value, bool) != isinstance(domain[0], bool)):
                raise IllegalAction(WRONG_ACTION, f"{name} must be one of {', '.join(map(show, domain))}, not {value!r}")
            fields[name] = value
        return Action(event["type"], **_with_every_field(phase, fields))

    def phase_rule_id(self) -> str | None:
        """The id of the current phase (what gives the turn), None when the hand is over."""
        return None if self.is_over() else self._phases[self.state.phase].id

    def narrowing(self, event: dict) -> list:
        """For explanations, never on the hot path: each filter rule of the current phase that
        applied for the seat to act, in rule order, as (rule id, the candidates it dropped, whether
        it kept `event`'s action, whether the phase is a trick phase). The walk of `_narrow`,
        told step by step; empty when the hand is over or `event` is no action of the phase."""
        seat = self.turn()
        if seat is None:
            return []
        phase = self._phases[self.state.phase]
        self._set_actor(seat)
        try:
            key = self._key(phase, self._action_of(phase, dict(event, seat=seat)))
        except IllegalAction:
            return []
        S, current, steps = self.state, self._candidates(phase), []
        for rule in phase.filters:
            if not rule.when(S):
                continue
            keep = rule.keep(S, current)
            if rule.if_possible and not keep:
                continue
            kept = any(self._key(phase, a) == key for a in keep)
            steps.append((rule.id, [a for a in current if a not in keep], kept, phase.kind == "tricks"))
            current = keep
        return steps

    def _candidates(self, phase) -> list:
        table = self._tables[phase.name]
        if phase.kind == "tricks":
            return list(map(table.by_card.__getitem__, self.state.hands[self.state.actor]))
        return table.calls   # (_legal_actions has this inline: it runs once per position)

    def _narrow(self, phase, candidates: list, target_key):
        """Apply the phase's filter rules in order; return (kept, rule that excluded target_key)."""
        S = self.state
        current = candidates
        rule = None
        try:
            for rule in phase.filters:
                if not rule.when(S):
                    continue
                keep = rule.keep(S, current)
                if rule.if_possible and not keep:
                    continue
                if target_key is not None and len(keep) != len(current):
                    before = any(self._key(phase, a) == target_key for a in current)
                    if before and not any(self._key(phase, a) == target_key for a in keep):
                        return keep, rule
                current = keep
        except (BalootError, IllegalAction):
            raise
        except Exception as exc:
            raise RuleRuntimeError(rule.id if rule else phase.id, exc) from exc
        return current, None

    def _enter(self, name: str) -> None:
        S = self.state
        S.actor = None
        S._memo = {}
        if name == OVER:
            S.phase = OVER
            self._now = (None, None, _NOTHING, _NOTHING)
            return
        phase = self._phases.get(name)
        if phase is None:
            raise RuleRuntimeError("phases", KeyError(f"no phase named {name!r}"))
        S.phase = name
        if phase.on_enter:   # (a phase with no enter effect: its fused function would do nothing)
            phase.effects["enter"](S, None)
        if phase.fixed:   # from here on the phase runs code compiled for these values
            phase = self._phases[name] = self.rules.specialized(name, tuple(map(S.__getattribute__, phase.fixed)))
        self._now = self._tables.now(phase, name)
        if phase.kind == "calls":
            self._settle()
        elif phase.kind == "deal_rest":
            taker = phase.taker(S)
            tables = self._tables
            if tables.copy_hands:   # (an effect may hold them: see IN_PLACE, state.py)
                S.hands = dict(S.hands)
            if tables.copy_dealt:
                S.dealt = dict(S.dealt)
            for seat, cards in self.deal.complete(taker).items():
                S.hands[seat] = S.hands[seat] + cards
            for seat in S.all_seats:
                S.dealt[seat] = list(S.hands[seat])
            self._leave(phase)
        elif phase.kind == "tricks":
            leader = phase.leader
            S.leader = leader(S)
        elif phase.kind == "score":
            rules = self.rules
            values = (phase.facts_all or rules.facts_all)(S)
            self.facts = rules.facts_of(values)
            self.score = rules.score_of(rules.steps_all(values))
            self._leave(phase)

    def _resume(self, name: str, enter: bool) -> None:
        """Be in phase `name` with the state as a position set it (engine/position.py): entered as
        usual (its entry effects run), or with enter=False as it stands (the position carries
        what the entry effects set)."""
        if enter:
            self._enter(name)
        else:
            S = self.state
            S.actor = None
            S._memo = {}
            S.phase = name
            phase = self._phases[name]
            if phase.fixed:
                phase = self._phases[name] = self.rules.specialized(name, tuple(map(S.__getattribute__, phase.fixed)))
            self._now = self._tables.now(phase, name)
        self._seat = _UNKNOWN
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
            S._memo = {}
        if phase.on_exit:
            phase.effects["exit"](S, None)
        following = phase.next
        self._enter(following(S))

    def _explain(self, rule, action) -> str:
        try:
            return rule.explain(self.state, action)
        except Exception as exc:  # an explanation must never hide the refusal itself
            return f"{rule.id} (explanation failed: {exc})"

    def _set_actor(self, seat) -> None:
        S = self.state
        if S.actor != seat:
            S.actor = seat
            S._memo = {}

    @staticmethod
    def _run(rule_id, fn, *args):
        try:
            return fn(*args)
        except BalootError:
            raise
        except Exception as exc:
            raise RuleRuntimeError(rule_id, exc) from exc

    # ---- results ----------------------------------------------------------------------------
    def result(self) -> dict | None:
        """The hand result once over: thrown_in, next_dealer, and the scoring steps."""
        if not self.is_over():
            return None
        next_dealer = self._run("next dealer", self.rules.functions["next_dealer"], self.state)
        if self.score is None:
            return {"thrown_in": True, "next_dealer": next_dealer}
        # (a display, not out.update(score): update() of a dict subclass first looks up its
        # `keys` through Rec's Python __getattribute__; 905 -> 648 ns)
        return {"thrown_in": False, "next_dealer": next_dealer, **self.score}


def match_step(rules, scores: dict, hand_result: dict) -> Rec:
    """Run the match steps after one hand: `scores` before it, `hand` = its result (every scoring
    step by name, e.g. written, winner, gahwa). Returns every match step's value by name."""
    values = Rec(scores=Rec(scores), hand=Rec(hand_result))
    for name, step_id, fn in rules.match:
        values[name] = Hand._run(step_id, fn, values)
    return values


def score_facts(rules, facts: dict) -> Rec:
    """Run the scoring steps over a hand's facts; every step's value, by name."""
    return Rec(vars(rules.steps_all(Values(**facts))))


_EVENT_OF = attrgetter("_event")
_CARD_OF = attrgetter("card")
_UNKNOWN = object()       # the seat to act, not yet worked out at this position
_SHARED = frozenset(("rules", "deal", "deal_spec", "state", "_tables"))   # Hand.copy: not copied (state is, apart)


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
        if not isinstance(value, int) or isinstance(value, bool) or value < 0:
            return False
    return True


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




def _source_text(source) -> str | None:
    if source is None:
        return None
    if isinstance(source, list):
        return "; ".join(map(str, source))
    return str(source)
