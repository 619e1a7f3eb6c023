"""Rule expression text -> `tree.py` nodes.

Lark parses (expr/parser.py: the grammar, the per-text cache of Lark trees, located syntax
errors, the length and depth limits); this module converts Lark's tree into the typed dataclass
tree with an explicit stack, children first (Lark's `Transformer_NonRecursive` does the same),
so no input can exhaust Python's recursion. `a and b and c` becomes one n-ary `BoolOp`.
Nothing here resolves a name or raises a user error beyond the parser's: that is resolve.py.
"""

from __future__ import annotations

import lark

from . import tree as t
from .parser import parse_expression

# Trees by expression text (an expression recurs in every variant, and in every phase it is
# specialised for).
_TREES: dict[str, t.Node] = {}


def parse(text: str) -> t.Node:
    """The tree of one expression (ExprSyntaxError, from parser.py, with the position of a problem)."""
    text = str(text)
    found = _TREES.get(text)
    if found is None:
        found = _TREES[text] = from_lark(parse_expression(text))
    return found


def _pos(item) -> t.Pos:
    if isinstance(item, lark.Token):
        return t.Pos(item.line or 1, item.column or 1, len(str(item)))
    meta = getattr(item, "meta", None)
    if meta is not None and not meta.empty:
        length = (meta.end_column - meta.column) if meta.end_line == meta.line else 1
        return t.Pos(meta.line, meta.column, max(length, 1))
    return t.NOWHERE


def from_lark(root: lark.Tree) -> t.Node:
    """Convert a Lark tree of rules/grammar/expr.lark, children before parents, without recursion."""
    done: dict[int, t.Node] = {}   # id(lark tree) -> its node
    stack = [(root, False)]
    while stack:
        item, expanded = stack.pop()
        if not expanded:
            stack.append((item, True))
            stack.extend((kid, False) for kid in _subtrees(item))
            continue
        done[id(item)] = _build(item, lambda kid: done[id(kid)])
    return done[id(root)]


def _subtrees(item: lark.Tree) -> list:
    """The Lark subtrees that become nodes (arglist and field wrappers are looked through)."""
    out = []
    for kid in item.children:
        if isinstance(kid, lark.Tree):
            if kid.data in ("arglist", "field"):
                out.extend(k for k in kid.children if isinstance(k, lark.Tree))
            else:
                out.append(kid)
    return out


def _build(item: lark.Tree, node_of) -> t.Node:
    kind, kids, pos = str(item.data), item.children, _pos(item)
    if kind == "number":
        return t.Const(int(kids[0]), pos=pos)
    if kind == "string":
        return t.Const(str(kids[0])[1:-1], pos=pos)
    if kind in ("true", "false", "none"):
        return t.Const({"true": True, "false": False, "none": None}[kind], pos=pos)
    if kind == "name":
        return t.Name(str(kids[0]), pos=_pos(kids[0]))
    if kind == "attr":
        return t.Attr(node_of(kids[0]), str(kids[1]), _pos(kids[1]), pos=pos)
    if kind == "index":
        return t.Index(node_of(kids[0]), node_of(kids[1]), pos=pos)
    if kind == "call":
        args = () if kids[1] is None else tuple(map(node_of, kids[1].children))
        return t.Call(str(kids[0]), args, "", _pos(kids[0]), pos=pos)
    if kind == "list_":
        return t.ListLit(() if kids[0] is None else tuple(map(node_of, kids[0].children)), pos=pos)
    if kind == "record":
        present = [fld for fld in kids if fld is not None]
        return t.Record(tuple((str(f.children[0]), node_of(f.children[1])) for f in present),
                        tuple(_pos(f.children[0]) for f in present), pos=pos)
    if kind in ("aggregate", "listcomp"):
        name, (elem, var, iterable, cond) = (kids[0], kids[1:5]) if kind == "aggregate" else (None, kids[0:4])
        return t.Aggregate(str(name) if name is not None else "list", node_of(elem), str(var), node_of(iterable),
                           None if cond is None else node_of(cond), _pos(var),
                           _pos(name) if name is not None else pos, pos=pos)
    if kind in ("and_", "or_"):
        op = kind[:-1]
        values = []
        for kid in kids:
            node = node_of(kid)
            values.extend(node.values if type(node) is t.BoolOp and node.op == op else (node,))
        return t.BoolOp(op, tuple(values), pos=pos)
    if kind == "not_":
        return t.Not(node_of(kids[0]), pos=pos)
    if kind == "compare":
        return t.Compare(str(kids[1]), node_of(kids[0]), node_of(kids[2]), pos=pos)
    if kind in ("in_", "not_in"):
        return t.Compare("in" if kind == "in_" else "not in", node_of(kids[0]), node_of(kids[1]), pos=pos)
    if kind == "binop":
        return t.BinOp(str(kids[1]), node_of(kids[0]), node_of(kids[2]), pos=pos)
    if kind == "neg":
        return t.Neg(node_of(kids[0]), pos=pos)
    if kind == "ifexp":
        return t.IfExp(node_of(kids[0]), node_of(kids[1]), node_of(kids[2]), pos=pos)
    raise ValueError(f"the grammar made a {kind!r}, which expr/parse.py does not know")   # (a bug, not the user's)
