"""Comprehensions in generated code written out as loops in the function that runs them.

In CPython 3.11 every list comprehension makes a function object and runs a frame of its own,
and a generator (`next((x for x in xs if c), None)`, how first/any/all compile) is resumed
once per item it looks at: about 0.15 us each, before any item is read. The rules' expressions
are full of short ones (a trick's four cards, a hand's two declared projects), and a hand ran
about 65 of them. Written out as `for` loops in the generated function, the same items are read
in the same order, by the same operations, and the same error is raised at the same point; the
frames are gone (PEP 709 does the same for list comprehensions in Python 3.12).

The lowering works on the generated functions' `ast` (rules/module.py), never on rule text
nor on generated text, and keeps the evaluation order exactly: an expression holding a comprehension becomes statements
that compute, in order, everything Python would evaluate before it (into temporaries), then the
loop; `a and b`, `a or b` and `x if c else y` become `if` statements, so what Python would not
evaluate is still not evaluated. An expression this pass does not know how to take apart is left
as it is, comprehensions and all. Temporaries and loop variables get fresh names (`_t1`, `_l1`)
that no generated name uses.
"""

from __future__ import annotations

import ast
import itertools

from .astutil import ComprehensionFinder, clone, walk
from .builtin_forms import FLAT, FROMKEYS
from .first_of_max import HELPER as FIRST_OF_MAX
from .emit import SUM_OF_INTS

# Names the generated code never rebinds within a function: reading them early or late is the
# same (state, action, candidates, globals: constants, builtins, rule functions, records).
_STABLE_PREFIXES = ("k_", "b_", "f_", "v_", "_R", "_LazyMap", "_t", "_l")
_STABLE_NAMES = frozenset({"S", "A", "C", "V", "None", "True", "False", "len", "max", "min", "sum", SUM_OF_INTS, "any",
                           "all",
                           "next", "map", FROMKEYS, FIRST_OF_MAX, FLAT})


def lower_function(function: ast.FunctionDef) -> ast.FunctionDef:
    """A generated function with its comprehensions written out as loops (its body is
    replaced; the expressions it holds are not changed in place, so they may be shared)."""
    function.body = _Lowerer().block(function.body)
    return function


def _name(id_: str) -> ast.Name:
    return ast.Name(id=id_, ctx=ast.Load())


def _store(id_: str) -> ast.Name:
    return ast.Name(id=id_, ctx=ast.Store())


def _assign(id_: str, value) -> ast.Assign:
    return ast.Assign(targets=[_store(id_)], value=value)


def _plain_loops(node) -> bool:
    """Whether a comprehension's loops are ones `_loops` writes out (a name each, not async)."""
    return all(isinstance(g.target, ast.Name) and not g.is_async for g in node.generators)


def _stable(node) -> bool:
    """Whether `node` gives the same value whenever it is evaluated in this function (so it
    need not be read into a temporary before a later operand's statements run)."""
    if isinstance(node, ast.Constant):
        return True
    if isinstance(node, ast.Name):
        return node.id in _STABLE_NAMES or node.id.startswith(_STABLE_PREFIXES)
    return False


def _renamed(node, renames: dict):
    """A copy of `node` (or of a list of nodes) with reads of each loop variable `old` replaced by
    its fresh name `renames[old]`, except where a comprehension inside binds the same name again
    (its first iterable still sees the outer one)."""
    if isinstance(node, list):
        return [_renamed(item, renames) for item in node]
    if not renames or not isinstance(node, ast.AST) or isinstance(node, ast.Lambda):
        return clone(node)   # (the generated code has no lambda; never look inside one)
    if isinstance(node, ast.Name):
        new = renames.get(node.id)
        return ast.Name(id=new, ctx=node.ctx) if new is not None else clone(node)
    if isinstance(node, (ast.ListComp, ast.DictComp, ast.GeneratorExp, ast.SetComp)):
        bound = {t.id for g in node.generators for t in walk(g.target) if isinstance(t, ast.Name)}
        if bound & set(renames):
            inner = {old: new for old, new in renames.items() if old not in bound}
            copied = _with_fields(node, inner)
            copied.generators[0].iter = _renamed(node.generators[0].iter, renames)
            return copied
    return _with_fields(node, renames)


