"""Small constructors of Python `ast` nodes for the rules compiler's generated functions.

The compiler builds its functions as `ast` from the emitted expressions (expr/emit.py), never
as text: these helpers keep the statements it writes short to read (`assign("K", List())`).
"""

from __future__ import annotations

import ast

from ..expr.astutil import LOAD, STORE, walk
from ..expr.emit import LAZY_LOCAL


def name(identifier: str) -> ast.Name:
    return ast.Name(id=identifier, ctx=LOAD)


def store(identifier: str) -> ast.Name:
    return ast.Name(id=identifier, ctx=STORE)


def const(value) -> ast.Constant:
    """A literal (a plain str, whatever str subclass the loader gave: compile() takes no other)."""
    return ast.Constant(str(value) if isinstance(value, str) else value)


def attr(value: ast.expr | str, attribute: str, ctx=None) -> ast.Attribute:
    return ast.Attribute(value=name(value) if isinstance(value, str) else value, attr=attribute, ctx=ctx or LOAD)


def call(func: ast.expr | str, *args: ast.expr) -> ast.Call:
    return ast.Call(func=name(func) if isinstance(func, str) else func, args=list(args), keywords=[])


def index(value: ast.expr | str, key) -> ast.Subscript:
    key = key if isinstance(key, ast.AST) else const(key)
    return ast.Subscript(value=name(value) if isinstance(value, str) else value, slice=key, ctx=LOAD)


def assign(target: ast.expr | str, value: ast.expr) -> ast.Assign:
    return ast.Assign(targets=[store(target) if isinstance(target, str) else target], value=value)


def if_(test: ast.expr, body: list, orelse: list | None = None) -> ast.If:
    return ast.If(test=test, body=body or [ast.Pass()], orelse=orelse or [])


def not_(operand: ast.expr) -> ast.UnaryOp:
    return ast.UnaryOp(op=ast.Not(), operand=operand)


def both(values: list, op=ast.And) -> ast.expr:
    """`a and b and ...` (or `op`): the one operand itself when there is one."""
    return values[0] if len(values) == 1 else ast.BoolOp(op=op(), values=list(values))


def either(values: list) -> ast.expr:
    return both(values, ast.Or)


def append(target: str, value: ast.expr) -> ast.Expr:
    """`target.append(value)`."""
    return ast.Expr(value=call(attr(target, "append"), value))


def is_const(node, value) -> bool:
    """Whether `node` is the literal `value` itself (True is not 1 here)."""
    return isinstance(node, ast.Constant) and type(node.value) is type(value) and node.value == value


def strings(values) -> ast.Tuple:
    """A tuple display of plain strings."""
    return ast.Tuple(elts=[const(v) for v in values], ctx=LOAD)


def function(fn_name: str, args: str, body: list) -> ast.FunctionDef:
    """`def fn_name(args): body`, `args` written as in Python (`"S, A"`)."""
    params = [ast.arg(arg=a.strip()) for a in args.split(",") if a.strip()]
    return ast.FunctionDef(name=fn_name, args=ast.arguments(posonlyargs=[], args=params, kwonlyargs=[], kw_defaults=[],
                                                            defaults=[]),
                           body=body or [ast.Pass()], decorator_list=[], returns=None)


def lazy_locals(*nodes) -> list:
    """`_h_<name> = ...` for each derived value's lazy local (expr/emit.py LAZY_LOCAL) that
    `nodes` use, sorted: what a generated function using them must start with."""
    found = {sub.id for node in nodes for sub in walk(node)
             if isinstance(sub, ast.Name) and sub.id.startswith(LAZY_LOCAL) and len(sub.id) > len(LAZY_LOCAL)}
    return [assign(local, ast.Constant(...)) for local in sorted(found)]
