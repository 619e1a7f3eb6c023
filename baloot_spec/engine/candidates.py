"""The candidate actions of each phase, made once per compiled variant, and how an event is
matched to one: each card's play and each combination of a call's parameters, the shared
actions of cards said with announcements, the signatures calls are looked up by, and the
read-only events the log keeps. The engine (engine/hand.py, engine/judgement.py) judges and
applies events against these tables; nothing here changes a hand."""

from __future__ import annotations

from operator import is_ as _IS

from .call_finders import call_finder
from .state import Action, LegalEvent, state_maker

NOTHING = frozenset()   # no said-alone action refused by a guard
UNKNOWN = object()      # the seat to act, not yet worked out at a position (Hand._seat)
NO_FLAGS = ()           # outside any phase: no candidate to ask about
NOWHERE = (None, None, NO_FLAGS, NO_FLAGS, NOTHING)   # Hand._now outside any phase (one tuple, not one per hand)


class _CandidateTable:
    """Every candidate action of a phase, made once per compiled variant: each card's play with
    the default announcements, or each combination of a call's parameters; each carries the
    event it stands for (`_event`) and is found by that event's signature."""

    def __init__(self, rules, phase):
        self.by_card, self.calls, self.by_signature, self.event_of = {}, [], {}, {}
        self.announced = {}   # (card, announcement values) -> its shared action (card_action)
        self.event_get = self.event_of.__getitem__
        self.play_type = phase.action if phase.kind == "tricks" else None
        self.yes_alone = {}   # (a play: card -> its shared actions said with one yes/no announcement alone)
        self.asked_alone = {}   # (random_cards._asked_alone, per refused set: kept with the table)
        self.random_plays = {}   # (random_cards._per_phase, per compiled phase's flags: kept with the table)
        self.annotation_reads, self.annotation_types, self.list_at = ((), ()), None, ()   # (card_action; a play's below)
        # per call type: its parameters' names, and what each is when the event leaves it out
        self.call_fields = {action_type: (tuple(params), tuple(d[0] if isinstance(d[0], bool) else None for d in params.values()))
                            for action_type, params in phase.actions.items()}
        self.signature_of = {action_type: _signature_reader(action_type, *fields) for action_type, fields in self.call_fields.items()}
        self.call_of = {}   # (a calls phase's: below)
        if phase.kind == "tricks":
            # (as card_action reads an event's annotations: a list as a tuple)
            self.default_annotations = [tuple(v) if type(v) is list else v for v in phase.annotations.values()]
            # (Hand.allowed_announcements: the values said with nothing, and each annotation's
            # place, name and whether it is a yes/no one rather than a list of names)
            self.default_values = tuple(self.default_annotations)
            # (card_action: the names and defaults read at once, each value's exact type, which
            # places hold a list of names; None when an annotation is neither yes/no nor a list)
            defaults = tuple(phase.annotations.values())
            self.annotation_reads = (tuple(phase.annotations), defaults)
            self.annotation_types = (tuple(map(type, defaults))
                                     if all(type(d) is bool or type(d) is list for d in defaults) else None)
            self.list_at = tuple(i for i, d in enumerate(defaults) if type(d) is list)
            self.annotation_slots = tuple((index, name, type(default) is bool)
                                          for index, (name, default) in enumerate(phase.annotations.items()))
            # (index, yes/no value) -> the values with only that one said
            self.said_alone = {(index, said): (*self.default_values[:index], said, *self.default_values[index + 1:])
                               for index, _, yes_no in self.annotation_slots if yes_no for said in (False, True)}
            for card in rules.deck.cards:
                action = Action(phase.action, card=card, **{
                    k: (list(v) if isinstance(v, list) else v) for k, v in phase.annotations.items()})
                action._event = LegalEvent(type=phase.action, card=card.text)
                action._plays = {}
                self.by_card[card] = self.by_signature[card.text] = action
            self.event_of = {card: action._event for card, action in self.by_card.items()}
            self.event_get = self.event_of.__getitem__
            # card -> per annotation's place: (its shared action with only that yes/no one said
            # false, said true), None for a list one (Hand._announced: no key built per question)
            self.alone_actions = {card: tuple(
                tuple((base if self.said_alone[index, said] == self.default_values
                       else announced_action(phase, self, card, self.said_alone[index, said])) for said in (False, True))
                if yes_no else None for index, _, yes_no in self.annotation_slots) for card, base in self.by_card.items()}
            # (Hand.play_announcing: every yes/no announcement said true; per card, the shared
            # action of each said alone, in the annotations' order)
            self.all_yes = {name: True for _, name, yes_no in self.annotation_slots if yes_no}
            self.yes_alone = {card: tuple(row[index][True] for index, _, yes_no in self.annotation_slots if yes_no)
                              for card, row in self.alone_actions.items()}
            return
        by_type = {action_type: [] for action_type in self.call_fields}
        for action_type, fields in phase.call_candidates():   # (the order the fused narrow assumes)
            action = Action(action_type, **with_every_field(phase, fields))
            action._event = LegalEvent(type=action_type, **fields)
            action._logged = {}   # seat -> the event the log keeps (see logged_call)
            self.calls.append(action)
            self.by_signature[self.signature_of[action_type](fields)] = action   # (the key an event is read to)
            by_type[action_type].append((fields, action))
        # call type -> event -> its candidate or None, as by_signature answers (engine/call_finders.py)
        self.call_of = {action_type: call_finder(*self.call_fields[action_type], found, self.signature_of[action_type],
                                                 self.by_signature) for action_type, found in by_type.items()}


