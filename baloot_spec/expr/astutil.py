"""Helpers over Python `ast` nodes shared by the passes over generated code: a copy that is
cheap (the generated expressions are copied wherever one value goes to two places), and the
question every lowering step asks, whether a node holds a comprehension, answered once a node."""

from __future__ import annotations

import ast

COMPREHENSIONS = (ast.ListComp, ast.DictComp, ast.GeneratorExp)   # (what the emitter makes)


def clone(node):
    """A deep copy of an `ast` node (or list of nodes): every node new but the markers (`_BARE`:
    no fields, nothing ever changes one), plain values shared.
    (copy.deepcopy does the same through the generic protocol, about four times slower.) The
    copy holds what the node holds: a field it never set reads its class's default (None) in
    both; walking `__dict__` instead of every field and attribute by name is a third cheaper
    (the compiler copies ~30,000 nodes to load a variant)."""
    if type(node) is list:
        return [_copy(item) if isinstance(item, _AST) else item for item in node]
    return _copy(node) if isinstance(node, _AST) else node


_AST = ast.AST


def _copy(node):
    kind = type(node)
    new = kind.__new__(kind)
    fields = new.__dict__
    for key, value in node.__dict__.items():
        if type(value) is list:
            fields[key] = [_copy(item) if isinstance(item, _AST) and type(item) not in _BARE else item for item in value]
        elif isinstance(value, _AST) and type(value) not in _BARE:
            fields[key] = _copy(value)
        else:   # (a plain value, or a marker: `Load()`, `Add()`, ... shared, as `ast.parse` shares them)
            fields[key] = value
    return new


def walk(root):
    """Every node under `root` (itself included) but the bare markers, in no promised order: what
    `ast.walk` gives, at about half its cost (a plain stack over each node's fields, no generator
    per node). For the searches the compiler makes on every expression (a loop to unroll, a lazy
    local to declare). The markers (`Load`, `Store`, `Del`, the operators: `_BARE`, nodes with no
    fields, a third of a generated tree's nodes) are only ever read through their parent
    (`node.ctx`, `node.op`), so they are not handed out one by one."""
    stack = [root]
    pop, push, node_type, bare = stack.pop, stack.append, ast.AST, _BARE
    while stack:
        node = pop()
        yield node
        for value in node.__dict__.values():
            if isinstance(value, node_type):
                if type(value) not in bare:
                    push(value)
            elif type(value) is list:
                for item in value:
                    if isinstance(item, node_type) and type(item) not in bare:
                        push(item)


def _bare() -> frozenset:
    """The classes of the markers: no field, only a meaning for the node holding them."""
    found, todo = set(), [ast.expr_context, ast.boolop, ast.operator, ast.unaryop, ast.cmpop]
    while todo:
        kind = todo.pop()
        todo += kind.__subclasses__()
        if not kind._fields and kind not in (ast.expr_context, ast.boolop, ast.operator, ast.unaryop, ast.cmpop):
            found.add(kind)
    return frozenset(found)


_BARE = _bare()
# One `Load()` and one `Store()` for all the generated code, as `ast.parse` shares them: nothing
# changes a marker; shared, the memo key's pickle (rules/module.py) writes each once a function.
LOAD, STORE = ast.Load(), ast.Store()


class ComprehensionFinder:
    """`finder(node)`: whether `node` holds a comprehension, each node looked at once (the answers
    are kept, with the nodes, for the life of the finder: the lowering of one function)."""

    def __init__(self):
        self._known: dict = {}

    def __call__(self, node) -> bool:
        known = self._known.get(id(node))
        if known is not None:
            return known[1]
        found = False
        if isinstance(node, COMPREHENSIONS):
            found = True
        else:   # (the node's children from its __dict__: `ast.iter_child_nodes`, a generator
            for value in node.__dict__.values():   # over every field by name, cost a quarter more;
                if isinstance(value, _AST):          # a marker, `Load()`, `Add()`, holds nothing: not asked)
                    if type(value) not in _BARE and self(value):
                        found = True
                        break
                elif type(value) is list:
                    for item in value:
                        if isinstance(item, _AST) and type(item) not in _BARE and self(item):
                            found = True
                            break
                    if found:
                        break
        self._known[id(node)] = (node, found)   # (the node is kept: its id is not reused meanwhile)
        return found


def same_dump(first, second) -> bool:
    """Whether `ast.dump(first) == ast.dump(second)`, without writing either out: the two trees
    compared node by node, stopping at the first difference (a dump formats every node of both,
    then compares the text). The same answer: the same class; each field absent from both
    (missing, or None where the class's default is None, as `dump` leaves it out) or formatted
    alike (nodes compared the same way, lists item by item, any other value by its `repr`);
    positions (`lineno`, ...) are not fields, as `dump` leaves them out by default."""
    stack = [(first, second)]
    pop, push = stack.pop, stack.append
    while stack:
        a, b = pop()
        if a is b:
            continue
        a_node, b_node = isinstance(a, _AST), isinstance(b, _AST)
        if a_node or b_node:
            if type(a) is not type(b):
                if not (a_node and b_node and type(a).__name__ == type(b).__name__ and a._fields == b._fields):
                    return False
            kind = type(a)
            for field in a._fields:
                x, y = getattr(a, field, _ABSENT), getattr(b, field, _ABSENT)
                if x is None and getattr(kind, field, ...) is None:
                    x = _ABSENT
                if y is None and getattr(type(b), field, ...) is None:
                    y = _ABSENT
                if (x is _ABSENT) != (y is _ABSENT):
                    return False
                if x is not _ABSENT:
                    push((x, y))
        elif type(a) is list or type(b) is list:
            if not (type(a) is list and type(b) is list and len(a) == len(b)):
                return False
            stack.extend(zip(a, b))
        elif repr(a) != repr(b):
            return False
    return True


_ABSENT = object()
