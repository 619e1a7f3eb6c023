"""A checked, typed tree (resolve.py) -> a Python `ast` expression.

The emitter builds `ast` nodes from tree nodes through one dispatch table and decides by the
kind of node, never by reading generated text. It keeps the text compiler's optimisations with
the same effect on the generated code:

- folding: knobs, and state fixed in a specialised phase, are literals; a comparison, `not`,
  `and`/`or` or `x if c else y` whose deciding operands are literals is replaced by its value
  (only where Python would compute exactly that; a comparison that would raise is kept);
- inlining: a call of a rule function is replaced by the function's body, its parameters by
  the argument, where that computes the same thing (the argument is trivial by its node kind,
  or the body reads the parameter exactly once and always: `used_once`);
- derived values (zero-argument functions) are read through a lazy local
  (`_h_<name>`, see LAZY_LOCAL) and, in specialised code, by their own folded body;
- aggregates take the shape that is cheapest in CPython 3.11 for what they compute.

Each emitted node is used at one place only (a value put in two places is copied), and the
inlined bodies' loop variables are renamed apart with the counter given by the caller (one per
generated module). Locations are filled in by `ast.fix_missing_locations` by whoever compiles.
"""

from __future__ import annotations

import ast
import itertools
import operator

from . import tree as t
from .astutil import LOAD, STORE, clone, walk
from .builtin_forms import record_has, written_builtin
from .first_of_max import first_of_max
from .lengths import item_of, known_length, max_of_known_list, writable, written, written_index
from .resolve import resolve
from .scope import KNOBS, Scope

# The prefix of the local that holds a derived value (a zero-argument rule function) within
# one generated function: `...` (Ellipsis, which no rule value can be) until first needed.
LAZY_LOCAL = "_h_"
SUM_OF_INTS = "_isum"   # `sum` of items typed int or bool: adding them one by one cannot fail
INLINE_DEPTH = 8
_COMPARE = {"==": operator.eq, "!=": operator.ne, "<": operator.lt, "<=": operator.le, ">": operator.gt, ">=": operator.ge}
_COMPARE_AST = {"==": ast.Eq, "!=": ast.NotEq, "<": ast.Lt, "<=": ast.LtE, ">": ast.Gt, ">=": ast.GtE,
                "in": ast.In, "not in": ast.NotIn}
_BINOP_AST = {"+": ast.Add, "-": ast.Sub, "*": ast.Mult, "//": ast.FloorDiv, "%": ast.Mod}
# What an aggregate over no items is (those whose value is a literal).
_EMPTY_AGGREGATE = {"count": 0, "sum": 0, "max": None, "min": None, "first": None, "any": False, "all": True}


def _name(identifier: str) -> ast.Name:
    return ast.Name(id=identifier, ctx=LOAD)


def _call(func: str, *args) -> ast.Call:
    return ast.Call(func=_name(func), args=list(args), keywords=[])


def value_ast(value) -> ast.expr:
    """A literal for a plain value (a knob's, a fixed state field's): lists become `ast.List`,
    since `ast.Constant` holds no list."""
    if isinstance(value, (list, tuple)):
        return ast.List(elts=[value_ast(v) for v in value], ctx=LOAD)
    if isinstance(value, dict):
        return ast.Dict(keys=[value_ast(k) for k in value], values=[value_ast(v) for v in value.values()])
    return ast.Constant(value)


def literal(node: ast.expr) -> tuple[bool, object]:
    """(True, value) if the emitted `node` is a constant (what folding may decide on), else
    (False, None). (A negative number written in the rules is `-(3)`, an operation, as is a
    list display: neither is folded, as the text compiler did not.)"""
    if isinstance(node, ast.Constant):
        return True, node.value
    return False, None


def _trivial(node: ast.expr) -> bool:
    """An argument as cheap to repeat as a name: a name, a literal number, a plain string, or
    attributes and constant indexes (ints from 0, plain strings: a record's field) of a name or
    of a derived value's lazy local."""
    if isinstance(node, ast.Constant):
        value = node.value
        return value is None or isinstance(value, (bool, int)) or (
            isinstance(value, str) and "'" not in value and "\\" not in repr(value))
    while isinstance(node, (ast.Attribute, ast.Subscript)):
        if isinstance(node, ast.Subscript):
            key = node.slice
            if not (isinstance(key, ast.Constant) and ((type(key.value) is int and key.value >= 0)
                                                       or (type(key.value) is str and _trivial(key)))):
                return False
        node = node.value
    return isinstance(node, ast.Name) or _lazy_fetch(node)