class _Tables:
    """Per compiled variant: phase name -> its _CandidateTable, and the seat after each seat.
    (Slots: the engine reads these on every card; a dict subclass kept them in a real dict.)"""

    __slots__ = ("by_name", "next_seat", "copy_hands", "copy_dealt", "copy_trick", "copy_tricks", "copy_played",
                 "in_place", "play_phase", "_by_phase", "no_points", "_candidates", "initial_dealt", "state_made",
                 "teams")

    def __init__(self, rules):
        self.by_name = {name: _CandidateTable(rules, phase) for name, phase in rules.phases.items()}
        self.next_seat = {seat: rules.table.after(seat) for seat in rules.table.seats}
        self.no_points = {team: 0 for team in rules.table.teams}   # (a hand's match scores by default: copied)
        self.teams = tuple(self.no_points)   # (the order a hand's match scores are kept in)
        # which of the containers a card changes are changed as new ones (IN_PLACE, state.py)
        held = rules.held_by_effects
        self.copy_hands, self.copy_dealt = "hands" in held, "dealt" in held
        # (the variant's State subclass and init, which Hand makes its state with; a state's
        # `dealt` before the completion, shared)
        self.state_made = made = state_maker(rules)
        self.initial_dealt = made[2]
        self.copy_trick, self.copy_tricks, self.copy_played = "trick" in held, "tricks" in held, "played" in held
        self.in_place = not (self.copy_hands or self.copy_trick or self.copy_tricks or self.copy_played)
        tricks = [name for name, phase in rules.phases.items() if phase.kind == "tricks"]
        self.play_phase = tricks[0] if len(tricks) == 1 else None
        self._by_phase = {}   # id(phase) -> what Hand._now holds while that phase runs
        self._candidates = _numbered(self.by_name.values())   # (every candidate, in the order of Action._at)

    def now(self, phase, name: str) -> tuple:
        """(phase, its candidate table, the candidates its guards clear: no check applies, no
        action effect applies, and the cards said with one yes/no announcement alone that a
        check refuses whatever the position). Worked out once per compiled phase (specialised
        ones included). The two first are flags read at a candidate's number, `flags[action._at]`
        (_cleared): a frozenset of candidates probed by address was 2 KB of table per phase, a
        cold line or two at each card (tools/BENCHMARKS.md, step 105)."""
        known = self._by_phase.get(id(phase))
        if known is None or known[0] is not phase:
            table = self.by_name[name]
            candidates = list(table.by_card.values()) + list(table.calls)
            said_alone = [said for row in table.yes_alone.values() for said in row]
            count = len(self._candidates)
            known = self._by_phase[id(phase)] = (phase, table, _cleared(phase.check_guard, candidates, count),
                                                 _cleared(phase.action_guard, candidates, count),
                                                 _refused(phase.refusal_guard, said_alone))
        return known

    def __getitem__(self, name: str) -> "_CandidateTable":
        return self.by_name[name]


def _numbered(tables) -> list:
    """Every candidate action of the variant's tables, each told its place in that list
    (`action._at`): the number a phase's flags are read at (_cleared). Any other action
    (said with announcements, or built from an event) keeps -1, its flags' last, false."""
    every = [action for table in tables for action in (*table.by_card.values(), *table.calls)]
    for at, action in enumerate(every):
        action._at = at
    return every


def _cleared(guard, candidates, count: int) -> tuple:
    """Flags, one per candidate of the variant (its `_at`) and a last false one (for -1): true
    for each of `candidates` for which `guard` is false (none without a guard, or where it
    fails)."""
    cleared = [False] * (count + 1)
    if guard is None:
        return tuple(cleared)
    for action in candidates:
        try:
            if not guard(action):
                cleared[action._at] = True
        except Exception:   # the full check will run, and name the rule that fails
            pass
    return tuple(cleared)



