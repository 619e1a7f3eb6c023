"""`unique` of items typed as hashed values written as `[*_fromkeys(xs)]` (expr/builtin_forms.py):
the same items in the same order as builtins.py's `_unique` (the first of equal items, 1 and
True equal, None kept), without its Python loop; the call kept where the items' type does not say
they are never a dict or a list. The engine's `actor` is typed a seat (expr/types.py), so the
seats of records an effect built from it are seats, and the default rules' `unique` of the
declared seats is the form."""

import ast

import pytest

from baloot_spec.cards import Table
from baloot_spec.expr import types as ty
from baloot_spec.expr.builtin_forms import FROMKEYS, unique_of_hashable
from baloot_spec.expr.builtins import Rec, _unique, make_builtins
from baloot_spec.expr.compiler import Scope, to_python
from baloot_spec.rules import load_variant
from baloot_spec.rules.compiled import SAFE_PY_BUILTINS

_XS = ast.Name(id="xs", ctx=ast.Load())

LISTS = [[], [1], [1, 1], [1, True, 1.0, 0, False], [True, 1], [None, None, "N"], ["N", "E", "N", "S", "E", "W"],
         ["E", None, "E", 0, False, ""], list("NESWNESW")]


@pytest.mark.parametrize("xs", LISTS)
def test_the_form_is_the_builtins_answer(xs):
    form = unique_of_hashable(_XS, ty.list_of(ty.TEXT))
    code = compile(ast.fix_missing_locations(ast.Expression(body=form)), "<test>", "eval")
    got = eval(code, {"__builtins__": SAFE_PY_BUILTINS}, {"xs": xs})
    want = _unique(xs)
    assert got == want and [type(x) for x in got] == [type(x) for x in want]
    assert all(a is b for a, b in zip(got, want))   # (the first of equal items, the same objects)


@pytest.mark.parametrize("kind", ["bool", "int", "text", "none", "seat", "suit", "card"])
def test_items_never_a_dict_or_a_list_take_the_form(kind):
    assert unique_of_hashable(_XS, ty.list_of(ty.Type(kind))) is not None


@pytest.mark.parametrize("kind", [ty.ANY, ty.list_of(ty.INT), ty.map_of(ty.INT), ty.Type("record", fields=(("a", ty.INT),)),
                                  ty.Type("list", None), ty.TEXT, ty.map_of(ty.TEXT)])
def test_the_call_is_kept_where_the_items_may_be_compared_by_identity(kind):
    """Records and lists are told apart by identity in `_unique` (a dict's keys would hash them:
    a TypeError); unknown items may be either; a text is iterated by characters by neither."""
    xs_type = kind if kind.kind in ("text", "map") or kind.item is None else ty.list_of(kind)
    assert unique_of_hashable(_XS, xs_type) is None


SEATED = ty.Type("record", fields=(("seat", ty.SEAT),))


def _scope(**types) -> Scope:
    return Scope(state=frozenset({"xs", "ys", "rs", "u"}), attributes=frozenset({"seat"}), record_fields=frozenset(),
                 builtins={"unique": (1, 1)}, state_types=types)


@pytest.mark.parametrize("text, written", [
    ("unique(xs)", True),                    # list[int]
    ("unique([r.seat for r in rs])", True),  # the seats of records typed {seat: seat}
    ("unique(ys)", False),                   # list[list[int]]: by identity
    ("unique(u)", False),                    # unknown
    ("unique(rs)", False),                   # records: by identity
])
def test_the_emitter_writes_the_form_where_the_types_allow(text, written):
    scope = _scope(xs=ty.list_of(ty.INT), ys=ty.list_of(ty.list_of(ty.INT)), rs=ty.list_of(SEATED))
    python = to_python(text, scope)
    assert (FROMKEYS in python and "b_unique" not in python) is written, python
    if written:
        namespace = {"__builtins__": SAFE_PY_BUILTINS, "_R": Rec,
                     **make_builtins(Table(["N", "W", "S", "E"], {"NS": ["N", "S"], "EW": ["E", "W"]}))}
        exec(compile(f"def f(S):\n    return {python}\n", "<test>", "exec"), namespace)
        state = Rec(xs=[3, 1, 3, True, 2], rs=[Rec(seat=s) for s in "NENWN"])
        want = _unique(state.xs) if text == "unique(xs)" else _unique([r.seat for r in state.rs])
        assert namespace["f"](state) == want


def test_the_engines_actor_is_a_seat():
    assert ty.ENGINE_FIELD_TYPES["actor"] == ty.SEAT


def test_the_default_rules_unique_of_the_declared_seats_is_the_form():
    source = load_variant("default").python_source
    for name in ("f_declaration_order", "f_declared_projects"):
        body = source.split(f"def {name}(", 1)[1].split("\ndef ", 1)[0]
        assert "b_unique" not in body and f"[*{FROMKEYS}(" in body, name
    assert FROMKEYS in SAFE_PY_BUILTINS


@pytest.mark.parametrize("seats", [[], ["N"], ["N", "N", "E"], ["E", "N", "E", "W", "S", "N"]])
def test_the_form_in_a_rule_function_is_the_builtins_answer(seats):
    """The default rules' declaration order on a state's declarations (no memo: computed)."""
    declaration_order = load_variant("default").functions["declaration_order"]
    assert declaration_order(Rec(declared=[Rec(seat=s, name="sira") for s in seats])) == _unique(seats)