def _lazy_fetch(node: ast.expr) -> bool:
    """`(_h_x if _h_x is not ... else (_h_x := f_x(S)))`: a derived value fetched once."""
    return (isinstance(node, ast.IfExp) and isinstance(node.orelse, ast.NamedExpr)
            and isinstance(node.orelse.value, ast.Call) and isinstance(node.orelse.value.func, ast.Name)
            and node.orelse.value.func.id.startswith("f_") and len(node.orelse.value.args) == 1
            and isinstance(node.orelse.value.args[0], ast.Name) and node.orelse.value.args[0].id == "S")


def _holds_assignment(node: ast.expr) -> bool:
    return any(isinstance(sub, ast.NamedExpr) for sub in walk(node))


def used_once(body: t.Node, param: str, assignment: bool) -> bool:
    """Whether parameter `param` is read exactly once in a function body, where the body always
    evaluates it exactly once: not in a branch of `if`/`else`, not after the first operand of
    `and`/`or`, not in a comprehension's element or condition (and, if its argument holds an
    assignment expression, not in a comprehension's iterable, where Python forbids one). Any
    argument can then be written in its place: expressions have no side effects, so the value is
    the same; only which of two failing expressions fails first could differ. `body` may be
    resolved (the parameter is a `Ref`) or not (a `Name`, hidden by a loop variable of that name)."""
    uses = []
    stack = [(body, True, False)]
    while stack:
        node, once, iterable = stack.pop()
        kind = type(node)
        if kind is t.Ref or kind is t.Name:
            if (node.kind == "param" and node.name == param) if kind is t.Ref else node.id == param:
                uses.append(once and not (assignment and iterable))
        elif kind is t.Aggregate:
            stack.append((node.iterable, once, True))
            if node.var != param:   # (an unresolved loop variable of that name hides the parameter)
                stack.extend((sub, False, iterable) for sub in (node.elem, node.cond) if sub is not None)
        elif kind is t.IfExp:
            stack += [(node.test, once, iterable), (node.body, False, iterable), (node.orelse, False, iterable)]
        elif kind is t.BoolOp:
            stack += [(node.values[0], once, iterable)] + [(v, False, iterable) for v in node.values[1:]]
        else:
            stack.extend((sub, once, iterable) for sub in t.children(node))
    return uses == [True]


