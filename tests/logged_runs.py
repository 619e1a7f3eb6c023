"""Run one generated function in a namespace whose `ev(tag, value)` logs each evaluation (and
raises for the value "fail"), for the compiler-pass tests that check a rewritten function
evaluates what the original did, in the same order, failing the same way."""

from __future__ import annotations

import ast

from baloot_spec.expr.builtins import Rec


def run_logged(function: ast.FunctionDef, args: tuple, *, log: list | None = None, **names):
    """("value", result, log) or ("raised", type, args, log): `f(*args)` of `function`, with `_R`
    (a record), `ev` and `names` in its namespace; `log`, a list the arguments may log into too
    (one order of everything evaluated)."""
    if log is None:
        log = []

    def ev(tag, value):
        log.append(tag)
        if value == "fail":
            raise KeyError(tag)
        return value
    namespace = {"_R": Rec, "ev": ev, **names}
    exec(compile(ast.fix_missing_locations(ast.Module(body=[function], type_ignores=[])), "<test>", "exec"), namespace)
    try:
        return "value", namespace["f"](*args), log
    except Exception as exc:
        return "raised", type(exc), exc.args, log
