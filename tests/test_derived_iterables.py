"""A derived value read as a comprehension's iterable (expr/emit.py `_derived`): no `:=` may
stand there, so it is `(_h_x if _h_x is not ... else f_x(S))`: the function's lazy local where
an earlier read set it (the settled pass then leaves only the local), else the call as before."""

import ast

from baloot_spec.expr.builtins import make_builtins
from baloot_spec.expr.compiler import Scope, to_python
from baloot_spec.rules.module import ModuleBuilder
from test_inlining import _table

SCOPE = Scope(state=frozenset({"xs"}), functions={"ds": 0}, builtins={"len": (1, 1)})


def _generated(text: str):
    builder = ModuleBuilder()
    fn_name = builder.add("S", ast.parse(to_python(text, SCOPE), mode="eval").body)
    source = builder.source()
    calls = []

    def f_ds(S):
        calls.append(S)
        return [1, 2, 3]

    namespace = {"f_ds": f_ds, "_R": dict, **make_builtins(_table())}
    exec(compile(source, "<test>", "exec"), namespace)
    return source, namespace[fn_name], calls


def test_a_loop_over_a_derived_value_read_before_reads_the_local():
    source, g, calls = _generated("len(ds) + sum(d * 2 for d in ds)")
    assert source.count("f_ds(S)") == 1, source
    assert g("state") == 3 + 12 and calls == ["state"]


def test_a_loop_over_a_derived_value_read_first_calls_it():
    source, g, calls = _generated("sum(d for d in ds) + len(ds)")
    assert g("state") == 6 + 3 and len(calls) in (1, 2)   # (the loop calls it; the later read keeps its own)
    assert "f_ds(S)" in source


def test_in_an_unlowered_comprehension_the_form_is_valid_python():
    python = to_python("[d for d in ds]", SCOPE)
    assert ":=" not in python and "_h_ds if _h_ds is not ... else f_ds(S)" in python
    ast.parse(python, mode="eval")   # (no assignment expression in an iterable)
