"""Specialisation per candidate: a calls phase's first filter pass written out for each
candidate the engine passes (all of them, in a fixed order), the candidate's fields folded in.
A conjunct `A.call != 'x'` is true for every other call, so such a candidate is kept untested;
a candidate whose test is the one before's and more is tested inside the one before's `if`."""

from __future__ import annotations

import ast
import operator

from ...expr.astutil import clone, walk
from ..pyast import append, assign, call, const, if_, index, name


def per_candidate(test: ast.expr, candidates: list) -> list:
    """`C = [A for A in C if test]` written out for C = `candidates` (see fuse.fused_narrow)."""
    lines = [if_(ast.Compare(left=call("b_len", name("C")), ops=[ast.NotEq()], comparators=[const(len(candidates))]),
                 [ast.Return(value=ast.Constant(None))]),   # not the whole list: the rule-by-rule run
             assign("K", ast.List(elts=[], ctx=ast.Load()))]
    shared = None   # (the last test's `if` and its conjuncts: a later `p and q` nests in it)
    for k, (action_type, fields) in enumerate(candidates):
        folded = fold(Fields(action_type, fields).visit(clone(test)), boolean=True)
        if isinstance(folded, ast.Constant):
            if folded.value:
                lines.append(append("K", index("C", k)))
            continue
        reads_a = any(isinstance(n, ast.Name) and n.id == "A" for n in walk(folded))
        kept = if_(folded, [append("K", index("C", k))])
        if reads_a:
            lines += [assign("A", index("C", k)), kept]
            shared = None
        elif shared is not None and shared[0] is lines[-1] and _nested(shared, folded, kept):
            continue
        else:
            lines.append(kept)
            shared = (kept, _conjuncts(folded)) if _pure(folded) else None
    return lines + [assign("C", name("K"))]


def _conjuncts(test: ast.expr) -> list:
    """`a and (b and c)` as [a, b, c]."""
    if isinstance(test, ast.BoolOp) and isinstance(test.op, ast.And):
        return [part for value in test.values for part in _conjuncts(value)]
    return [test]


def _pure(test: ast.expr) -> bool:
    """No effect, and the same value each time at one position: calls only of the rules'
    builtins and derived values (`b_`, `f_`)."""
    return all(isinstance(n.func, ast.Name) and n.func.id.startswith(("b_", "f_"))
               for n in walk(test) if isinstance(n, ast.Call))


def _nested(shared: tuple, test: ast.expr, kept: ast.If) -> bool:
    """Where the candidate before was kept under `p` and this one's test is `p and q` (a
    `double` then a closed `double`): `if q:` nested under the one before, `p` not tested
    again (it reads no candidate: the same value twice); where it is `p`, kept with it.
    Whether it was."""
    outer, prefix = shared
    values = _conjuncts(test)
    if len(values) < len(prefix) or any(ast.dump(a) != ast.dump(b) for a, b in zip(prefix, values)):
        return False
    rest = values[len(prefix):]
    if not rest:   # (the same test: kept with the one before)
        outer.body.extend(kept.body)
        return True
    kept.test = rest[0] if len(rest) == 1 else ast.BoolOp(op=ast.And(), values=rest)
    outer.body.append(kept)
    return True


class Fields(ast.NodeTransformer):
    """`A.<field>` replaced by the candidate's value (a field it lacks reads none, as on Action)."""

    def __init__(self, action_type: str, fields: dict):
        self.values = {"type": action_type, **fields}

    def visit_Attribute(self, node):
        if isinstance(node.value, ast.Name) and node.value.id == "A" and not node.attr.startswith("_"):
            return ast.Constant(self.values.get(node.attr))
        return self.generic_visit(node)


FOLDABLE = {ast.Eq: operator.eq, ast.NotEq: operator.ne, ast.Lt: operator.lt, ast.LtE: operator.le,
             ast.Gt: operator.gt, ast.GtE: operator.ge, ast.In: lambda a, b: a in b, ast.NotIn: lambda a, b: a not in b,
             ast.Is: operator.is_, ast.IsNot: operator.is_not}


