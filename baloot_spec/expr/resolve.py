"""Names resolved and types inferred: a parsed tree -> a checked, typed tree.

Every `Name` becomes a `Ref` that says what it is, against the scope of the place the expression
is written (compiler.Scope: state fields, action fields, function parameters, rule functions,
builtins, knobs, constants); every loop variable gets a `Binder` and its uses point at it; every
call says whether a rule function or a builtin is called, with its arity checked; every node
gets its `type` (types.py). The messages for unknown names and wrong arity are the text
compiler's own (expr/compiler.py), found in the same order.

A type error is raised only where the value must fail or means nothing at run time: a condition
that is not a truth value (`only: hand`, `x if 3 else y`), arithmetic on what is not a number
(`hand - 1`), ordering what cannot be ordered, `in` a number, an attribute the value cannot have
(`card.seat`, a field a record literal lacks), an index into a number, an aggregate over what
cannot be iterated. An `unknown` type never raises.
"""

from __future__ import annotations

from ..suggest import did_you_mean
from . import tree as t
from . import types as ty
from .scope import AGGREGATES, CompileError, Scope
from .parse import parse
from .parser import ExprSource, ExprSyntaxError, locate_in_yaml

_NAMESPACES = ("param", "const")
_ARITHMETIC_NAMES = {"+": "add", "-": "subtract", "*": "multiply", "//": "divide", "%": "take the remainder of"}


def _at(pos: t.Pos) -> tuple[int, int, int]:
    return pos.line, pos.column, pos.length


def _a(kind: ty.Type) -> str:
    text = str(kind)
    return ("an " if text[0] in "aeiou" else "a ") + text


