"""`flatten` of a list whose items are typed lists (expr/builtin_forms.py `flat_of_lists`): of a
display, `[*a, *b]`; of a comprehension, `_flat([...])`, which the lowering (expr/lower.py) writes
as one loop adding each list's items to the result as it is made (a comprehension's items
appended in its own loops, a starred display's lists extended one after the other), and which
expr/unroll.py makes a starred display where it writes the comprehension out. The same items in
the same order as builtins.py's `flatten`, the same evaluations in the same order; other
arguments keep `b_flatten`."""

import ast
import random

import pytest

from baloot_spec.cards import Table
from baloot_spec.expr import types as ty
from baloot_spec.expr.builtin_forms import FLAT, flat_of_lists
from baloot_spec.expr.builtins import Rec, flatten, _runs, _windows, make_builtins
from baloot_spec.expr.compiler import Scope, to_python
from baloot_spec.expr.lower import lower_function
from baloot_spec.expr.unroll import unroll
from baloot_spec.rules import load_variant
from baloot_spec.rules.compiled import SAFE_PY_BUILTINS
from logged_runs import run_logged

_A, _B = ast.Name(id="a", ctx=ast.Load()), ast.Name(id="b", ctx=ast.Load())
LISTS = ty.list_of(ty.list_of(ty.INT))


def test_a_display_of_lists_is_a_starred_display():
    form = flat_of_lists(ast.List(elts=[_A, _B], ctx=ast.Load()), LISTS)
    assert ast.unparse(form) == "[*a, *b]"
    got = eval(compile(ast.fix_missing_locations(ast.Expression(body=form)), "<t>", "eval"), {}, {"a": [1, 2], "b": [3]})
    assert got == flatten([[1, 2], [3]])


def test_a_comprehension_of_lists_is_marked_and_anything_else_keeps_the_call():
    comp = ast.parse("[x for x in xs]", mode="eval").body
    assert ast.unparse(flat_of_lists(comp, LISTS)) == f"{FLAT}([x for x in xs])"
    assert flat_of_lists(_A, LISTS) is None   # (a name: b_flatten)
    for kind in (ty.list_of(ty.ANY), ty.list_of(ty.INT), ty.ANY, ty.Type("list", None)):
        assert flat_of_lists(ast.List(elts=[_A, _B], ctx=ast.Load()), kind) is None
    starred = ast.List(elts=[ast.Starred(value=_A, ctx=ast.Load())], ctx=ast.Load())
    assert flat_of_lists(starred, LISTS) is None
    assert SAFE_PY_BUILTINS[FLAT] is flatten   # (where it is not lowered: the builtin itself)


def _scope(**types) -> Scope:
    return Scope(state=frozenset({"xss", "xs", "u"}), attributes=frozenset(), record_fields=frozenset(),
                 builtins={"flatten": (1, 1), "windows": (2, 2)}, state_types=types)


@pytest.mark.parametrize("text, form", [
    ("flatten([xs, xs])", "[*S.xs, *S.xs]"),
    ("flatten([windows(xs, n) for n in xss])", FLAT),
    ("flatten([[x, x] for x in xs])", FLAT),
    ("flatten(xss)", "b_flatten"),     # a name: the call
    ("flatten(u)", "b_flatten"),       # unknown items
])
def test_the_emitter_writes_the_form_where_the_types_allow(text, form):
    python = to_python(text, _scope(xss=LISTS, xs=ty.list_of(ty.INT)))
    assert form in python and (form == "b_flatten" or "b_flatten" not in python), python


def _lowered(expr: str) -> str:
    module = ast.parse(f"def f(S):\n    return {expr}\n")
    module.body = [lower_function(module.body[0])]
    return ast.unparse(ast.fix_missing_locations(module)) + "\n"


def _run(source: str, S):
    """What f(S) of `source` gives, and everything it evaluated, in order (tests/logged_runs.py)."""
    return run_logged(ast.parse(source).body[0], (S,), **{FLAT: flatten, "b_flatten": flatten, "b_windows": _windows})


class State:
    def __init__(self, **fields):
        self.__dict__.update(fields)


STATES = [State(xs=[], xss=[]), State(xs=[1, 2, 3], xss=[[1, 2], [], [3]]), State(xs=[0, 4, 4, 1], xss=[[0], [5, 6]]),
          State(xs=[1, 0], xss=[[1], [0, 0]])]


@pytest.mark.parametrize("expr, added", [
    ("_flat([ev('l', [x, x]) for x in S.xs if ev('c', x)])", ".extend("),
    ("_flat([[ev('i', y) for y in x if y] for x in S.xss])", ".append("),                 # appended in its own loop
    ("_flat([[*ev('a', x), *b_windows(ev('b', x), 2)] for x in S.xss])", ".extend("),    # one extend a list
    ("_flat([[ev('i', 1 // y) for y in x] for x in S.xss])", ".append("),                 # an error at the same point
    ("_flat([b_windows(S.xs, n) for n in [ev('n', 1), 2, 3]])", ".extend("),
])
def test_the_lowered_form_computes_whatflatten_of_the_list_computed(expr, added):
    source = f"def f(S):\n    return {expr}\n"
    lowered = _lowered(expr)
    assert FLAT not in lowered and added in lowered and "[]" in lowered, lowered
    assert not any(isinstance(n, ast.ListComp) for n in ast.walk(ast.parse(lowered))), lowered
    for S in STATES:
        assert _run(lowered, S) == _run(source, S), lowered


def test_written_out_it_is_a_starred_display():
    node = ast.parse(f"{FLAT}([b_windows(r, n) for n in k_sizes])", mode="eval").body
    assert ast.unparse(unroll(node, (("k_sizes", (3, 4)),))) == "[*b_windows(r, 3), *b_windows(r, 4)]"


def test_the_default_rules_sequences_are_every_window_of_every_run():
    """The default rules' candidate sequences (flatten of flattens of windows) are the windows of
    3, 4 and 5 of each run, in order, as `flatten` of `_windows` gives them; no `b_flatten` is
    left in the projects' functions."""
    rules = load_variant()
    space = rules.functions["best_projects"].__globals__
    assert "def f_best_projects" in rules.python_source and "b_flatten" not in rules.python_source
    deck, order = list(rules.deck.cards), space["k_sequence_order"]

    class Frozen:
        mode = "sun"
    rng = random.Random(4)
    for _ in range(1000):
        cards = rng.sample(deck, 8)
        got = [p["cards"] for p in space["f_sequence_projects"](Frozen(), cards)]
        want = flatten([flatten([_windows(r, n) for n in [3, 4, 5]]) for r in _runs(cards, order, 3)])
        assert got == want


def test_the_form_runs_in_a_generated_module():
    namespace = {"__builtins__": SAFE_PY_BUILTINS, "_R": Rec,
                 **make_builtins(Table(["N", "W", "S", "E"], {"NS": ["N", "S"], "EW": ["E", "W"]}))}
    python = to_python("flatten([windows(xs, n) for n in [2, 3]])", _scope(xs=ty.list_of(ty.INT)))
    exec(compile(f"def f(S):\n    return {python}\n", "<test>", "exec"), namespace)
    assert namespace["f"](Rec(xs=[1, 2, 3])) == [[1, 2], [2, 3], [1, 2, 3]]
