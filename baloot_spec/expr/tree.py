"""The typed tree of a rule expression: what the parser builds and every later stage reads.

Nodes are frozen, slotted dataclasses, so a stage never changes a tree another stage holds: it
builds a new one (sqlglot's passes, Lark's dataclass trees; see
/work/shared/design/compiler-examples.md). Positions (`pos`) and types (`type`) do not take part
in equality: two trees that say the same thing compare equal wherever they were written, which
is what the round trip `parse(to_text(t)) == t` checks.

After `resolve.py`, names are `Ref`s that say what they are (a state field, an action field, a
knob, a constant, a function parameter, a loop variable by its `Binder`, a derived value), calls
say whether they call a rule function or a builtin, and every node carries its `type`.
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields, replace
from typing import Iterator


@dataclass(frozen=True, slots=True)
class Pos:
    """Where a node starts inside its expression text (1-based line and column) and how long it is."""

    line: int = 1
    column: int = 1
    length: int = 1


NOWHERE = Pos()


@dataclass(frozen=True, slots=True, eq=False)
class Binder:
    """One loop variable of one aggregate: uses refer to this object (compared by identity),
    never to a name, so renaming apart (inlining one body into another) cannot capture a name.
    `id` numbers the binders of one resolved expression, for reading."""

    id: int
    name: str


@dataclass(frozen=True, slots=True)
class Node:
    pos: Pos = field(default=NOWHERE, compare=False, kw_only=True, repr=False)
    type: object = field(default=None, compare=False, kw_only=True, repr=False)


@dataclass(frozen=True, slots=True)
class Const(Node):
    """A literal: int, str, bool or None (lists are `ListLit`s of constants)."""

    value: object


@dataclass(frozen=True, slots=True)
class Name(Node):
    """A bare name before resolution."""

    id: str


@dataclass(frozen=True, slots=True)
class Ref(Node):
    """A resolved name. `kind` is one of REF_KINDS; a loop variable has its `binder`; a knob
    carries its `value` (the variant's setting)."""

    kind: str
    name: str
    binder: Binder | None = None
    value: object = field(default=None, compare=False)


REF_KINDS = ("state", "action", "param", "local", "knob", "const", "derived")


@dataclass(frozen=True, slots=True)
class Attr(Node):
    value: Node
    attr: str
    attr_pos: Pos = field(default=NOWHERE, compare=False, repr=False)


@dataclass(frozen=True, slots=True)
class Index(Node):
    value: Node
    key: Node


@dataclass(frozen=True, slots=True)
class Call(Node):
    """`func(args...)`; after resolution `kind` is 'rule' (a function the rules define) or
    'builtin'."""

    func: str
    args: tuple
    kind: str = ""
    func_pos: Pos = field(default=NOWHERE, compare=False, repr=False)


@dataclass(frozen=True, slots=True)
class Aggregate(Node):
    """`kind(elem for var in iterable if cond)`; kind 'list' is a list comprehension `[...]`.
    `var` is the loop variable's name before resolution, its `Binder` after."""

    kind: str
    elem: Node
    var: object
    iterable: Node
    cond: Node | None = None
    var_pos: Pos = field(default=NOWHERE, compare=False, repr=False)
    kind_pos: Pos = field(default=NOWHERE, compare=False, repr=False)


@dataclass(frozen=True, slots=True)
class ListLit(Node):
    items: tuple


@dataclass(frozen=True, slots=True)
class Record(Node):
    """`{name: expr, ...}`: `fields` is a tuple of (name, node) pairs, in order."""

    fields: tuple
    field_pos: tuple = field(default=(), compare=False, repr=False)


@dataclass(frozen=True, slots=True)
class BoolOp(Node):
    """`a and b and c` (or `or`): n-ary, so a long chain is one node, not a deep tree."""

    op: str
    values: tuple


@dataclass(frozen=True, slots=True)
class Not(Node):
    operand: Node


@dataclass(frozen=True, slots=True)
class Compare(Node):
    """One comparison (the language has no chains): op is ==, !=, <, <=, >, >=, in, not in."""

    op: str
    left: Node
    right: Node


@dataclass(frozen=True, slots=True)
class BinOp(Node):
    op: str   # + - * // %
    left: Node
    right: Node


@dataclass(frozen=True, slots=True)
class Neg(Node):
    operand: Node


@dataclass(frozen=True, slots=True)
class IfExp(Node):
    """`body if test else orelse`."""

    body: Node
    test: Node
    orelse: Node


def children(node: Node) -> tuple:
    """The sub-expressions of `node`, in evaluation order of the source (left to right)."""
    kind = type(node)
    if kind is Attr or kind is Not or kind is Neg:
        return (node.value,) if kind is Attr else (node.operand,)
    if kind is Index:
        return node.value, node.key
    if kind is Call or kind is ListLit:
        return node.args if kind is Call else node.items
    if kind is Record:
        return tuple(value for _name, value in node.fields)
    if kind is BoolOp:
        return node.values
    if kind is Compare or kind is BinOp:
        return node.left, node.right
    if kind is IfExp:
        return node.body, node.test, node.orelse
    if kind is Aggregate:
        return (node.elem, node.iterable) + ((node.cond,) if node.cond is not None else ())
    return ()


def boolean(node: Node) -> bool:
    """Whether the value is True or False by the node's form, whatever a state field holds: a
    comparison, a `not`, a literal bool, or `and`/`or` of those. (Not by its type: a field
    typed bool from the effects may hold what a position carried.)"""
    kind = type(node)
    if kind is Compare or kind is Not:
        return True
    if kind is Const:
        return type(node.value) is bool
    if kind is BoolOp:
        return all(boolean(value) for value in node.values)
    return False


def walk(node: Node) -> Iterator[Node]:
    """Every node of the tree, parents before children, with an explicit stack (no recursion)."""
    stack = [node]
    while stack:
        current = stack.pop()
        yield current
        stack.extend(reversed(children(current)))


def size(node: Node) -> int:
    return sum(1 for _ in walk(node))


# Binding strength, as in rules/grammar/expr.lark: a sub-expression weaker than its place
# needs parentheses.
_IFEXP, _OR, _AND, _NOT, _COMPARE, _SUM, _PRODUCT, _NEG, _POSTFIX, _ATOM = range(1, 11)
_BINOP_LEVEL = {"+": _SUM, "-": _SUM, "*": _PRODUCT, "//": _PRODUCT, "%": _PRODUCT}


def _level(node: Node) -> int:
    kind = type(node)
    if kind is IfExp:
        return _IFEXP
    if kind is BoolOp:
        return _OR if node.op == "or" else _AND
    if kind is Not:
        return _NOT
    if kind is Compare:
        return _COMPARE
    if kind is BinOp:
        return _BINOP_LEVEL[node.op]
    if kind is Neg or (kind is Const and type(node.value) is int and node.value < 0):
        return _NEG
    if kind in (Attr, Index, Call, Aggregate):
        return _POSTFIX
    return _ATOM


def to_text(node: Node) -> str:
    """The expression in the rules language (parentheses only where binding needs them).
    Recursive: the parser bounds the depth of a tree (limits.MAX_EXPRESSION_DEPTH)."""
    def at(sub: Node, level: int) -> str:
        text = to_text(sub)
        return f"({text})" if _level(sub) < level else text

    kind = type(node)
    if kind is Const:
        return _literal_text(node.value)
    if kind is Name:
        return node.id
    if kind is Ref:
        return {"knob": "param.", "const": "const."}.get(node.kind, "") + node.name
    if kind is Attr:
        return f"{at(node.value, _POSTFIX)}.{node.attr}"
    if kind is Index:
        return f"{at(node.value, _POSTFIX)}[{to_text(node.key)}]"
    if kind is Call:
        return f"{node.func}({', '.join(map(to_text, node.args))})"
    if kind is ListLit:
        return f"[{', '.join(map(to_text, node.items))}]"
    if kind is Record:
        return "{" + ", ".join(f"{name}: {to_text(value)}" for name, value in node.fields) + "}"
    if kind is BoolOp:
        inner = _AND if node.op == "or" else _NOT
        return f" {node.op} ".join(at(value, inner) for value in node.values)
    if kind is Not:
        return f"not {at(node.operand, _NOT)}"
    if kind is Compare:
        return f"{at(node.left, _SUM)} {node.op} {at(node.right, _SUM)}"
    if kind is BinOp:
        level = _BINOP_LEVEL[node.op]
        return f"{at(node.left, level)} {node.op} {at(node.right, level + 1)}"
    if kind is Neg:
        return f"-{at(node.operand, _NEG)}"
    if kind is IfExp:
        return f"{at(node.body, _OR)} if {at(node.test, _OR)} else {at(node.orelse, _IFEXP)}"
    if kind is Aggregate:
        var = node.var.name if isinstance(node.var, Binder) else node.var
        cond = f" if {at(node.cond, _OR)}" if node.cond is not None else ""
        inner = f"{to_text(node.elem)} for {var} in {at(node.iterable, _OR)}{cond}"
        return f"[{inner}]" if node.kind == "list" else f"{node.kind}({inner})"
    raise TypeError(f"not a tree node: {node!r}")


def _literal_text(value) -> str:
    if value is True:
        return "true"
    if value is False:
        return "false"
    if value is None:
        return "none"
    if isinstance(value, str):
        return f'"{value}"' if "'" in value else f"'{value}'"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(map(_literal_text, value)) + "]"
    raise TypeError(f"no literal in the rules language for {value!r}")


__all__ = ["boolean", "Pos", "NOWHERE", "Binder", "Node", "Const", "Name", "Ref", "REF_KINDS", "Attr", "Index", "Call",
           "Aggregate", "ListLit", "Record", "BoolOp", "Not", "Compare", "BinOp", "Neg", "IfExp",
           "children", "walk", "size", "to_text", "replace", "fields"]
