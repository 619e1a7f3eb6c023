"""The judgement of an event: whether the rules allow it, and if not, which rule refuses it and
why. The fast path matches the event to one of the legal candidates (engine/candidates.py); the
slow path reads it field by field and runs the filter rules one by one, so that a refusal names
its rule and explains itself.

A mixin of Hand (engine/hand.py): its methods read the hand's position as Hand keeps it."""

from __future__ import annotations

from operator import attrgetter

from ..cards import CardError
from ..errors import BalootError, IllegalAction, RuleRuntimeError
from ..text import show
from .candidates import card_action, signature, with_every_field
from .state import Action, LegalEvent

OUT_OF_TURN = "turn.out-of-turn"
WRONG_ACTION = "phase.wrong-action"
NOT_IN_HAND = "{action}.not-in-hand"

_CARD_OF = attrgetter("card")


class Judging:
    """Hand's judgement of events (see the module's docstring)."""

    __slots__ = ()

    def check(self, event: dict):
        """The IllegalAction that refuses `event`, or None if it is legal (nothing is applied)."""
        try:
            self._judge(event)
        except IllegalAction as refusal:
            return refusal
        return None


    def apply_unless_refused(self, event: dict):
        """Apply `event` if the rules allow it and return None; else apply nothing and return
        the IllegalAction (check() and apply() in one judgement, for a referee)."""
        try:
            judged = self._judge(event)
        except IllegalAction as refusal:
            return refusal
        self.apply(event, _judged=judged)
        return None

    def _kept_cards(self, phase) -> list:
        """The cards the filter rules keep, run one by one (which names a rule that fails)."""
        kept, _ = self._narrow(phase, self._candidates(phase), None)
        return list(map(_CARD_OF, kept))

    def _legal_keys(self) -> list:
        """What the rules keep at this position, as _key() gives it (see legal())."""
        if self._kept is None:
            self.legal(True)
        phase = self._now[0]
        return self._kept if phase.kind == "tricks" else [self._key(phase, a) for a in self._kept]

    def _judge(self, event: dict, force: bool = False):
        """(phase, the action, whether `event` is exactly the action's own) for an event the
        rules allow, else IllegalAction. The fast path: exactly one of the legal actions.

        (Each test here jumps only a few instructions: in CPython 3.11 a comparison is
        specialised only when the jump after it needs no EXTENDED_ARG, that is when it jumps
        over fewer than 256 code units; a long block after an `if` made every one generic.)"""
        # (Hand.apply has the same fast path written out for a plain dict: keep the two alike.)
        if force or not (type(event) is dict or type(event) is LegalEvent):
            return self._judge_slowly(event, force)
        kept = self._kept
        if kept is None:
            kept = self.legal(True)
        phase, table, quiet_checks, _, _ = self._now
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
                target = card_action(phase, table, event)
            else:   # (the call's candidate by its values: engine/call_finders.py)
                find = table.call_of.get(event["type"])
                target = None if find is None else find(event)
        except (KeyError, TypeError):  # a field missing, an unknown card, an unhashable value
            target = None
        if target is None or (target.card if table.play_type else target) not in kept:
            return self._judge_slowly(event, False)
        if not quiet_checks[target._at]:   # (the flags: see _Tables.now)
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
        return Action(event["type"], **with_every_field(phase, fields))

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

    def _explain(self, rule, action) -> str:
        try:
            return rule.explain(self.state, action)
        except Exception as exc:  # an explanation must never hide the refusal itself
            return f"{rule.id} (explanation failed: {exc})"


def _source_text(source) -> str | None:
    if source is None:
        return None
    if isinstance(source, list):
        return "; ".join(map(str, source))
    return str(source)