def literal_value(node):
    """(True, value) for a literal (constants, and lists/tuples of them), else (False, None)."""
    if isinstance(node, ast.Constant):
        return True, node.value
    if isinstance(node, (ast.List, ast.Tuple)):
        items = [literal_value(e) for e in node.elts]
        if all(known for known, _ in items):
            return True, [v for _, v in items]
    return False, None


def safe(node) -> bool:
    """Evaluating it cannot fail: names, constants, state fields, and not/comparisons/and/or
    of those (so that an operand before a deciding constant may be dropped)."""
    if isinstance(node, (ast.Name, ast.Constant)):
        return True
    if isinstance(node, ast.Attribute):
        return isinstance(node.value, ast.Name) and node.value.id == "S"
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
        return safe(node.operand)
    if isinstance(node, ast.Compare):
        return all(isinstance(op, (ast.Eq, ast.NotEq, ast.Is, ast.IsNot)) for op in node.ops) \
            and safe(node.left) and all(safe(c) for c in node.comparators)
    if isinstance(node, ast.BoolOp):
        return all(safe(v) for v in node.values)
    return False


def bool_valued(node) -> bool:
    """Its value is True or False by its form: a comparison `safe` allows, a `not`, a literal
    bool, and/or of those."""
    if isinstance(node, ast.Constant):
        return type(node.value) is bool
    if isinstance(node, ast.Compare):
        return all(isinstance(op, (ast.Eq, ast.NotEq, ast.Is, ast.IsNot)) for op in node.ops)
    if isinstance(node, ast.UnaryOp):
        return isinstance(node.op, ast.Not)
    if isinstance(node, ast.BoolOp):
        return all(map(bool_valued, node.values))
    return False


class Folded(ast.NodeTransformer):
    """Every test and/or, `not`, comparison and conditional of a value folded (`fold`) where
    it is: `S.bid != None or True` is True, `3 if S.bid == None and False else 2` is 2."""

    def visit(self, node):
        if isinstance(node, (ast.BoolOp, ast.IfExp, ast.Compare)) or (isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not)):
            return fold(self.generic_visit(node))
        return self.generic_visit(node)


def fold(node, boolean: bool = False):
    """Fold what the candidate's fields made constant. In a boolean context (the test, and/or
    operands there, `not`, a condition) only the truth value must be kept; elsewhere the value."""
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
        operand = fold(node.operand, boolean=True)
        known, value = literal_value(operand)
        return ast.Constant(not value) if known else ast.UnaryOp(ast.Not(), operand)
    if isinstance(node, ast.IfExp):
        test = fold(node.test, boolean=True)
        known, value = literal_value(test)
        if known:
            return fold(node.body if value else node.orelse, boolean)
        return ast.IfExp(test, fold(node.body, boolean), fold(node.orelse, boolean))
    if isinstance(node, ast.Compare) and len(node.ops) == 1 and type(node.ops[0]) in FOLDABLE:
        left, right = fold(node.left), fold(node.comparators[0])
        (lk, lv), (rk, rv) = literal_value(left), literal_value(right)
        if lk and rk:
            try:
                return ast.Constant(bool(FOLDABLE[type(node.ops[0])](lv, rv)))
            except TypeError:
                pass
        return ast.Compare(left, node.ops, [right])
    if isinstance(node, ast.BoolOp):
        is_and = isinstance(node.op, ast.And)
        values = [fold(v, boolean) for v in node.values]
        kept = []
        for index, value in enumerate(values):
            known, constant = literal_value(value)
            if known and bool(constant) == is_and:   # `True and x`, `False or x`: x decides
                if boolean or index < len(values) - 1:
                    continue
                if not kept:
                    return value   # (its value is the last operand's)
            elif known:   # `False and ...`, `True or ...`: decides, the rest is never evaluated
                if not kept:
                    return value
                if (boolean or type(constant) is bool and all(map(bool_valued, kept))) and all(safe(k) for k in kept):
                    return ast.Constant(bool(constant))   # (`a or True` is True where a is True or False)
                kept.append(value)
                break
            kept.append(value)
        if not kept:
            return ast.Constant(is_and)
        return kept[0] if len(kept) == 1 else ast.BoolOp(node.op, kept)
    return node
