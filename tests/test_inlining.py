"""A call of a rule function is replaced by the function's body where that cannot change what
is computed: the argument is a plain name, attribute or literal, or the body reads the
parameter exactly once and always (so the argument is evaluated once, as in the call)."""

import ast
import random
import re

import pytest

from baloot_spec.expr.builtins import Rec, make_builtins
from baloot_spec.expr.compiler import Scope, to_python
from baloot_spec.rules.pyast import lazy_locals


def lazy_locals_prelude(source: str) -> list:
    return [ast.unparse(ast.fix_missing_locations(statement)) for statement in lazy_locals(ast.parse(source, mode="eval"))]
from baloot_spec.expr.emit import used_once as _used_once
from baloot_spec.expr.parse import parse as parse_expression
from baloot_spec.rules import load_variant
from baloot_spec.rules.compiled import SAFE_PY_BUILTINS


@pytest.mark.parametrize("body, walrus, once", [
    ("p + 1", False, True),
    ("k[p]", False, True),
    ("f(p, 1).seat", False, True),
    ("{a: p, b: 2}", False, True),
    ("p if x > 1 else 0", False, False),          # a branch of if/else
    ("1 if p > 1 else 0", False, True),           # the test is always evaluated
    ("x and p", False, False),                    # right of and/or: maybe not evaluated
    ("p or x", False, True),
    ("p + p", False, False),                      # twice
    ("[c for c in p]", False, True),              # a comprehension's iterable: once
    ("[c for c in p]", True, False),              # ... but no := may stand there
    ("[p for c in xs]", False, False),            # the element: once per item
    ("count(c == 1 for c in xs if c == p)", False, False),
    ("[p for p in xs]", False, False),            # the loop variable hides the parameter
    ("max(p for p in xs) + p", False, True),      # ... only inside the comprehension
    ("x + 1", False, False),                      # not read at all
])
def test_when_a_parameter_is_read_exactly_once(body, walrus, once):
    assert _used_once(parse_expression(body), "p", walrus) is once


def _compile(text: str, functions: dict):
    """Compile `text` against rule functions {name: (params, body)}: (Python text, g(S), namespace)."""
    attributes = frozenset({"seat", "a", "b", "n"})
    base = dict(builtins={"len": (1, 1)}, params={}, consts=frozenset({"k"}), attributes=attributes)
    inline = {}
    scope = Scope(state=frozenset({"xs", "y"}), functions={n: len(p) for n, (p, _) in functions.items()},
                  inline=inline, **base)
    namespace = {"__builtins__": SAFE_PY_BUILTINS, "_R": Rec, "k_k": {1: "one", 2: "two", 3: "three"},
                 **make_builtins(_table())}
    for name, (params, body) in functions.items():
        callee = Scope(state=frozenset({"xs", "y"}), locals=frozenset(params),
                       functions={n: len(p) for n, (p, _) in functions.items()}, inline=inline, **base)
        source = to_python(body, callee)
        prelude = "".join(f"    {line}\n" for line in lazy_locals_prelude(source))
        exec(compile(f"def f_{name}(S, {', '.join('v_' + p for p in params)}):\n{prelude}    return {source}\n",
                     "<test>", "exec"), namespace)
        inline[name] = (tuple(params), parse_expression(body), callee)
    python = to_python(text, scope)
    prelude = "".join(f"    {line}\n" for line in lazy_locals_prelude(python))
    exec(compile(f"def g(S):\n{prelude}    return {python}\n", "<test>", "exec"), namespace)
    return python, namespace["g"], namespace


def _table():
    from baloot_spec.cards import Table
    return Table(["N", "W", "S", "E"], {"NS": ["N", "S"], "EW": ["E", "W"]})


