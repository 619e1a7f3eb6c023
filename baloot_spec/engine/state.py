"""The state of one hand as rule expressions see it.

Generic fields only: seats, hands, the trick being played, finished tricks, the phase, who is
acting. Everything Baloot-specific (the contract, the standing bid, the doubling level, the
projects...) is a state variable declared in rules/*.yaml and set by the rules' effects.

Every class here sets its attributes one by one and never reads `__dict__`: on CPython 3.11 an
instance whose `__dict__` was touched (`__dict__.update`, `vars()`) keeps its attributes in a real
dict, and every attribute read on it takes about twice as long; rule expressions read state,
action and play attributes thousands of times a hand.
"""

from __future__ import annotations

from keyword import iskeyword
from operator import attrgetter

from ..errors import RulesError
from ..expr.builtins import Rec


_CARD_OF = attrgetter("card")


def _slotted(base: type, names: tuple, label: str | None = None) -> type:
    """The subclass of `base` with a slot for each of its own names and `names`, made once per
    base, names and label (shown as `Base[label]`, by default the names).

    Plays and actions of one phase all have the same fields. As plain instances they shared one
    dict layout per class with the other phases' (a bid's `call`, a card's `card` and `ekka`), so
    CPython 3.11 kept most of them in real dicts and every field read in the rules and the engine
    was a dict probe (LOAD_ATTR_WITH_HINT); a slot is read without one. A state has its own
    class per variant for the same reason (past 30 fields an instance dict is a real dict)."""
    key = (base, names, label)
    made = _SLOTTED.get(key)
    if made is None:
        made = _SLOTTED[key] = type(base.__name__, (base,), {
            "__slots__": tuple(dict.fromkeys(base._own + names)), "__module__": __name__,
            "__qualname__": f"{base.__name__}[{label or ', '.join(names)}]"})
    return made


_SLOTTED: dict = {}


class Play:
    """One card put into a trick, with the announcements made with it. A candidate's Play (one
    per seat and card, shared) also carries `_event`: the read-only event the log keeps for it.
    `Play(...)` is an instance of a subclass with a slot per field (see _slotted)."""

    __slots__ = ()
    _own = ("seat", "card", "_event")

    def __new__(cls, seat: str, card, **annotations):
        return object.__new__(_slotted(Play, tuple(annotations)) if cls is Play else cls)

    def __init__(self, seat: str, card, **annotations):
        self.seat = seat
        self.card = card
        self._event = None
        for name, value in annotations.items():
            setattr(self, name, value)

    def __repr__(self) -> str:
        return f"{self.seat}:{self.card}"


class Trick:
    """A finished trick: who led, the plays in order, who won it, the cards in order.

    The engine closes a trick with `object.__new__(Trick)` and these four fields set in its own
    code (Hand.apply, RandomCards): a class call with a Python `__init__` was a frame and a bound
    method per trick (tests/test_trick_made.py keeps the two the same)."""

    __slots__ = ("leader", "plays", "winner", "cards")

    def __init__(self, leader: str, plays: list, winner: str):
        self.leader = leader
        self.plays = plays
        self.winner = winner
        self.cards = list(map(_CARD_OF, plays))

    def __repr__(self) -> str:
        return f"Trick({self.leader}: {' '.join(str(p.card) for p in self.plays)} -> {self.winner})"


class LegalEvent(dict):
    """An event that `Hand.legal()` lists: shared between calls (made once per variant), so it
    is read-only. Copy it to act on it: `dict(event, seat=...)`. Equal to, and serialised as,
    a plain dict. `_json`: its JSON text, set by the first writer that makes it (log/lines.py):
    read as an attribute, it costs half a look-up by id (the event never changes)."""

    __slots__ = ("_json",)

    def _read_only(self, *args, **kwargs):
        raise TypeError("a legal action from Hand.legal() is shared and read-only; copy it: dict(action, seat=...)")

    __setitem__ = __delitem__ = __ior__ = _read_only
    update = pop = popitem = clear = setdefault = _read_only

    def __reduce__(self):   # pickled and copied as a plain dict (pickle would set items one by one)
        return (dict, (dict(self),))