class Resolver:
    """Resolves one expression (or one function body) against one scope. `function_types`
    (rule function name -> result type) types calls of functions resolved before."""

    def __init__(self, scope: Scope, function_types: dict | None = None):
        self.scope = scope
        self.function_types = function_types or {}
        self.binders = 0

    # entry points -----------------------------------------------------------------------
    def resolve(self, node: t.Node, bound: dict | None = None) -> t.Node:
        return _DISPATCH[type(node)](self, node, bound if bound is not None else {})

    def condition(self, node: t.Node, bound: dict | None = None, what: str = "a condition") -> t.Node:
        """Resolve `node` where a truth value is read."""
        done = self.resolve(node, bound)
        self._truth(done, what)
        return done

    def _truth(self, node: t.Node, what: str) -> None:
        if node.type.kind not in ("bool", "unknown"):
            raise CompileError(f"{what} must be true or false; this is {_a(node.type)}", *_at(node.pos))

    # literals ---------------------------------------------------------------------------
    def _const(self, node, bound):
        return t.Const(node.value, pos=node.pos, type=ty.of_value(node.value))

    def _listlit(self, node, bound):
        items = tuple(self.resolve(item, bound) for item in node.items)
        return t.ListLit(items, pos=node.pos, type=ty.list_of(ty.join(*(i.type for i in items)) if items else ty.ANY))

    def _record(self, node, bound):
        fields = []
        for (name, value), pos in zip(node.fields, node.field_pos or [t.NOWHERE] * len(node.fields)):
            if name not in self.scope.attributes:
                raise CompileError(f"record field {name!r} is not a declared attribute", *_at(pos))
            fields.append((name, self.resolve(value, bound)))
        kind = ty.Type("record", fields=tuple((name, value.type) for name, value in fields))
        return t.Record(tuple(fields), node.field_pos, pos=node.pos, type=kind)

    # names ------------------------------------------------------------------------------
    def _name(self, node, bound):
        name, scope = node.id, self.scope
        if name in bound:
            binder, kind = bound[name]
            return t.Ref("local", name, binder, pos=node.pos, type=kind)
        if name in scope.locals:
            return t.Ref("param", name, pos=node.pos, type=ty.ANY)
        if name in scope.action:
            return t.Ref("action", name, pos=node.pos, type=ty.CARD if name == "card" else ty.ANY)
        if name in scope.state:
            kind = (ty.ENGINE_FIELD_TYPES.get(name, ty.ANY) if name in scope.engine_fields
                    else scope.state_types.get(name, ty.ANY))
            return t.Ref("state", name, pos=node.pos, type=kind)
        if name in scope.functions:
            if scope.functions[name] != 0:
                raise CompileError(f"function {name!r} takes {scope.functions[name]} argument(s); call it as {name}(...)", *_at(node.pos))
            return t.Ref("derived", name, pos=node.pos, type=self.function_types.get(name, ty.ANY))
        if name in _NAMESPACES:
            raise CompileError(f"{name!r} is a namespace: write {name}.<name>", *_at(node.pos))
        visible = [*bound, *scope.locals, *scope.action, *scope.state, *scope.functions, *_NAMESPACES]
        raise CompileError(f"unknown name {name!r}{did_you_mean(name, visible)}", *_at(node.pos))

    def _ref(self, node, bound):   # (already resolved: a tree from a pass)
        return node

    def _attr(self, node, bound):
        target, attr = node.value, node.attr
        if type(target) is t.Name and target.id not in bound and target.id in _NAMESPACES:
            if target.id == "param":
                if attr not in self.scope.params:
                    hint = did_you_mean("param." + attr, ["param." + k for k in self.scope.params]) or " (declare it in rules/params.yaml)"
                    raise CompileError(f"unknown knob 'param.{attr}'{hint}", *_at(node.attr_pos))
                value = self.scope.params[attr]
                # (a knob's values are all of its declared type; none says nothing of it)
                return t.Ref("knob", attr, None, value, pos=node.pos, type=ty.of_value(value) if value is not None else ty.ANY)
            if attr not in self.scope.consts:
                hint = did_you_mean("const." + attr, ["const." + k for k in self.scope.consts])
                raise CompileError(f"unknown constant 'const.{attr}'{hint}", *_at(node.attr_pos))
            value = self.scope.const_values.get(attr)
            return t.Ref("const", attr, pos=node.pos, type=ty.of_value(value) if value is not None else ty.ANY)
        if attr not in self.scope.attributes:
            raise CompileError(f"unknown attribute {attr!r}{did_you_mean(attr, self.scope.attributes)}", *_at(node.attr_pos))
        value = self.resolve(target, bound)
        return t.Attr(value, attr, node.attr_pos, pos=node.pos, type=self._attribute_type(value.type, attr, node.attr_pos))

    def _attribute_type(self, kind: ty.Type, attr: str, pos: t.Pos) -> ty.Type:
        if kind.kind in ty.NO_ATTRIBUTES:
            raise CompileError(f"{_a(kind)} has no attribute {attr!r}", *_at(pos))
        own = ty.ATTRIBUTES.get(kind.kind)
        if own is not None:
            if attr in own:
                return own[attr]
            if kind.kind == "play" and attr not in self.scope.record_fields:
                return ty.ANY   # (an annotation of the phase's plays)
            raise CompileError(f"{_a(kind)} has no attribute {attr!r} (it has: {', '.join(own)})", *_at(pos))
        if kind.kind == "record" and kind.fields:
            found = kind.field(attr)
            if found is None:
                names = [name for name, _ in kind.fields]
                raise CompileError(f"this record has no field {attr!r}{did_you_mean(attr, names)} (it has: {', '.join(names)})", *_at(pos))
            return found
        return ty.ANY

    def _index(self, node, bound):
        value, key = self.resolve(node.value, bound), self.resolve(node.key, bound)
        if value.type.kind in ty.NOT_INDEXABLE:
            raise CompileError(f"{_a(value.type)} cannot be indexed", *_at(node.pos))
        if value.type.kind == "list" and key.type.kind not in ty.NUMERIC | {"unknown"}:
            raise CompileError(f"a list is indexed by a number, not by {_a(key.type)}", *_at(key.pos))
        item = value.type.item if value.type.kind in ("list", "map") else ty.ANY
        return t.Index(value, key, pos=node.pos, type=item or ty.ANY)

    # calls ------------------------------------------------------------------------------
    def _call(self, node, bound):
        name, scope = node.func, self.scope
        args = tuple(self.resolve(arg, bound) for arg in node.args)
        if name in scope.functions:
            want = scope.functions[name]
            if want != len(args):
                raise CompileError(f"function {name!r} takes {want} argument(s), given {len(args)}", *_at(node.func_pos))
            return t.Call(name, args, "rule", node.func_pos, pos=node.pos, type=self.function_types.get(name, ty.ANY))
        if name in scope.builtins:
            low, high = scope.builtins[name]
            if not low <= len(args) <= high:
                want = str(low) if low == high else f"{low} to {high}"
                raise CompileError(f"builtin {name!r} takes {want} argument(s), given {len(args)}", *_at(node.func_pos))
            return t.Call(name, args, "builtin", node.func_pos, pos=node.pos, type=ty.builtin_result(name, args))
        if name in AGGREGATES:
            raise CompileError(f"{name!r} is an aggregate: write {name}(<expr> for <x> in <list>)", *_at(node.func_pos))
        callable_names = [*scope.functions, *scope.builtins, *AGGREGATES]
        raise CompileError(f"unknown function {name!r}{did_you_mean(name, callable_names)}", *_at(node.func_pos))

    def _aggregate(self, node, bound):
        kind = node.kind
        if kind != "list" and kind not in AGGREGATES:
            raise CompileError(f"unknown aggregate {kind!r} (one of: {', '.join(sorted(AGGREGATES))})", *_at(node.kind_pos))
        var = node.var.name if isinstance(node.var, t.Binder) else node.var
        if var in self.scope.state or var in self.scope.functions or var in _NAMESPACES:
            raise CompileError(f"loop variable {var!r} hides a rule name; choose another", *_at(node.var_pos))
        iterable = self.resolve(node.iterable, bound)
        if iterable.type.kind not in ty.ITERABLE:
            raise CompileError(f"{kind}(...) goes over {_a(iterable.type)}, which has no items", *_at(iterable.pos))
        self.binders += 1
        binder = t.Binder(self.binders, var)
        item = iterable.type.item if iterable.type.kind == "list" else (
            ty.TEXT if iterable.type.kind in ty.TEXTUAL or iterable.type.kind == "map" else ty.ANY)
        inner = {**bound, var: (binder, item or ty.ANY)}
        elem = self.resolve(node.elem, inner)
        cond = None if node.cond is None else self.condition(node.cond, inner, "the condition after `if`")
        if kind in ("any", "all"):   # (count(1 for x in xs if c) counts the items that pass c)
            self._truth(elem, f"what {kind}(...) tests")
        if kind == "sum" and elem.type.kind not in ty.NUMERIC | {"unknown"}:
            raise CompileError(f"sum(...) adds numbers; this is {_a(elem.type)}", *_at(elem.pos))
        result = {"any": ty.BOOL, "all": ty.BOOL, "count": ty.INT, "sum": ty.INT, "map": ty.map_of(elem.type),
                  "list": ty.list_of(elem.type)}.get(kind, ty.ANY)   # (max, min, first: the item or none)
        return t.Aggregate(kind, elem, binder, iterable, cond, node.var_pos, node.kind_pos, pos=node.pos, type=result)

    # operators --------------------------------------------------------------------------
    def _ifexp(self, node, bound):
        body = self.resolve(node.body, bound)
        test = self.condition(node.test, bound, "the condition after `if`")
        orelse = self.resolve(node.orelse, bound)
        return t.IfExp(body, test, orelse, pos=node.pos, type=ty.join(body.type, orelse.type))

    def _boolop(self, node, bound):
        values = tuple(self.resolve(value, bound) for value in node.values)
        return t.BoolOp(node.op, values, pos=node.pos, type=ty.join(*(v.type for v in values)))

    def _not(self, node, bound):
        return t.Not(self.resolve(node.operand, bound), pos=node.pos, type=ty.BOOL)

    def _compare(self, node, bound):
        left, right = self.resolve(node.left, bound), self.resolve(node.right, bound)
        a, b = left.type.kind, right.type.kind
        if node.op in ("<", "<=", ">", ">=") and "unknown" not in (a, b) and not (
                (a in ty.NUMERIC and b in ty.NUMERIC) or (a in ty.TEXTUAL and b in ty.TEXTUAL) or a == b == "list"):
            raise CompileError(f"{_a(left.type)} and {_a(right.type)} cannot be ordered with {node.op}", *_at(node.pos))
        if node.op in ("in", "not in") and b not in ty.ITERABLE:
            raise CompileError(f"`{node.op}` looks in a list, map or text; this is {_a(right.type)}", *_at(right.pos))
        return t.Compare(node.op, left, right, pos=node.pos, type=ty.BOOL)

    def _binop(self, node, bound):
        left, right = self.resolve(node.left, bound), self.resolve(node.right, bound)
        result = _arithmetic(node.op, left.type, right.type)
        if result is None:
            raise CompileError(f"cannot {_ARITHMETIC_NAMES[node.op]} {_a(left.type)} and {_a(right.type)}", *_at(node.pos))
        return t.BinOp(node.op, left, right, pos=node.pos, type=result)

    def _neg(self, node, bound):
        operand = self.resolve(node.operand, bound)
        if operand.type.kind not in ty.NUMERIC | {"unknown"}:
            raise CompileError(f"cannot negate {_a(operand.type)}", *_at(node.pos))
        return t.Neg(operand, pos=node.pos, type=ty.INT)


