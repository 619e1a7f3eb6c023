"""The fixed, documented registry of builtin functions that rule expressions may call.

Builtins are generic: list and arithmetic helpers, seat geometry read from the table the rules
declare, and one combinatorial helper (`best_split`). None of them knows a Baloot rule; rules
combine them. `BUILTIN_DOCS` is what `baloot rules builtins` prints.
"""

from __future__ import annotations

from functools import partial
from itertools import chain

from .runs import runs as _runs
from .split import best_split as _split


class Rec(dict):
    """A record value built by a rule expression (`{name: ..., cards: ...}`) or by `map(...)`.

    A field reads as an attribute (`d.project.value`); the dict's own methods keep their names
    (a field called `items` is read as `rec["items"]`), and a missing field is an AttributeError.
    This is `__getattribute__`, not `__getattr__`: with `__getattr__` CPython first fails the
    ordinary lookup, which made every field read cost about 0.5 us, four times this."""

    __slots__ = ()

    def __getattribute__(self, name):   # (no default argument: CPython fills it in at every call)
        if name in _DICT_NAMES:
            return _own(self, name)
        try:
            return self[name]
        except KeyError:
            return _own(self, name)   # (raises the AttributeError)


_DICT_NAMES = REC_OWN_NAMES = frozenset(dir(Rec))   # (a record's own names: never read as its fields)


class LazyMap(Rec):
    """A `map(...)` set by an effect whose entries are each worked out when first read.

    The compiler makes one only where that cannot be told from the eager map (rules/passes/lazy_maps.py,
    `lazy_maps`): the entries read state that nothing changes for the rest of the hand, and they
    read it from `frozen`, a copy of just those fields taken when the effect ran (so the map holds
    no reference to the live state, and copies of a hand may share it). Most seats never declare
    a project, and a hand then never pays for finding them. Every way of looking at the whole map
    (iterating, comparing, printing, JSON, pickle) first fills in what is missing, in key order."""

    __slots__ = ("_keys", "_entry", "_frozen")

    def __init__(self, keys, entry, state, fields):
        frozen = _Frozen()   # (no __init__ to run: a frame fewer than Values())
        for name in fields:
            setattr(frozen, name, getattr(state, name))
        _set(self, "_keys", tuple(dict.fromkeys(keys)))   # (a key given twice is one entry, as in a dict)
        _set(self, "_entry", entry)
        _set(self, "_frozen", frozen)

    def __missing__(self, key):
        if key not in _own(self, "_keys"):
            raise KeyError(key)
        value = self[key] = _own(self, "_entry")(_own(self, "_frozen"), key)
        return value

    def _filled(self) -> dict:
        """The whole map as a plain dict, in key order (entries worked out as needed)."""
        return {key: self[key] for key in _own(self, "_keys")}

    def get(self, key, default=None):
        return self[key] if key in _own(self, "_keys") else default

    def __contains__(self, key):
        return key in _own(self, "_keys")

    def __len__(self):
        return len(_own(self, "_keys"))

    def __iter__(self):
        return iter(_own(self, "_keys"))

    def keys(self):
        return self._filled().keys()

    def values(self):
        return self._filled().values()

    def items(self):
        return self._filled().items()

    def copy(self):
        return Rec(self._filled())

    def __eq__(self, other):
        return self._filled() == (other._filled() if isinstance(other, LazyMap) else other)

    def __ne__(self, other):
        return not self == other

    __hash__ = None

    def __or__(self, other):
        return Rec(self._filled()) | other

    def __ror__(self, other):
        return other | self._filled()

    def __repr__(self):
        return repr(self._filled())

    def __reduce__(self):   # pickled (and deep-copied) as the filled-in record
        return (Rec, (self._filled(),))


_own = object.__getattribute__
_set = object.__setattr__


class Values:
    """The facts and scoring steps of one hand, as attributes (`V.card_points`). A plain class,
    filled one attribute at a time: reading an attribute of a SimpleNamespace takes about twice
    as long, its attributes living in a real dict."""

    def __init__(self, **values):
        for name, value in values.items():
            setattr(self, name, value)


class _Frozen:
    """The fields a LazyMap's entries read, copied when it is made: a plain instance, set one
    attribute at a time (see Values)."""


def scoring_namespace(names) -> type:
    """The class of one variant's facts-and-steps namespace: a slot for each fact and scoring
    step (the engine's path; `Values` takes any name). A plain namespace would start with the
    facts and grow by every step, past CPython's 30 shared keys, and `vars()` of its facts would
    make every later read a dict lookup: slots are read and set without a dict at all."""
    return type("Scoring", (), {"__slots__": tuple(dict.fromkeys(names)), "__module__": __name__})


