"""index and round_to written as Python expressions where the types say what the call does
(expr/builtin_forms.py, expr/emit.py): the same answers as builtins.py's functions, on lists of
ints, bools, None and texts, negative numbers and bools rounded; the call kept where the types
or the operands do not allow the form."""

import ast
import itertools

import pytest

from baloot_spec.expr import types as ty
from baloot_spec.expr.builtin_forms import index_of_list, rounded
from baloot_spec.expr.builtins import _index, _round_to
from baloot_spec.expr.compiler import Scope, to_python


def _eval(node: ast.expr, **names):
    return eval(compile(ast.fix_missing_locations(ast.Expression(body=node)), "<test>", "eval"), {}, names)


LISTS = [[], [1, 2, 3], [True, 1, 0], [0, False], [None, "N", "E"], ["N", "E", "N"], [[1], [2]], [1.0, 2]]
VALUES = [1, True, False, 0, None, "N", "S", [2], 2.0, -1]


@pytest.mark.parametrize("xs, v", list(itertools.product(LISTS, VALUES)))
def test_index_of_a_list_is_the_builtins(xs, v):
    form = index_of_list(ast.Name(id="xs", ctx=ast.Load()), ast.Name(id="v", ctx=ast.Load()), "list", True, True)
    assert _eval(form, xs=xs, v=v) == _index(xs, v)


def test_index_keeps_the_call_where_it_may_not_repeat_or_fail_first():
    xs, v = ast.Name(id="xs", ctx=ast.Load()), ast.Name(id="v", ctx=ast.Load())
    assert index_of_list(xs, v, "unknown", True, True) is None   # (a text: `in` would find substrings)
    assert index_of_list(xs, v, "list", False, True) is None     # (a list built in place: twice)
    assert index_of_list(xs, v, "list", True, False) is None     # (the value read first might fail first)


@pytest.mark.parametrize("x, step, half", list(itertools.product(
    [*range(-25, 26), True, False], [1, 2, 3, 5, 10, 16], ["up", "down", "other"])))
def test_round_to_of_an_int_is_the_builtins(x, step, half):
    form = rounded(ast.Name(id="x", ctx=ast.Load()), ast.Constant(step), ast.Constant(half), "int")
    got = _eval(form, x=x)
    assert got == _round_to(x, step, half) and type(got) is type(_round_to(x, step, half)) is int


@pytest.mark.parametrize("kind, step, half", [
    ("unknown", 10, "up"), ("text", 10, "up"), ("none", 10, "up"),   # (None, a float: the builtin's failure or value)
    ("int", 0, "up"), ("int", -10, "up"), ("int", True, "up"),       # (a step that is no positive int)
    ("int", 10, None)])
def test_round_to_keeps_the_call_where_the_types_do_not_say(kind, step, half):
    assert rounded(ast.Name(id="x", ctx=ast.Load()), ast.Constant(step), ast.Constant(half), kind) is None


SEATED = ty.Type("record", fields=(("seat", ty.SEAT),))
SCOPE = Scope(state=frozenset({"xs", "ts", "n", "u", "rs", "r"}), functions={"d": 0},
              builtins={"index": (2, 2), "round_to": (3, 3), "len": (1, 1)},
              attributes=frozenset({"seat", "other"}), record_fields=frozenset(),
              state_types={"xs": ty.list_of(ty.INT), "n": ty.INT, "r": SEATED, "rs": ty.list_of(SEATED)})


@pytest.mark.parametrize("text, written", [
    ("index(xs, 3)", True),
    ("index(xs, n)", True),           # a state field: cannot fail
    ("index(ts, 3)", False),          # not typed a list (a text: substrings)
    ("index(xs, d)", False),          # a derived value may fail: read second in the call
    ("index(xs, r.seat)", True),      # a field the record's type has
    ("index(xs, u.seat)", False),     # a field of a value not typed a record: may fail
    ("count(index(xs, q.seat) for q in rs)", True),
    ("index([x for x in xs if x > 1], 3)", False),   # built in place: not twice
    ("round_to(n, 10, 'up')", True),
    ("round_to(u, 10, 'up')", False),  # not typed int
    ("round_to(n, n, 'up')", False),   # no literal step
])
def test_the_emitter_writes_the_form_where_the_types_allow(text, written):
    python = to_python(text, SCOPE)
    assert ("b_index" not in python and "b_round_to" not in python) is written, python