def _refused(guard, actions) -> frozenset:
    """The actions for which `guard` (a phase's refusal guard) is true: refused by a check
    whatever the position (none without a guard, or where it fails)."""
    if guard is None:
        return NOTHING
    refused = set()
    for action in actions:
        try:
            if guard(action):
                refused.add(action)
        except Exception:   # the check will be asked, and answer
            pass
    return frozenset(refused)


def with_every_field(phase, fields: dict) -> dict:
    """A call's fields, and none for each field that only the phase's other actions have."""
    every = {name: None for params in phase.actions.values() for name in params}
    every.update(fields)
    return every


def tables_of(rules) -> _Tables:
    tables = getattr(rules, "_engine_tables", None)
    if tables is None:
        tables = rules._engine_tables = _Tables(rules)
    return tables


def logged_call(action, seat, event: dict) -> dict:
    """What the log keeps of a call: the candidate's shared read-only event for this seat if the
    caller's is equal to it (made once per candidate and seat), else a copy of the caller's."""
    made = action._logged
    if made is None:   # (not a candidate: an action built from the event)
        return {**event}
    logged = made.get(seat)
    if logged is None:
        logged = made[seat] = seat_event(action, seat)
    return logged if logged == event else {**event}


def seat_event(action, seat) -> LegalEvent:
    """A candidate's event with the seat that acts, as the log keeps it: read-only and shared,
    made once per candidate and seat; its keys in the order `dict(legal_event, seat=...)` gives."""
    return LegalEvent(**action._event, seat=seat)


def call_signature(action_type: str, values: tuple) -> tuple:
    """How a call is looked up among the legal ones: its type, its parameters' values and their
    Python types (so that 0 is not taken for false)."""
    return (action_type, values, tuple(map(type, values)))   # (C-level: no generator)


def signature(phase, table, event: dict):
    """The signature of a call event, as the candidate table is keyed (None for no call type of
    the phase). A card event is matched by card_action."""
    read = table.signature_of.get(event.get("type"))
    if read is None:
        return None
    return read(event)


def _signature_reader(action_type: str, names: tuple, defaults: tuple):
    """event -> its signature as a call of `action_type`, equal to what call_signature gives.
    For one or two parameters (every call of the rules) a closure reads them one by one:
    `tuple(map(event.get, names, defaults))` and `tuple(map(type, values))` cost about 150 ns
    each (a map object, a tuple grown from an iterator), the whole signature 680 ns; this 150."""
    if len(names) == 1:
        (name,), (default,) = names, defaults

        def read_one(event):
            value = event.get(name, default)
            return (action_type, (value,), (type(value),))
        return read_one
    if len(names) == 2:
        (first, second), (first_default, second_default) = names, defaults

        def read_two(event):
            one, two = event.get(first, first_default), event.get(second, second_default)
            return (action_type, (one, two), (type(one), type(two)))
        return read_two
    return lambda event: call_signature(action_type, tuple(map(event.get, names, defaults)))


def card_action(phase, table, event: dict):
    """The action for a card event with annotations: the card's candidate when every one is
    its default, else the action for what was said (a project, an Ekka), made once per variant
    and distinct announcement; None where the event is not one as it stands (not a card of the
    table, an annotation of the wrong type): the slow path then explains it.

    The slow path built a new action and a new Play for each card said with something, three
    times the cost of a plain card's judgement; these actions (and their plays per seat) are
    shared like the candidates', and as read-only (rules never change a value in place)."""
    if event.get("type") != table.play_type:
        return None
    base = table.by_signature.get(event.get("card"))
    if base is None:
        return None
    # (each value read, and its type tested, by C-level maps: the loop over the annotations
    # with a generator per list was ~160 bytecodes a card said with something)
    values = [*map(event.get, *table.annotation_reads)]
    types = table.annotation_types
    if types is None or not all(map(_IS, map(type, values), types)):   # (exact types: `is`)
        return None
    for index in table.list_at:
        value = values[index]
        for name in value:
            if type(name) is not str:
                return None
        values[index] = tuple(value)
    if values == table.default_annotations:
        return base
    return announced_action(phase, table, base.card, tuple(values))


def announced_action(phase, table, card, values: tuple):
    """The shared action for `card` said with these annotation values (in the phase's order, a
    list as a tuple, each of its annotation's type), made once per variant."""
    key = (card, values)
    action = table.announced.get(key)
    if action is None:
        fields = {name: (list(value) if type(value) is tuple else value)
                  for name, value in zip(phase.annotations, values)}
        action = Action(table.play_type, card=card, **fields)
        action._event = LegalEvent(type=table.play_type, card=card.text,
                                   **{name: value for name, value in fields.items() if value != phase.annotations[name]})
        action._plays = {}
        if len(table.announced) < _ANNOUNCED_KEPT:   # (a hostile log cannot grow it without end)
            table.announced[key] = action
    return action


_ANNOUNCED_KEPT = 4096
