"""The types of rule-expression values, as far as the compiler can know them.

A type is what the resolver (resolve.py) puts on every node: `bool`, `int`, `text`, `none`,
`card`, `seat`, `suit`, `play`, `trick`, `list[X]`, `map[X]` (keyed by data: `hands`,
`map(...)`), `record{a, b}` (a `{a: ..., b: ...}` literal), or `unknown` where nothing
says (a state variable set by effects, a function parameter). The checks built on them refuse
only what must fail or mean nothing at run time (an `only:` that is a list, `hand + 1`,
`card.seat`); `unknown` never causes an error.

The engine's generic values are typed here because the engine defines them (engine/state.py,
cards.py); what a Baloot rule means stays in rules/.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Type:
    kind: str                   # one of KINDS
    item: "Type | None" = None  # the items of a list, the values of a map
    fields: tuple = ()          # a record's (name, type) pairs

    def __str__(self) -> str:
        if self.kind in ("list", "map"):
            return f"{self.kind}[{self.item}]"
        if self.kind == "record" and self.fields:
            return "record{" + ", ".join(name for name, _ in self.fields) + "}"
        return self.kind

    def field(self, name: str) -> "Type | None":
        for own, kind in self.fields:
            if own == name:
                return kind
        return None


KINDS = ("unknown", "bool", "int", "text", "none", "card", "seat", "suit", "play", "trick", "list", "map", "record")
ANY, BOOL, INT, TEXT, NONE = Type("unknown"), Type("bool"), Type("int"), Type("text"), Type("none")
CARD, SEAT, SUIT, PLAY, TRICK = Type("card"), Type("seat"), Type("suit"), Type("play"), Type("trick")
RECORD = Type("record")


def list_of(item: Type) -> Type:
    return Type("list", item)


def map_of(item: Type) -> Type:
    return Type("map", item)


# Values that are text at run time (a seat is 'N', a suit 'S'): they compare with text.
TEXTUAL = frozenset({"text", "seat", "suit"})
NUMERIC = frozenset({"int", "bool"})   # (Python's bool is an int: `true + 1` is 2)
ITERABLE = frozenset({"list", "map", "record", "text", "seat", "suit", "unknown"})
# What has no attributes a rule may read (a Python method is no value of the language).
NO_ATTRIBUTES = frozenset({"bool", "int", "text", "none", "seat", "suit", "list"})
NOT_INDEXABLE = frozenset({"bool", "int", "none", "card", "play", "trick"})

# The fields the engine keeps on the state of a hand (rules/scopes.py GENERIC_STATE; their
# meanings: rules/names.py ENGINE_FIELDS). `actor` is a seat: the engine sets it to the seat of the
# action it judges or applies (none between actions, as a rule's value may be), so what an effect
# builds from it holds seats (expr/builtin_forms.py: `unique` of seats).
ENGINE_FIELD_TYPES = {
    "dealer": SEAT, "actor": SEAT, "phase": TEXT, "public": ANY, "exposed": ANY,
    "hands": map_of(list_of(CARD)), "hand": list_of(CARD), "initial": map_of(list_of(CARD)),
    "dealt": map_of(list_of(CARD)), "trick": list_of(PLAY), "tricks": list_of(TRICK),
    "played": list_of(CARD), "match_scores": map_of(INT), "all_cards": list_of(CARD),
    "all_seats": list_of(SEAT), "suits": list_of(SUIT),
}
# The attributes of the engine's values (a play's annotations are `unknown`, see attribute_type).
ATTRIBUTES = {
    "card": {"suit": SUIT, "rank": TEXT, "text": TEXT},
    "play": {"seat": SEAT, "card": CARD},
    "trick": {"leader": SEAT, "plays": list_of(PLAY), "winner": SEAT, "cards": list_of(CARD)},
}
BUILTIN_RESULTS = {
    "len": INT, "abs": INT, "index": INT, "round_to": INT, "windows": list_of(ANY), "flatten": list_of(ANY),
    "unique": list_of(ANY), "runs": list_of(list_of(CARD)), "best_split": list_of(ANY), "text": TEXT,
    "seat_after": SEAT, "distance": INT,
}


def builtin_result(name: str, args) -> Type:
    """The type of a builtin's result; for the builtins that pass items through (`flatten` of a
    list of lists, `unique` of a list), the items' own type, so a record built in a comprehension
    is still known to be one after them (expr/emit.py reads its fields by subscript)."""
    if len(args) == 1 and args[0].type.kind == "list":
        item = args[0].type.item
        if name == "unique" and item is not None:
            return list_of(item)
        if name == "flatten" and item is not None and item.kind == "list" and item.item is not None:
            return list_of(item.item)
    return BUILTIN_RESULTS.get(name, ANY)


def of_value(value) -> Type:
    """The type of a knob's or a constant's value."""
    if isinstance(value, bool):
        return BOOL
    if isinstance(value, int):
        return INT
    if isinstance(value, str):
        return TEXT
    if value is None:
        return NONE
    if isinstance(value, (list, tuple)):
        return list_of(join(*map(of_value, value)) if value else ANY)
    if isinstance(value, dict):
        return map_of(join(*map(of_value, value.values())) if value else ANY)
    return ANY


def join(*types: Type) -> Type:
    """The type of a value that may be any of these: their common type, else `unknown`."""
    first = types[0] if types else ANY
    for other in types[1:]:
        if other != first:
            if first.kind == other.kind == "list":   # (an item None: no item known yet, rules/passes/state_types.py)
                first = list_of(join(first.item, other.item) if first.item and other.item else first.item or other.item)
            elif first.kind == other.kind == "record" and [n for n, _ in first.fields] == [n for n, _ in other.fields]:
                first = Type("record", fields=tuple((n, join(a, b)) for (n, a), (_, b) in zip(first.fields, other.fields)))
            elif first.kind in TEXTUAL and other.kind in TEXTUAL:
                first = TEXT
            else:
                return ANY
    return first


def known(kind: Type) -> bool:
    return kind.kind != "unknown"