def _round_to(x: int, step: int, half: str) -> int:
    """x rounded to a multiple of step; an exact half goes 'down' or 'up'."""
    low = (x // step) * step
    rest = x - low
    if rest * 2 < step:
        return low
    if rest * 2 > step:
        return low + step
    return low + step if half == "up" else low


def _windows(xs, n):
    # (the common cases without a comprehension's frame: a run no longer than the window)
    if type(xs) is not list:
        xs = list(xs)
    count = len(xs) - n + 1
    if n <= 0 or count <= 0:
        return []
    if count == 1:
        return [xs[:]]
    return [xs[i:i + n] for i in range(count)]


def _flatten(xss):
    return [*_chain(xss)]


_chain = chain.from_iterable
flatten = _flatten   # (the generated modules' `_flat` too: rules/compiled.py)


def _unique(xs):
    seen, out = set(), []
    for x in xs:
        key = id(x) if isinstance(x, (dict, list)) else x
        if key not in seen:
            seen.add(key)
            out.append(x)
    return out


def _index(xs, x):
    if type(xs) is not list:   # (a list is searched as it is, not copied)
        xs = list(xs)
    try:
        return xs.index(x)
    except ValueError:
        return -1


_best_split = partial(_split, frozenset({dict, Rec}))   # (plain records: a field read by subscript is the dict's own)


def _text(x) -> str:
    if isinstance(x, (list, tuple)):
        return "[" + ", ".join(_text(v) for v in x) + "]"
    if isinstance(x, dict):
        return "{" + ", ".join(f"{k}: {_text(v)}" for k, v in x.items()) + "}"
    if x is None:
        return "none"
    if x is True:
        return "true"
    if x is False:
        return "false"
    return str(x)


# name -> (function or factory marker, min args, max args, doc)
BUILTIN_DOCS: dict[str, tuple[int, int, str]] = {
    "len": (1, 1, "len(xs): the number of items of a list or mapping"),
    "abs": (1, 1, "abs(x): the absolute value"),
    "index": (2, 2, "index(xs, x): the position of x in xs, from 0 (-1 when absent)"),
    "round_to": (3, 3, "round_to(x, step, half): x rounded to a multiple of step; an exact half goes 'down' or 'up'"),
    "windows": (2, 2, "windows(xs, n): every run of n consecutive items of xs"),
    "flatten": (1, 1, "flatten(xss): the items of a list of lists, in order"),
    "unique": (1, 1, "unique(xs): xs without repeats, first occurrence kept"),
    "runs": (3, 3, "runs(cards, order, n): maximal runs, of n cards or more, of one suit, consecutive in the rank order given"),
    "best_split": (1, 1, "best_split(groups): disjoint groups (records with cards, value, key) of greatest total value"),
    "text": (1, 1, "text(x): x as text, for explanations"),
    "seat_after": (2, 2, "seat_after(seat, n): the seat n turns after seat, in the table's turn order"),
    "distance": (2, 2, "distance(a, b): how many turns after a comes b (0 for the same seat)"),
}


def make_builtins(table) -> dict[str, object]:
    """The builtins bound to one table (seat order), as the compiled rules' globals."""
    return {
        "b_len": len,
        "b_abs": abs,
        "b_index": _index,
        "b_round_to": _round_to,
        "b_windows": _windows,
        "b_flatten": _flatten,
        "b_unique": _unique,
        "b_runs": _runs,
        "b_best_split": _best_split,
        "b_text": _text,
        "b_seat_after": table.after,
        "b_distance": table.distance,
    }


def builtin_arity() -> dict[str, tuple[int, int]]:
    return {name: (low, high) for name, (low, high, _doc) in BUILTIN_DOCS.items()}


class _OnDemand(dict):
    """A per-card table (rules/passes/card_tables.py) missing the cards whose value raised:
    computed (and so raising) when read."""

    __slots__ = ("function",)

    def __missing__(self, card):
        return self.function(card)


def card_table(function, deck) -> dict:
    """{card: function(card)} over the deck: a plain dict (the fastest lookup) when every card
    has a value, else one that computes the missing ones when they are read (and so raises)."""
    table, complete = {}, True
    for card in deck:
        try:
            table[card] = function(card)
        except Exception:   # (read again, and raised, where the rules read it)
            complete = False
    if complete:
        return table
    missing = _OnDemand(table)
    missing.function = function
    return missing


def keyed_card_table(function, deck, domains) -> dict:
    """{k1: {k2: ... {card: function(card, k1, k2, ...)}}} for every key in its domain: the
    per-card table of a function that also reads derived values of few possible values
    (rules/passes/card_tables.py). A domain is (whether it holds the deck's suits, its other
    values); each innermost table is a card_table."""
    domains = tuple(domains)
    suits = tuple(dict.fromkeys(card.suit for card in deck)) if any(d[0] for d in domains) else ()

    def level(keys: tuple, rest: tuple):
        if not rest:
            return card_table(lambda card: function(card, *keys), deck)
        with_suits, values = rest[0]
        domain = dict.fromkeys((suits if with_suits else ()) + tuple(values))
        return {key: level(keys + (key,), rest[1:]) for key in domain}

    return level((), domains)


def keyed_fill(table: dict, fields: tuple, S, value, lists: bool):
    """Return `value`, the derived value just worked out from `S`, after keeping it in `table`
    ({v1: {v2: ... value}}, rules/passes/keyed.py) under the values `S` holds in the key fields
    (`fields`: (name, values) pairs), when each of them is one of its field's values and the
    value is plain (text, int, bool, none; or, with `lists`, a list of those). The table is
    filled as positions ask, never ahead: a body is worked out only where the rules read it, under
    the hand's time budget (budget.py), so a slow one cannot hold up loading the rules. With no
    fields the key is ()."""
    if not (_plain(value) or (lists and type(value) is list and all(_plain(v) for v in value))):
        return value
    if not fields:
        table[()] = value
        return value
    row = table
    try:
        keys = [getattr(S, name) for name, _ in fields]
        for key, (_, values) in zip(keys, fields):
            if key not in values:   # (a value outside the field's few: not kept, the table stays small)
                return value
        for key in keys[:-1]:
            row = row.setdefault(key, {})
        row[keys[-1]] = value
    except Exception:   # (a field the state lacks, an unhashable value: not kept)
        pass
    return value


def _plain(value) -> bool:
    return value is None or type(value) in (str, int, bool)
