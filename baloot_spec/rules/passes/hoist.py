"""Hoisting: the derived values a filter's test reads (lazy locals, expr/emit.py), worked out
once before the loop over the candidates instead of tested for in it per candidate."""

from __future__ import annotations

import ast

from ...expr.astutil import clone, walk
from ...expr.emit import LAZY_LOCAL
from ..pyast import assign, if_, name


def hoisted(test: ast.expr) -> tuple[list, ast.expr]:
    """(statements, the test reading the lifted values as plain locals); the test itself when
    nothing is lifted. Only for a fused narrow, whose failure falls back to the rule-by-rule run
    (a value worked out that the test would have skipped)."""
    found: dict = {}

    class Lift(ast.NodeTransformer):
        def visit_IfExp(self, node):
            local = lazy_local(node)
            if local is not None and not any(isinstance(n, ast.Name) and n.id == "A" for n in walk(node)):
                found.setdefault(local, node.orelse.value)
                return name(local)
            return self.generic_visit(node)

    lifted = Lift().visit(clone(test))
    if not found:
        return [], test
    unset = lambda local: ast.Compare(left=name(local), ops=[ast.Is()], comparators=[ast.Constant(...)])  # noqa: E731
    return [if_(unset(local), [assign(local, body)]) for local, body in found.items()], lifted


def lazy_local(node) -> str | None:
    """The name N of `(N if N is not ... else (N := body))`, the form of a lazy local."""
    test = node.test
    if not (isinstance(test, ast.Compare) and isinstance(test.left, ast.Name) and test.left.id.startswith(LAZY_LOCAL)
            and len(test.ops) == 1 and isinstance(test.ops[0], ast.IsNot)
            and isinstance(test.comparators[0], ast.Constant) and test.comparators[0].value is Ellipsis):
        return None
    local = test.left.id
    if isinstance(node.body, ast.Name) and node.body.id == local and isinstance(node.orelse, ast.NamedExpr) \
            and node.orelse.target.id == local:
        return local
    return None