def _with_fields(node, renames: dict):
    kind = type(node)
    new = kind.__new__(kind)
    for field in node._fields:
        if hasattr(node, field):
            setattr(new, field, _renamed(getattr(node, field), renames))
    return new


class _Lowerer:
    def __init__(self):
        self._counter = itertools.count(1)
        self.has_comprehension = ComprehensionFinder()

    def fresh(self, kind: str) -> str:
        return f"_{kind}{next(self._counter)}"

    # ---- statements ---------------------------------------------------------------------------
    def block(self, statements: list) -> list:
        out = []
        for statement in statements:
            out.extend(self.statement(statement))
        return out

    def statement(self, node) -> list:
        if isinstance(node, (ast.Assign, ast.Return, ast.Expr)) and node.value is not None and self.has_comprehension(node.value):
            if isinstance(node, ast.Assign) and any(self.has_comprehension(t) for t in node.targets):
                return [node]
            before, node.value = self.expr(node.value)
            return before + [node]
        if isinstance(node, (ast.If, ast.For)):   # (the test / the iterable first, once)
            head = "test" if isinstance(node, ast.If) else "iter"
            before = []
            if self.has_comprehension(getattr(node, head)):
                before, value = self.expr(getattr(node, head))
                setattr(node, head, value)
            node.body, node.orelse = self.block(node.body), self.block(node.orelse)
            return before + [node]
        if isinstance(node, ast.Try):
            node.body, node.orelse, node.finalbody = self.block(node.body), self.block(node.orelse), self.block(node.finalbody)
            for handler in node.handlers:
                handler.body = self.block(handler.body)
            return [node]
        return [node]

    # ---- expressions: (statements to run first, the expression that then gives the value) -------
    def expr(self, node) -> tuple[list, ast.expr]:
        if not self.has_comprehension(node):
            return [], node
        method = getattr(self, f"_{type(node).__name__}", None)
        if method is None:
            return [], node   # not taken apart: left as it is
        return method(node)

    def _eager(self, children: list) -> tuple[list, list]:
        """Operands Python evaluates one after the other, all of them: each one's statements,
        and those before a later operand's statements read into temporaries (so that they are
        evaluated first, as Python would)."""
        last = max((i for i, child in enumerate(children) if child is not None and self.has_comprehension(child)), default=-1)
        before, values = [], []
        for i, child in enumerate(children):
            if child is None:
                values.append(None)
                continue
            pre, value = self.expr(child)
            before += pre
            if i < last and not _stable(value):
                temp = self.fresh("t")
                before.append(_assign(temp, value))
                value = _name(temp)
            values.append(value)
        return before, values

    def _Call(self, node):
        if self._is_count(node):
            return self._count(node.args[0])
        if self._is_sum(node):
            return self._sum(node.args[0])
        if self._is_flat(node):
            return self._flat(node.args[0])
        if self._is_index(node):
            return self._index(*node.args)
        if (isinstance(node.func, ast.Name) and node.func.id == "next" and len(node.args) == 2 and not node.keywords
                and isinstance(node.args[0], ast.GeneratorExp) and isinstance(node.args[1], ast.Constant)):
            return self._first(node.args[0], node.args[1])
        if any(isinstance(a, ast.GeneratorExp) for a in node.args) or any(k.arg is None for k in node.keywords):
            return [], node   # (a generator given to something else, or a ** argument: left as it is)
        # (the function, the positional arguments, then the keyword arguments' values, in order)
        before, values = self._eager([node.func, *node.args, *(k.value for k in node.keywords)])
        positional = values[1:1 + len(node.args)]
        keywords = [ast.keyword(arg=k.arg, value=v) for k, v in zip(node.keywords, values[1 + len(node.args):])]
        return before, ast.Call(func=values[0], args=positional, keywords=keywords)

    def _BinOp(self, node):
        before, (left, right) = self._eager([node.left, node.right])
        return before, ast.BinOp(left=left, op=node.op, right=right)

    def _UnaryOp(self, node):
        before, (operand,) = self._eager([node.operand])
        return before, ast.UnaryOp(op=node.op, operand=operand)

    def _Compare(self, node):
        if len(node.ops) != 1:   # (a chain evaluates its later operands lazily)
            return [], node
        before, (left, right) = self._eager([node.left, node.comparators[0]])
        return before, ast.Compare(left=left, ops=node.ops, comparators=[right])

    def _Subscript(self, node):
        before, (value, index) = self._eager([node.value, node.slice])
        return before, ast.Subscript(value=value, slice=index, ctx=node.ctx)

    def _Attribute(self, node):
        before, (value,) = self._eager([node.value])
        return before, ast.Attribute(value=value, attr=node.attr, ctx=node.ctx)

    def _List(self, node):
        before, values = self._eager(node.elts)
        return before, ast.List(elts=values, ctx=node.ctx)

    def _Tuple(self, node):
        before, values = self._eager(node.elts)
        return before, ast.Tuple(elts=values, ctx=node.ctx)

    def _Starred(self, node):
        before, (value,) = self._eager([node.value])
        return before, ast.Starred(value=value, ctx=node.ctx)

    def _Dict(self, node):
        if any(key is None for key in node.keys):   # (a ** in a display: left as it is)
            return [], node
        flat = [part for pair in zip(node.keys, node.values) for part in pair]   # (key, then value)
        before, values = self._eager(flat)
        return before, ast.Dict(keys=values[0::2], values=values[1::2])

    def _NamedExpr(self, node):
        before, value = self.expr(node.value)
        return before + [_assign(node.target.id, value)], _name(node.target.id)

    def _IfExp(self, node):
        before, test = self.expr(node.test)
        if not (self.has_comprehension(node.body) or self.has_comprehension(node.orelse)):
            return before, ast.IfExp(test=test, body=node.body, orelse=node.orelse)
        temp = self.fresh("t")
        then_pre, then = self.expr(node.body)
        else_pre, other = self.expr(node.orelse)
        return before + [ast.If(test=test, body=then_pre + [_assign(temp, then)],
                                orelse=else_pre + [_assign(temp, other)])], _name(temp)

    def _BoolOp(self, node):
        first_pre, first = self.expr(node.values[0])
        rest = node.values[1:]
        if not any(self.has_comprehension(v) for v in rest):
            return first_pre, ast.BoolOp(op=node.op, values=[first, *rest])
        # tmp = a; if tmp (and) / if not tmp (or): tmp = b; ... (each operand only when the
        # ones before it did not decide, and the deciding operand is the value, as in Python)
        temp = self.fresh("t")
        inner: list = []
        for value in reversed(rest):
            pre, value = self.expr(value)
            body = pre + [_assign(temp, value)] + inner
            test = _name(temp) if isinstance(node.op, ast.And) else ast.UnaryOp(op=ast.Not(), operand=_name(temp))
            inner = [ast.If(test=test, body=body, orelse=[])]
        return first_pre + [_assign(temp, first)] + inner, _name(temp)

    # ---- the comprehensions themselves ----------------------------------------------------------
    def _loops(self, node, innermost) -> list:
        """The nested `for` statements of a comprehension's generators (each loop variable
        renamed apart, its conditions as `if not c: continue`), `innermost(element parts)`
        inside them. Returns the statements, the first iterable's own statements first."""
        renames = []
        for g in node.generators:
            if not isinstance(g.target, ast.Name) or g.is_async:
                return None
            renames.append((g.target.id, self.fresh("l")))

        def upto(count):   # (the first rename of a name wins, as renaming one after the other did)
            mapping: dict = {}
            for old, new in renames[:count]:
                mapping.setdefault(old, new)
            return mapping
        # rename: a generator's iterable and conditions see the variables of the ones before it
        generators = [ast.comprehension(target=_store(renames[i][1]), iter=_renamed(g.iter, upto(i)),
                                        ifs=_renamed(g.ifs, upto(i + 1)), is_async=0)
                      for i, g in enumerate(node.generators)]
        parts = [_renamed(getattr(node, name), upto(len(renames))) for name in ("key", "value", "elt") if hasattr(node, name)]
        body = innermost(parts)
        for g in reversed(generators):   # (innermost first; each iterable's statements before its loop)
            body = self._one_loop(g, body)
        return body

    def _one_loop(self, g, body: list) -> list:
        before, g.iter = self.expr(g.iter)
        conditions = []
        for condition in g.ifs:
            pre, test = self.expr(condition)
            conditions += pre + [ast.If(test=ast.UnaryOp(op=ast.Not(), operand=test), body=[ast.Continue()], orelse=[])]
        return before + [ast.For(target=g.target, iter=g.iter, body=conditions + body, orelse=[])]

    def _ListComp(self, node):
        temp = self.fresh("t")

        def append(parts):
            pre, value = self.expr(parts[0])
            return pre + [ast.Expr(ast.Call(func=ast.Attribute(value=_name(temp), attr="append", ctx=ast.Load()),
                                             args=[value], keywords=[]))]
        loops = self._loops(node, append)
        if loops is None:
            return [], node
        return [_assign(temp, ast.List(elts=[], ctx=ast.Load()))] + loops, _name(temp)

    def _DictComp(self, node):
        temp = self.fresh("t")

        def store(parts):
            # (a comprehension evaluates the key, then the value; `t[k] = v` the value first: the
            # key is read into a temporary unless it is the same whenever it is read)
            key_pre, key = self.expr(parts[0])
            if not _stable(key):
                key_temp = self.fresh("t")
                key_pre, key = key_pre + [_assign(key_temp, key)], _name(key_temp)
            value_pre, value = self.expr(parts[1])
            return key_pre + value_pre + [ast.Assign(targets=[ast.Subscript(value=_name(temp), slice=key, ctx=ast.Store())],
                                                     value=value)]
        loops = self._loops(node, store)
        if loops is None:
            return [], node
        return [_assign(temp, ast.Dict(keys=[], values=[]))] + loops, _name(temp)

    def _first(self, node, default):
        """next((e for v in xs if c), d): the first item's value, else d; the loop stops there."""
        if len(node.generators) > 1:   # (a break leaves only the innermost loop: left as it is)
            return [], ast.Call(func=_name("next"), args=[node, default], keywords=[])
        temp = self.fresh("t")

        def take(parts):
            pre, value = self.expr(parts[0])
            return pre + [_assign(temp, value), ast.Break()]
        loops = self._loops(node, take)
        if loops is None:
            return [], ast.Call(func=_name("next"), args=[node, default], keywords=[])
        loops[-1].orelse = [_assign(temp, default)]   # (the loop ran out: the default)
        return loops, _name(temp)

    def _is_count(self, node) -> bool:
        """len([1 for ...]), how count() compiles."""
        return (isinstance(node.func, ast.Name) and node.func.id == "b_len" and len(node.args) == 1 and not node.keywords
                and isinstance(node.args[0], ast.ListComp) and isinstance(node.args[0].elt, ast.Constant))

    def _is_sum(self, node) -> bool:
        """_isum([e for ...]): how sum() of ints compiles (expr/emit.py SUM_OF_INTS)."""
        return (isinstance(node.func, ast.Name) and node.func.id == SUM_OF_INTS and len(node.args) == 1 and not node.keywords
                and isinstance(node.args[0], ast.ListComp))

    def _sum(self, node):
        """`t = 0`, then `t += e` in the loops: what `sum` of the list adds, in the same order,
        with no list built. Only for items typed int (or bool), whose additions cannot fail: an
        item that fails to be worked out fails at the same point as in the list."""
        temp = self.fresh("t")

        def add(parts):
            pre, value = self.expr(parts[0])
            return pre + [ast.AugAssign(target=_store(temp), op=ast.Add(), value=value)]
        loops = self._loops(node, add)
        if loops is None:
            return [], ast.Call(func=_name(SUM_OF_INTS), args=[node], keywords=[])
        return [_assign(temp, ast.Constant(0))] + loops, _name(temp)

    def _is_flat(self, node) -> bool:
        """_flat([e for ...]): how flatten of a comprehension of lists compiles (expr/builtin_forms.py)."""
        return (isinstance(node.func, ast.Name) and node.func.id == FLAT and len(node.args) == 1 and not node.keywords
                and isinstance(node.args[0], ast.ListComp))

    def _flat(self, node):
        """`t = []`, then the items of each list added to `t` as it is made (`t.extend(e)`; a
        comprehension's items appended in its own loops, a starred display's lists one after the
        other), in the same order as flatten of the list of them, with no list of lists built."""
        temp = self.fresh("t")
        loops = self._loops(node, lambda parts: self._added(temp, parts[0]))
        if loops is None:
            return [], ast.Call(func=_name(FLAT), args=[node], keywords=[])
        return [_assign(temp, ast.List(elts=[], ctx=ast.Load()))] + loops, _name(temp)

    def _added(self, temp: str, items) -> list:
        """Statements that add the items of list `items` to the list named `temp`, in order."""
        if isinstance(items, ast.ListComp):
            loops = self._loops(items, lambda parts: self._call_on(temp, "append", parts[0]))
            if loops is not None:
                return loops
        if isinstance(items, ast.List) and items.elts and all(isinstance(item, ast.Starred) for item in items.elts):
            return [statement for item in items.elts for statement in self._added(temp, item.value)]
        return self._call_on(temp, "extend", items)

    def _call_on(self, temp: str, method: str, value) -> list:
        pre, value = self.expr(value)
        return pre + [ast.Expr(ast.Call(func=ast.Attribute(value=_name(temp), attr=method, ctx=ast.Load()),
                                        args=[value], keywords=[]))]

    def _is_index(self, node) -> bool:
        """b_index([e for ...], v), v a name or a literal."""
        return (isinstance(node.func, ast.Name) and node.func.id == "b_index" and len(node.args) == 2
                and not node.keywords and isinstance(node.args[0], ast.ListComp) and _plain_loops(node.args[0])
                and isinstance(node.args[1], (ast.Name, ast.Constant)))

    def _index(self, items, value):
        """The list made first (a temporary), then `t.index(v) if v in t else -1`: what `_index`
        (builtins.py) answers for a list (expr/builtin_forms.py's form, the list now a name);
        the list is worked out before `v` is read, as the call's arguments were. (As that form
        does, it takes the items' `==` to raise nothing `_index` would catch, a ValueError: the
        values the rules make, texts, numbers, seats, cards, records and lists of them, do not.)"""
        before, listed = self._ListComp(items)
        found = ast.Call(func=ast.Attribute(value=clone(listed), attr="index", ctx=ast.Load()), args=[clone(value)],
                         keywords=[])
        return before, ast.IfExp(test=ast.Compare(left=clone(value), ops=[ast.In()], comparators=[clone(listed)]),
                                 body=found, orelse=ast.Constant(-1))

    def _count(self, node):
        temp = self.fresh("t")
        loops = self._loops(node, lambda parts: [ast.AugAssign(target=_store(temp), op=ast.Add(), value=ast.Constant(1))])
        if loops is None:
            return [], ast.Call(func=_name("b_len"), args=[node], keywords=[])
        return [_assign(temp, ast.Constant(0))] + loops, _name(temp)