class Emitter:
    """Emits one resolved tree. `fixed` (state name -> value) folds a specialised phase's fixed
    state in; `names` numbers the loop variables of inlined bodies (shared by every emitter of
    one generated module); `stack` holds the functions being inlined around this body."""

    def __init__(self, scope: Scope, fixed: dict | None = None, names=None, suffix: str = "",
                 stack: frozenset = frozenset(), tables=None, lengths: dict | None = None):
        self.scope, self.fixed = scope, fixed
        # state list field -> its length, where the code is specialised on it (expr/lengths.py)
        self.lengths = lengths
        self.names = names if names is not None else itertools.count(1)
        self.suffix, self.stack = suffix, stack
        self.in_iterable = 0          # inside a comprehension's iterable (no := allowed there)
        self.env: dict = {}           # Binder -> its Python name; parameter -> the argument's ast
        self.param_types: dict = {}   # parameter -> the type of its argument (an inlined body's)
        # `tables(emitter, function, argument type, argument ast)`: a lookup replacing a call of
        # a rule function of one card, or None (rules/passes/card_tables.py); None: no tables.
        self.tables = tables

    def type_of(self, node: t.Node):
        """The type of a resolved node where it is emitted: a parameter of an inlined body has
        its argument's type (the body alone types it `unknown`)."""
        if type(node) is t.Ref and node.kind == "param" and node.name in self.param_types:
            return self.param_types[node.name]
        return node.type

    def emit(self, node: t.Node) -> ast.expr:
        return _DISPATCH[type(node)](self, node)

    # literals and names ------------------------------------------------------------------
    def _const(self, node):
        return value_ast(node.value)

    def _listlit(self, node):
        return ast.List(elts=[self.emit(item) for item in node.items], ctx=LOAD)

    def _record(self, node):
        return ast.Call(func=_name("_R"), args=[], keywords=[ast.keyword(arg=k, value=self.emit(v)) for k, v in node.fields])

    def _ref(self, node):
        kind, name = node.kind, node.name
        if kind == "local":
            bound = self.env[node.binder]   # (a written-out item's ast: expr/lengths.py)
            return _name(bound) if type(bound) is str else clone(bound)
        if kind == "param":
            argument = self.env.get(("param", name))
            return clone(argument) if argument is not None else _name(f"v_{name}")
        if kind == "action":
            return ast.Attribute(value=_name("A"), attr=name, ctx=LOAD)
        if kind == "state":
            if self.fixed and name in self.fixed and _is_plain(self.fixed[name]):
                return ast.Constant(self.fixed[name])
            return ast.Attribute(value=_name("S"), attr=name, ctx=LOAD)
        if kind == "knob":
            if self.scope.knobs_as_data:   # (never folded: the value is the variant's, at run time)
                return ast.Subscript(value=_name(KNOBS), slice=ast.Constant(name), ctx=LOAD)
            return value_ast(node.value)
        if kind == "const":
            return _name(f"k_{name}")
        if kind == "derived":
            return self._derived(name)
        raise ValueError(f"a reference of kind {kind!r}")   # (a bug: resolve.py makes no other)

    def _derived(self, name: str) -> ast.expr:
        bound = self.env.get(("derived", name))
        if bound is not None:   # (a key of a per-card table's function: rules/passes/card_tables.py)
            return clone(bound)
        if name in self.scope.literal_derived:   # (its function only returns this literal)
            return ast.Constant(self.scope.literal_derived[name])
        local = LAZY_LOCAL + name
        is_set = ast.Compare(left=_name(local), ops=[ast.IsNot()], comparators=[ast.Constant(...)])
        if self.in_iterable:   # (no := allowed there: the local if this function has it already, else the call)
            return ast.IfExp(test=is_set, body=_name(local), orelse=_call(f"f_{name}", _name("S")))
        body = self._derived_body(name)
        if body is not None:   # specialised code: the derived value's own body, folded too
            if literal(body)[0]:   # (folded to a constant: `side_suit_led` in a Sun)
                return body
        else:
            body = _call(f"f_{name}", _name("S"))
        # A derived value is fetched once per generated function and kept in a local: the memo
        # lookup is a call, a local is a load.
        return ast.IfExp(test=is_set, body=_name(local),
                         orelse=ast.NamedExpr(target=ast.Name(id=local, ctx=STORE), value=body))

    def _derived_body(self, name: str):
        entry = self.scope.derived.get(name)
        if not (self.fixed or self.lengths) or entry is None or name in self.stack or len(self.stack) >= INLINE_DEPTH:
            return None
        tree, callee_scope = entry
        inner = Emitter(callee_scope, self.fixed, self.names, f"_{next(self.names)}", self.stack | {name}, self.tables,
                        self.lengths)
        return inner.emit(resolved_body(tree, callee_scope))

    def _attr(self, node):
        value = self.emit(node.value)
        if node.attr in self.scope.record_fields or record_has(self.type_of(node.value), node.attr):
            return ast.Subscript(value=value, slice=ast.Constant(node.attr), ctx=LOAD)
        return ast.Attribute(value=value, attr=node.attr, ctx=LOAD)

    def _index(self, node):
        value = self.emit(node.value)
        key = self.emit(node.key)
        if type(node.value) is t.Ref and node.value.kind == "const":   # const.x[literal]: its entry, if plain
            found = _entry(self.scope.const_values.get(node.value.name), key)
            if found is not None:
                return found
        return ast.Subscript(value=value, slice=key, ctx=LOAD)

    # calls ------------------------------------------------------------------------------
    def _call(self, node):
        args = [self.emit(arg) for arg in node.args]
        name = node.func
        if node.kind == "rule":
            if self.tables is not None and len(args) == 1:
                looked_up = self.tables(self, name, self.type_of(node.args[0]), args[0])
                if looked_up is not None:
                    return looked_up
            inlined = self._inlined(name, args, node.args)
            if inlined is not None:
                return inlined
            return _call(f"f_{name}", _name("S"), *args)
        if name == "seat_after" and len(args) == 2 and self.scope.seats:   # a table of the seat geometry
            steps = args[1]
            if isinstance(steps, ast.Constant) and type(steps.value) is int:
                row = ast.Constant(steps.value % self.scope.seats)
            else:
                row = ast.BinOp(left=steps, op=ast.Mod(), right=ast.Constant(self.scope.seats))
            table = ast.Subscript(value=_name("k__after"), slice=row, ctx=LOAD)
            return ast.Subscript(value=table, slice=args[0], ctx=LOAD)
        if name == "index" and len(args) == 2 and isinstance(args[0], ast.Name) and args[0].id.startswith("k_") \
                and args[0].id[2:] in self.scope.indexable:   # a constant list's position table
            table = ast.Attribute(value=_name(f"k__ix_{args[0].id[2:]}"), attr="get", ctx=LOAD)
            return ast.Call(func=table, args=[args[1], ast.Constant(-1)], keywords=[])
        if self.lengths:
            if name == "len" and len(args) == 1 and known_length(args[0], self.lengths) is not None:
                return ast.Constant(known_length(args[0], self.lengths))
            if name == "index" and len(args) == 2:
                item = getattr(node.args[0].type, "item", None)
                found = written_index(args[0], args[1], getattr(item, "kind", None))
                if found is not None:
                    return found
        found = written_builtin(self, name, node.args, args, bool(args) and _trivial(args[0]))
        return found if found is not None else _call(f"b_{name}", *args)

    def _inlined(self, name: str, args: list, arg_nodes: tuple = ()):
        """The body of rule function `name` with `args` in place of its parameters, or None (no
        checked body yet, recursion, too deep, or an argument that is neither trivial nor read
        exactly once and always by the body: used_once)."""
        entry = self.scope.inline.get(name)
        if entry is None or name in self.stack or len(self.stack) >= INLINE_DEPTH:
            return None
        params, tree, callee_scope = entry
        body = resolved_body(tree, callee_scope)
        for param, arg in zip(params, args):
            if not (_trivial(arg) or used_once(body, param, _holds_assignment(arg))):
                return None
        inner = Emitter(callee_scope, self.fixed, self.names, f"_{next(self.names)}", self.stack | {name}, self.tables,
                        self.lengths)
        inner.in_iterable = self.in_iterable
        inner.env.update((key, value) for key, value in self.env.items() if type(key) is tuple and key[0] == "derived")
        inner.env.update((("param", p), a) for p, a in zip(params, args))
        inner.param_types.update((p, self.type_of(a)) for p, a in zip(params, arg_nodes))
        return inner.emit(body)

    # aggregates -------------------------------------------------------------------------
    def _iterable(self, node):
        self.in_iterable += 1
        try:
            return self.emit(node)
        finally:
            self.in_iterable -= 1

    def _aggregate(self, node):
        kind, binder = node.kind, node.var
        if kind == "first" and (found := first_of_max(self, node)) is not None:   # (expr/first_of_max.py)
            return found
        var = f"v_{binder.name}{self.suffix}"
        if (kind in ("max", "min", "sum") and node.cond is None and type(node.elem) is t.Ref
                and node.elem.kind == "local" and node.elem.binder is binder):
            # max(x for x in xs): the list itself, with no comprehension (nor its frame), and
            # read in the enclosing scope, where a derived value can be held in a local.
            items = self.emit(node.iterable)
            count = known_length(items, self.lengths)
            if count is not None and kind != "sum":   # (the list itself: of none, None; else max(xs))
                return _call(kind, items) if count else ast.Constant(None)
            if kind == "sum":
                return _call("sum", items)
            listed = ast.List(elts=[ast.Starred(value=items, ctx=LOAD)], ctx=LOAD)
            whole = _call(kind, ast.BoolOp(op=ast.Or(), values=[listed, ast.List(elts=[ast.Constant(None)], ctx=LOAD)]))
            return (self.lengths and max_of_known_list(whole)) or whole
        items = self._iterable(node.iterable)
        count = known_length(items, self.lengths)
        if count is None:
            count = self._per_seat(node.iterable)
        numeric = getattr(self.type_of(node.elem), "kind", None) in ("int", "bool")
        if count is not None and writable(kind, node.cond is not None, numeric):
            return self._written_out(node, items, count)
        self.env[binder] = var
        elem = self.emit(node.elem)
        cond = self.emit(node.cond) if node.cond is not None else None
        if (cond is not None and literal(cond) == (True, False) and kind in _EMPTY_AGGREGATE
                and isinstance(items, ast.Attribute) and isinstance(items.value, ast.Name) and items.value.id == "S"
                and items.attr in self.scope.engine_lists):
            # Nothing passes the condition (a Hokum test in a Sun's specialised code): the
            # aggregate's value over no items. Only over a list the engine keeps, so that the
            # folded code fails exactly where the unfolded would (nowhere).
            return ast.Constant(_EMPTY_AGGREGATE[kind])

        def loop(element, test=cond, make=ast.ListComp):
            generator = ast.comprehension(target=ast.Name(id=var, ctx=STORE), iter=items,
                                          ifs=[test] if test is not None else [], is_async=0)
            return make(elt=element, generators=[generator])

        # In Python 3.11 a generator is resumed for every item it yields, a list comprehension
        # runs in one go: what reads every item takes a list; any/all/first use a generator
        # that yields only the item that decides (same items evaluated, in the same order).
        if kind == "count":
            test = ast.BoolOp(op=ast.And(), values=[cond, elem]) if cond is not None else elem
            return _call("b_len", loop(ast.Constant(1), test))
        if kind in ("max", "min"):
            # (`or [None]`, not `default=None`: a builtin called with a keyword takes CPython's
            # slow path; `[*xs]` still refuses what is not iterable)
            none = ast.List(elts=[ast.Constant(None)], ctx=LOAD)
            return _call(kind, ast.BoolOp(op=ast.Or(), values=[loop(elem), none]))
        if kind == "first":
            return _call("next", loop(elem, make=ast.GeneratorExp), ast.Constant(None))
        if kind == "any":
            test = ast.BoolOp(op=ast.And(), values=[cond, elem]) if cond is not None else elem
            return _call("next", loop(ast.Constant(True), test, ast.GeneratorExp), ast.Constant(False))
        if kind == "all":
            refuted = ast.UnaryOp(op=ast.Not(), operand=elem)
            test = ast.BoolOp(op=ast.And(), values=[cond, refuted]) if cond is not None else refuted
            return _call("next", loop(ast.Constant(False), test, ast.GeneratorExp), ast.Constant(True))
        if kind == "map":
            generator = ast.comprehension(target=ast.Name(id=var, ctx=STORE), iter=items,
                                          ifs=[cond] if cond is not None else [], is_async=0)
            return _call("_R", ast.DictComp(key=_name(var), value=elem, generators=[generator]))
        if kind == "list":
            return loop(elem)
        # sum: of ints (its items typed so), `_isum`, which the lowering (expr/lower.py) writes as
        # an accumulating loop, no list built; the same function as `sum` where it is not lowered
        return _call(SUM_OF_INTS if numeric else kind, loop(elem))

    def _per_seat(self, node: t.Node) -> int | None:
        """The length of a finished trick's list that holds one item per seat (`x.cards` of a
        trick `x`: engine/state.py PER_SEAT_LISTS), else None."""
        if (type(node) is t.Attr and node.attr in self.scope.per_seat_lists and self.scope.seats
                and self.type_of(node.value).kind == "trick"):
            return self.scope.seats
        return None

    def _written_out(self, node, items: ast.expr, count: int) -> ast.expr:
        """An aggregate over a list of known length, its items written out (expr/lengths.py):
        the element and condition emitted once per item, the loop variable read as `items[i]`."""
        elems, conds = [], ([] if node.cond is not None else None)
        for position in range(count):
            self.env[node.var] = item_of(items, position)
            elems.append(self.emit(node.elem))
            if conds is not None:
                conds.append(self.emit(node.cond))
        return written(node.kind, elems, conds)

    # operators: folded only where the result is exactly what Python would compute ----------
    def _ifexp(self, node):
        body, test, orelse = self.emit(node.body), self.emit(node.test), self.emit(node.orelse)
        known, value = literal(test)
        if known:
            return body if value else orelse
        return ast.IfExp(test=test, body=body, orelse=orelse)

    def _boolop(self, node):
        """`a or b` / `a and b` (a chain from the left); with a literal `a`, Python's own
        answer: the operand that decides (a truthy `a` decides `or`, a falsy one `and`), else `b`.
        A literal that cannot decide (`True` in `and`, `False` in `or`: a knob folded in) is
        dropped before another operand, and at the end after an `a` that is True or False by its
        form (`_boolean`): `a and True` is `a` then."""
        is_or = node.op == "or"
        result = self.emit(node.values[0])
        boolean = _boolean(node.values[0], result)   # (the chain so far is True or False)
        last = len(node.values) - 1
        for position, value in enumerate(node.values[1:], 1):
            right = self.emit(value)
            known, decided = literal(result)
            passes = isinstance(right, ast.Constant) and bool(right.value) != is_or   # (cannot decide)
            if known:
                if bool(decided) != is_or:
                    result, boolean = right, _boolean(value, right)
            elif passes and position < last:
                pass   # (`a and True and b` is `a and b`: the literal only hands on to b)
            elif passes and boolean and type(right.value) is bool:
                pass   # (`a and True` is a, `a or False` is a, where a is True or False)
            else:
                result = ast.BoolOp(op=ast.Or() if is_or else ast.And(), values=[result, right])
                boolean = boolean and _boolean(value, right)
        return result

    def _not(self, node):
        operand = self.emit(node.operand)
        known, value = literal(operand)
        if known:
            return ast.Constant(not value)
        return ast.UnaryOp(op=ast.Not(), operand=operand)

    def _compare(self, node):
        left, right = self.emit(node.left), self.emit(node.right)
        if node.op in _COMPARE:
            (known_left, a), (known_right, b) = literal(left), literal(right)
            if known_left and known_right:
                try:
                    return ast.Constant(bool(_COMPARE[node.op](a, b)))
                except TypeError:
                    pass  # e.g. 1 < 'x': left to fail at run time, where it is reported
        return ast.Compare(left=left, ops=[_COMPARE_AST[node.op]()], comparators=[right])

    def _binop(self, node):
        left, right = self.emit(node.left), self.emit(node.right)
        if node.op == "+" and type(left) is ast.List and type(right) is ast.List:
            # (two displays added: one of the same items, worked out in the same order; one list, not three)
            return ast.List(elts=left.elts + right.elts, ctx=LOAD)
        return ast.BinOp(left=left, op=_BINOP_AST[node.op](), right=right)

    def _neg(self, node):
        return ast.UnaryOp(op=ast.USub(), operand=self.emit(node.operand))