class Action:
    """A candidate or actual action, as rule expressions see it (`call`, `card`, `ekka`...).

    The engine gives an action every field of its phase's actions, none where its own type has
    no such field (a rule reads `call` of a pickup as none): reading a field is then a plain
    attribute read, which Python specialises (a class with `__getattr__` makes every attribute
    read four times slower). A candidate the engine builds also carries `_event` (the event it
    stands for, without the seat) and `_plays` (its Play per seat), a call `_logged` (its event
    per seat, as the log keeps it), and `_at`: its number among every candidate of the variant
    (engine/candidates.py; -1 for any other action); names with `_` are not fields. `Action(...)` is an instance of
    a subclass with a slot per field (see _slotted)."""

    __slots__ = ()
    _own = ("type", "_fields", "_event", "_plays", "_at", "_logged")

    def __new__(cls, type_: str, **fields):
        return object.__new__(_slotted(Action, tuple(fields)) if cls is Action else cls)

    def __init__(self, type_: str, **fields):
        self.type = type_
        self._event = self._plays = self._logged = None
        self._at = -1   # (not a candidate: the last of a phase's flags, always false)
        for name, value in fields.items():
            setattr(self, name, value)
        self._fields = tuple(fields)   # (key() reads them: never vars(self), see the module doc)

    def key(self) -> tuple:
        return (self.type,) + tuple(sorted((k, _hashable(getattr(self, k))) for k in self._fields
                                           if not k.startswith("_")))


def _hashable(value):
    if isinstance(value, list):
        return tuple(value)
    return value


# The generic fields that are always lists (the engine keeps them so, and no rule can set them):
# iterating one cannot fail, which lets the compiler fold an aggregate over it whose condition is
# false to its empty value (expr/compiler.py).
ENGINE_LISTS = frozenset({"all_cards", "all_seats", "suits", "trick", "tricks", "played", "hand"})

# A finished trick's lists (Trick's attributes): one item per seat, since the engine closes a
# trick (engine/hand.py, random_cards.py) when every seat has played to it. The compiler writes
# an aggregate over one of them out, item by item (expr/emit.py, expr/lengths.py).
PER_SEAT_LISTS = frozenset({"plays", "cards"})

# The list of plays of the current trick in a `tricks` phase (engine/hand.py appends to it). The
# engine knows its length whenever it calls the phase's functions: 0 .. seats-1 when it narrows
# a player's cards (taking the phase's `narrows[len(trick)]`), every seat's when it asks the
# winner. The compiler specialises those functions on it (expr/lengths.py, rules/compile.py).
CURRENT_TRICK = "trick"

# What a played hand's result (Hand.result()) holds before the scoring steps: (name, value) with
# the value a scored hand starts from (the next dealer is set when result() runs it). A
# specialised score phase's facts_scored builds that whole result at once (rules/scored.py), and
# the score record is made from it when read (engine/scores.py).
RESULT_LEADING = (("thrown_in", False), ("next_dealer", None))


# The generic fields the engine itself changes once the first phase is entered, by the kind of
# phase it is in ("*": in every phase; `hand` follows `hands` and `actor`). The compiler reads it
# to know what a rule's value may see change later (tests/test_lazy_map.py checks it against
# what the engine really does).
ENGINE_WRITES = {
    "*": frozenset({"phase", "actor", "hand", "_memo", "_kept"}),
    "calls": frozenset(),
    "deal_rest": frozenset({"hands", "dealt"}),
    "tricks": frozenset({"hands", "trick", "tricks", "played", "leader"}),
    "score": frozenset(),
}


# The generic fields set when a state is made and never written after (by the engine or a rule):
# a derived value reading only these and the rules' own fields may be kept across events
# (rules/passes/kept.py).
ENGINE_CONSTANT = frozenset({"dealer", "match_scores", "all_cards", "all_seats", "suits"})