_DISPATCH = {kind: getattr(Resolver, "_" + kind.__name__.lower()) for kind in (
    t.Const, t.ListLit, t.Record, t.Name, t.Ref, t.Attr, t.Index, t.Call, t.Aggregate, t.IfExp, t.BoolOp, t.Not,
    t.Compare, t.BinOp, t.Neg)}


def _arithmetic(op: str, a: ty.Type, b: ty.Type) -> ty.Type | None:
    """The type of `a op b`, or None if it must fail (numbers with numbers; `+` also joins two
    lists or two texts). With one side unknown, the other side tells what can succeed."""
    kinds = {a.kind, b.kind}
    if kinds <= ty.NUMERIC | {"unknown"}:
        return ty.INT if kinds & ty.NUMERIC or op != "+" else ty.ANY
    if op != "+":
        return None
    if kinds <= {"list", "unknown"}:
        return ty.join(a, b) if "unknown" not in kinds else ty.list_of(ty.ANY)
    if kinds <= ty.TEXTUAL | {"unknown"}:
        return ty.TEXT
    return None


def resolve(node: t.Node, scope: Scope, function_types: dict | None = None, boolean: bool = False) -> t.Node:
    """The checked, typed tree of `node` in `scope` (CompileError, positioned in the expression);
    with `boolean`, the expression must be a truth value (a `when`, `only` or `require`)."""
    resolver = Resolver(scope, function_types)
    return resolver.condition(node) if boolean else resolver.resolve(node)


def check(text, scope: Scope, where: ExprSource | None = None, rule_id: str | None = None,
          function_types: dict | None = None, boolean: bool = False) -> t.Node:
    """Parse, resolve and type one expression from the rules: its typed tree, or a RulesError
    located in the YAML file (file:line:col, rule id, caret), like the loader's other errors."""
    where, text = where or ExprSource(), str(text)
    try:
        return resolve(parse(text), scope, function_types, boolean)
    except ExprSyntaxError as exc:
        raise locate_in_yaml(text, where, exc.line, exc.column, exc.length, "syntax error: " + exc.message, rule_id) from None
    except CompileError as exc:
        raise locate_in_yaml(text, where, exc.line, exc.column, exc.length, exc.message, rule_id) from None
    except RecursionError:   # (a backstop: the parser refuses expressions nested too deeply)
        raise locate_in_yaml(text, where, 1, 1, 1, "the expression is nested too deeply to compile", rule_id) from None
