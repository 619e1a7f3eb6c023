"""The type of a declared state field, from its initial value and every effect that sets it.

A state field the rules declare is typed `unknown` where it is read (rules set it, the type
checker does not follow them). Where every value it can hold is a record, or a list (or map) of
records, built by record literals, the emitter can read their fields by subscript (expr/emit.py,
with expr/builtin_forms.py `record_has`): `declared`, a list of `{seat, name}` records appended
by an effect, is read as `d['seat']`, not through the record's Python __getattribute__.

The type is a fixed point: a field starts as its initial value's type (an empty list as a list of
items not known yet, which any list's type then says), each effect that sets it is checked with
every field at its current guess, and the guess becomes the join of the initial type and those
results, until nothing changes. At that point every value an effect can store is of the guessed
type if the state held values of their guessed types before, and the initial values are: so by
induction every value the field holds is. Rule functions count as `unknown` here (their types are
worked out later, from the state's), an effect that does not check as `unknown`, so the guess
only widens. Only a type that holds records is kept (other fields stay `unknown`, as before,
so every other check and emitted read stays as it was); a field whose name a fact, a step or the
match context reuses is never typed (a rule function may see that value under the name)."""

from __future__ import annotations

from ...expr import tree as t
from ...expr import types as ty
from ...expr.resolve import check

ROUNDS = 6   # (each round widens a guess or stops; joins reach `unknown` in a few)


def state_types(effects: list, scope_of, initial: dict, excluded: frozenset, guesses: dict) -> dict:
    """{field: type} for the declared state fields in `initial` (name -> initial value) that hold
    records. `scope_of(effect)` is the scope an effect's values are checked in, whose resolver
    reads the state's types from `guesses` (a dict this function fills in and empties again)."""
    setters: dict = {name: [] for name in initial if name not in excluded}
    for effect in effects:
        for name, text in (effect.get("set") or {}).items():
            if name in setters:
                setters[name].append((text, effect))
    start = {name: _start(initial[name]) for name in setters}
    guess = dict(start)
    try:
        for _ in range(ROUNDS):
            guesses.clear()
            guesses.update(guess)
            new = {}
            for name, texts in setters.items():
                kind = start[name]
                for text, effect in texts:
                    kind = _join(kind, _type_of(text, effect, scope_of))
                new[name] = kind
            if new == guess:
                break
            guess = new
        else:
            return {}
    finally:
        guesses.clear()
    return {name: _settled(kind) for name, kind in guess.items() if _holds_records(kind)}


def _start(value) -> ty.Type:
    if isinstance(value, list) and not value:
        return ty.Type("list", None)   # (no item yet: the items' type is what the effects add)
    return ty.of_value(value)


def _type_of(text, effect, scope_of) -> ty.Type:
    try:
        tree = check(text, scope_of(effect))
    except Exception:   # (reported, located, when the effect is compiled)
        return ty.ANY
    return _start([]) if type(tree) is t.ListLit and not tree.items else tree.type   # (`[]`: emptied)


def _join(a: ty.Type, b: ty.Type) -> ty.Type:
    if a.kind == b.kind == "list" and (a.item is None or b.item is None):
        return a if b.item is None else b
    return ty.join(a, b)


def _settled(kind: ty.Type) -> ty.Type:
    return ty.list_of(ty.ANY) if kind.kind == "list" and kind.item is None else kind


def _holds_records(kind: ty.Type) -> bool:
    if kind.kind in ("list", "map") and kind.item is not None:
        kind = kind.item
    return kind.kind == "record" and bool(kind.fields)