# The containers the engine changes in place (a card leaves its holder's hand and joins the
# trick and the cards played, a trick joins the finished ones, the deal's completion fills the
# hands and `dealt`), and the state names that read each. A state variable an effect sets must
# never be one of them, or it would change with them: if any effect's value may read one (found
# on the generated code, rules/compile.py), the engine changes a new copy of that container
# instead (for the hands that costs 3% of a hand).
IN_PLACE = {"hands": frozenset({"hands", "hand"}), "dealt": frozenset({"dealt"}), "trick": frozenset({"trick"}),
            "tricks": frozenset({"tricks"}), "played": frozenset({"played"})}


class State:
    """Attributes are what rule expressions read as names (`hand`, `trick`, `bid`, ...).

    `State(rules, ...)` makes an instance of a subclass made once per variant with a slot for
    each of its fields (generic and declared) and no `__dict__`: a state has about 40 fields,
    past the 30 keys CPython 3.11 keeps inline for an instance, so with a dict every read of a
    field was a dict probe. A field the variant does not declare cannot be set at all."""

    __slots__ = ()
    _own = ("_fields",)

    def __new__(cls, rules, dealer: str, match_scores: dict, initial: dict | None = None, own: bool = False):
        """`initial`: each seat's cards dealt before the bidding (the list is kept as the seat's
        `initial`, a copy is its hand); without it every seat holds none. `match_scores` is copied
        into a Rec, unless `own`: a Rec made for this state alone (Hand's), kept as it is."""
        kind, init, _ = state_maker(rules)
        state = object.__new__(kind)
        init(state, dealer, match_scores if own else Rec(match_scores), initial)
        return state

    def copy(self, copied) -> "State":
        """A new State with `copied(value)` of each field (see Hand.copy), set one by one."""
        new = object.__new__(type(self))
        for name in self._fields:
            setattr(new, name, copied(getattr(self, name)))
        new._fields = self._fields
        return new

    @property
    def hand(self):
        return self.hands.get(self.actor, []) if self.actor else []


def state_maker(rules) -> tuple:
    """(the variant's State subclass, its `init(state, dealer, match_scores, initial)`, the one
    `dealt` before the completion): what State() makes a state with, made once per variant (a
    Hand makes its state with them at once: State.__new__'s frame and the class call fewer)."""
    made = getattr(rules, "_state_made", None)
    if made is None:
        made = rules._state_made = _initializer(rules)
    return made


def initial_dealt(rules) -> dict:
    """The variant's one `dealt` of a state before the completion (every seat one empty list):
    never written, shared by every state made so; the completion replaces it (engine/phases.py)."""
    return state_maker(rules)[2]