@pytest.mark.parametrize("body, inlined", [
    ("const.k[p]", True),                       # read once: any argument goes in
    ("const.k[p] if p > 1 else 'low'", False),  # read twice: a complex argument stays a call
    ("'low' if y > 5 else const.k[p]", False),  # read in a branch only
])
def test_a_complex_argument_is_inlined_only_where_it_is_read_once(body, inlined):
    python, g, _ = _compile("name(max(n for n in xs) - 1)", {"name": (["p"], body)})
    assert ("f_name(" not in python) is inlined, python
    for xs, y in ([1, 2, 3], 9), ([4, 2], 1), ([3, 3], 6):
        expected = eval(body.replace("p", "(max(xs) - 1)").replace("const.k[", "{1: 'one', 2: 'two', 3: 'three'}["),
                        {"xs": xs, "y": y})
        assert g(Rec(xs=xs, y=y)) == expected


def test_an_argument_holding_a_derived_value_is_never_put_in_an_iterable():
    # `base` is a zero-argument function (a lazy local with := in generated code): the body
    # reads its parameter in a comprehension's iterable, where Python forbids :=
    functions = {"base": ([], "xs"), "total": (["p"], "sum(v + 1 for v in p)")}
    python, g, _ = _compile("total([base[0]] + base)", functions)
    assert ":=" in python and "f_total(" in python, python
    assert g(Rec(xs=[2, 5], y=0)) == 12


def test_functions_written_after_their_callers_are_inlined_too():
    # opponents_in_order (rules/bidding.yaml) calls at() and team(), defined further down:
    # each body is checked first, then every call site may inline any checked body
    source = load_variant().python_source
    body = source.split("def f_opponents_in_order(S):", 1)[1].split("\ndef ", 1)[0]
    assert "f_at(" not in body and "f_team(" not in body, body


def test_inlined_and_called_functions_agree_on_random_arguments():
    # the same body reached inlined (argument of any shape) and through a call (the generated
    # function): equal values, or both fail
    functions = {"pick": (["p"], "const.k[p]"), "twice": (["p"], "p + p"),
                 "half": (["p"], "p // 2 + len(xs)")}
    rng = random.Random(3)
    for _ in range(60):
        arg = rng.choice(["max(n for n in xs)", "len(xs)", "y % 4", "first(n for n in xs if n > y)", "xs[0] - 1"])
        for name in functions:
            python, inlined, namespace = _compile(f"{name}({arg})", functions)
            assert f"f_{name}(" not in python or name == "twice", python
            _, argument, _ = _compile(arg, functions)

            def called(state):   # the generated function, given the argument's value
                return namespace[f"f_{name}"](state, argument(state))

            state = Rec(xs=[rng.randint(0, 4) for _ in range(rng.randint(1, 4))], y=rng.randint(0, 3))
            outcomes = []
            for fn in (inlined, called):
                try:
                    outcomes.append(("value", fn(state)))
                except Exception as exc:   # (a failing rule: both must fail)
                    outcomes.append(("error", type(exc).__name__))
            assert outcomes[0][0] == outcomes[1][0], (name, arg, state, outcomes)
            if outcomes[0][0] == "value":
                assert outcomes[0] == outcomes[1]


def test_the_body_tree_is_left_as_it_was():
    tree = parse_expression("k[p] + 1")
    before = repr(tree)
    _used_once(tree, "p", True)
    assert repr(tree) == before


@pytest.mark.parametrize("argument, trivial", [
    ("x", True), ("x.a", True), ("x[0]", True), ("x['project']", True), ("x['project']['kind']", True),
    ("x[0]['a'].b", True),
    ("x[-1]", False), ("x[y]", False), ("x[\"it's\"]", False), ("f(x)['a']", False), ("x[1.5]", False),
])
def test_a_constant_key_of_a_name_is_as_cheap_to_repeat_as_an_attribute(argument, trivial):
    from baloot_spec.expr.emit import _trivial
    assert _trivial(ast.parse(argument, mode="eval").body) is trivial


def test_a_record_field_argument_is_inlined_with_the_same_value():
    # (project_strength(d.project), whose body reads its parameter four times: no call left)
    source = load_variant().python_source
    body = source.split("def f_best_project_key(S):", 1)[1].split("\ndef ", 1)[0]
    assert "f_project_strength(" not in body and re.search(r"\['project'\]\)?\['value'\]", body), body   # (or its field read once: passes/field_reads.py)
