"""A calls phase's action effects written out per value of one action field: the bidding's
fourteen effects each test `A.call` first (`A.call == 'hokum'`, `A.call in ['sun', 'ashkal']`),
so a `pass` ran fourteen tests to apply two effects. With the effects folded for each value the
phase offers (candidates.py `fold`, the field read once), a `pass` runs only the effects whose
`when` that value leaves open; a value the phase does not offer runs them all, as before.

Only the `when`s are folded (an effect's values keep reading `A`), and only where the fold is
exact: a conjunct dropped before a deciding literal cannot fail (candidates.py `safe`). The
field is the one that rules out the most effects over its values; none when no value rules one
out."""

from __future__ import annotations

import ast

from ...expr.astutil import clone
from .candidates import fold

LOCAL = "_dispatch"   # the field's value, read once


def dispatch_field(whens: list, domains: dict) -> str | None:
    """The action field (`domains`: field -> the values the phase offers) whose values rule out
    the most of `whens` (emitted `ast`), or None if none rules one out."""
    best, best_count = None, 0
    for field, values in domains.items():
        count = sum(1 for value in values for when in whens if _folded(when, field, value) == (True, False))
        if count > best_count:
            best, best_count = field, count
    return best


def folded_when(when: ast.expr, field: str, value) -> ast.expr:
    """`when` with `A.<field>` read as `value`, folded as a test."""
    return fold(_Field(field, value).visit(clone(when)), boolean=True)


def _folded(when, field, value) -> tuple:
    node = folded_when(when, field, value)
    return (True, node.value) if isinstance(node, ast.Constant) else (False, None)


def domains_of(actions: dict) -> dict:
    """{field: its values, in order} over a calls phase's actions ({type: {field: values}}), for
    the fields whose values are all text (a value equal to one of those is text with the same
    characters: it folds every test the same way, `is` included); a field two action types
    offer has the values of both."""
    out: dict = {}
    for params in actions.values():
        for field, values in params.items():
            out.setdefault(field, {}).update(dict.fromkeys(values))
    return {field: tuple(values) for field, values in out.items() if all(type(v) is str for v in values)}


class _Field(ast.NodeTransformer):
    def __init__(self, field: str, value):
        self.field, self.value = field, value

    def visit_Attribute(self, node):
        if isinstance(node.value, ast.Name) and node.value.id == "A" and node.attr == self.field:
            return ast.Constant(self.value)
        return self.generic_visit(node)


def dispatched(field: str, values: tuple, branch, generic: list) -> list:
    """`_dispatch = A.<field>` then `if _dispatch == v1: branch(v1) elif ...: else: generic`
    (`branch(value)`: the statements for one value). An action without the field (the engine's
    always have it) runs `generic`, which fails, or not, where the effects one by one would."""
    orelse = generic or [ast.Pass()]
    for value in reversed(values):
        test = ast.Compare(left=ast.Name(id=LOCAL, ctx=ast.Load()), ops=[ast.Eq()], comparators=[ast.Constant(value)])
        orelse = [ast.If(test=test, body=branch(value) or [ast.Pass()], orelse=orelse)]
    local = ast.Name(id=LOCAL, ctx=ast.Store())
    read = ast.Try(body=[ast.Assign(targets=[local], value=ast.Attribute(value=ast.Name(id="A", ctx=ast.Load()),
                                                                         attr=field, ctx=ast.Load()))],
                   handlers=[ast.ExceptHandler(type=ast.Name(id="_Exception", ctx=ast.Load()), name=None, body=[
                       ast.Assign(targets=[ast.Name(id=LOCAL, ctx=ast.Store())], value=ast.Constant(None))])],
                   orelse=[], finalbody=[])
    return [read, *orelse]