def _initializer(rules):
    """(the variant's State subclass, `init(state, dealer, match_scores, initial)`, the one `dealt`
    before the completion): every field set in a fixed order, containers new but those nothing
    changes in place, and `_fields` (what copy() copies). Generated once per variant,
    one assignment a field: setting the ~40 fields in a loop with setattr() took 8 us a hand. Only
    field names (checked to be identifiers) are written into the source; values are globals."""
    seats = list(rules.table.seats)
    values: dict = {}   # global name -> value
    fields: dict = {}   # field -> Python expression

    def const(value) -> str:
        values[f"g{len(values)}"] = value
        return f"g{len(values) - 1}"

    per_seat_keys = [const(seat) for seat in seats]
    per_seat = "{" + ", ".join(f"{key}: []" for key in per_seat_keys) + "}"
    # (`dealt` before the completion: one dict of the variant's, every seat one empty list, never
    # written: the completion gives the state a new dict, deal_rest in engine/phases.py)
    none_dealt = const(dict.fromkeys(seats, []))
    fields.update(dealer="dealer", actor="None", phase="None", public="None",
                  exposed="None",   # a card exposed by accident during the deal, if the deal says so
                  hands=per_seat, initial=per_seat, dealt=none_dealt, trick="[]", tricks="[]", played="[]",
                  # (shared by every hand: nothing changes them, the engine never and a rule cannot)
                  match_scores="match_scores", all_cards=const(list(rules.deck.cards)),
                  all_seats=const(list(seats)), suits=const(list(rules.deck.suits)), leader="None",
                  # values of zero-argument rule functions at this position. A change of the state
                  # replaces it (`if S._memo: S._memo = {}`), never clears it in place: it is this
                  # state's alone (Hand.copy copies it), so a memo still empty is kept, no dict made
                  _memo="{}",
                  # derived values kept across events with the objects they read (rules/passes/kept.py):
                  # written in place, by the generated functions only; this state's alone
                  _kept="{}")
    for name, value in rules.state_init.items():   # (one level deep is enough for YAML initials)
        if isinstance(value, (list, dict)):   # (never written in place: see _shared_initial)
            fields[name] = _copy_display(value, const) if _written_in_place(name) else const(_shared_initial(value))
        else:
            fields[name] = const(value)
    if not all(name.isidentifier() and not iskeyword(name) for name in fields):
        raise RulesError(f"a state field is not a name: {', '.join(n for n in fields if not n.isidentifier() or iskeyword(n))}")
    lines = [f"    self.{name} = {source}" for name, source in fields.items() if name not in ("hands", "initial")]
    # the cards dealt, when given, set at once (not empty lists made to be replaced)
    dealt_initial = "{" + ", ".join(f"{key}: initial[{key}]" for key in per_seat_keys) + "}"
    # (each hand is the seat's initial list until a tricks phase, which makes it the seat's own:
    # own_hands; the completion of the deal replaces it before that)
    dealt_hands = "{" + ", ".join(f"{key}: initial[{key}]" for key in per_seat_keys) + "}"
    lines += ["    if initial is None:", f"        self.hands = {per_seat}", f"        self.initial = {per_seat}",
              "    else:", f"        self.hands = {dealt_hands}", f"        self.initial = {dealt_initial}"]
    source = ("def init(self, dealer, match_scores, initial):\n" + "\n".join(lines)
              + f"\n    self._fields = {const(tuple(fields))}\n")
    namespace = {"__builtins__": {}, **values}
    exec(compile(source, "<state fields>", "exec"), namespace)  # field names and global names only
    return _slotted(State, tuple(fields), rules.variant.hash), namespace["init"], namespace[none_dealt]


def _copy_display(value, const) -> str:
    """The source of a new shallow copy of a list or dict initial, as `.copy()` makes (a plain
    list or dict): a display, not a method call per container per hand (`[]`, `{}` when empty)."""
    if isinstance(value, list):
        return f"[*{const(value)}]" if value else "[]"
    return f"{{**{const(value)}}}" if value else "{}"


# What a state's container field may be changed in place by: the engine (IN_PLACE's containers and
# the memo of derived values), and nothing else. Rule expressions are free of side effects
# (rules/LANGUAGE.md): an effect sets a field to a new value (`declared + [...]`), never changes
# the one it holds; Hand.copy copies every container.
_ENGINE_IN_PLACE = frozenset(IN_PLACE) | {"_memo", "_kept"}

def _written_in_place(name: str) -> bool:
    return name in _ENGINE_IN_PLACE


def _shared_initial(value):
    """The variant's one shallow copy of a list or dict initial that nothing changes in place,
    given to every state (not the rules' own value). Each state made a copy of its own per hand:
    4 containers a hand made and freed in the default rules (tools/BENCHMARKS.md, step 112)."""
    return type(value)(value)


def own_hands(S) -> None:
    """Each seat's hand a list of its own, not its `initial` one, before a card is played (a card
    played leaves its hand in place): a state shares the initial lists until then, and the deal's
    completion, where there is one, has already replaced every hand (tools/BENCHMARKS.md, step 112)."""
    initial = S.initial
    S.hands = {seat: [*cards] if cards is initial.get(seat) else cards for seat, cards in S.hands.items()}