_DISPATCH = {kind: getattr(Emitter, "_" + kind.__name__.lower()) for kind in (
    t.Const, t.ListLit, t.Record, t.Ref, t.Attr, t.Index, t.Call, t.Aggregate, t.IfExp, t.BoolOp, t.Not,
    t.Compare, t.BinOp, t.Neg)}


def resolved_body(tree: t.Node, scope: Scope) -> t.Node:
    """A function body as the rules compiler keeps it (resolved), or resolved now (a parsed
    body, as tests give it)."""
    return tree if tree.type is not None else resolve(tree, scope)


def _is_plain(value) -> bool:
    return value is None or isinstance(value, (str, int, bool))


def _boolean(node: t.Node, emitted: ast.expr) -> bool:
    """True or False by its form (t.boolean), or as emitted: a literal bool (a knob folded in)."""
    return type(emitted.value) is bool if isinstance(emitted, ast.Constant) else t.boolean(node)


def _entry(table, key: ast.expr) -> ast.Constant | None:
    """The literal `table[key]` is, for a constant table (the rules' data) and a literal key
    (`const.hand_value['sun']` once a Sun is folded in), where the entry is a plain value; None
    otherwise (a missing entry is left to fail at run time, where it is reported)."""
    known, value = literal(key)
    if not known or not isinstance(table, (dict, list)):
        return None
    try:
        entry = table[value]
    except (KeyError, IndexError, TypeError):
        return None
    if not _is_plain(entry):
        return None
    return ast.Constant(str(entry) if isinstance(entry, str) else entry)


def emit(tree: t.Node, scope: Scope, fixed: dict | None = None, names=None, tables=None,
         lengths: dict | None = None) -> ast.expr:
    """The Python expression for a resolved `tree` in `scope` (see Emitter); `lengths`: state
    lists of known length in the code being made (expr/lengths.py)."""
    return Emitter(scope, fixed, names, tables=tables, lengths=lengths).emit(tree)
