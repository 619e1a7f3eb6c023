"""Derived values as tables keyed by the state fields they read: `opponents_in_order` is a list
of seats worked out from `dealer` and `buyer` (a loop over four positions, two lookups each);
with a table per (dealer, buyer) it is two dict lookups.

A derived value (a rule function of no arguments) is keyed when its body, and every rule
function it calls, reads no state but some fields, each used only in ways that cannot tell two
equal values apart (`key_fields`): as a key of a constant map, in a comparison, as a seat of a
seat builtin (`distance`, `seat_after`), under `not` or as a test; a field typed `seat` or `suit`
may be used in any way (its values are the table's seats or the deck's suits, plain text). A
field's values are then the constants it is compared with anywhere in the variant (`compared`),
the keys of the maps it indexes, the seats or suits for a seat or suit, true and false for a
test, and its initial value. Any other value of the state (`none` before the bidding, a seat
read where no table holds it, an unhashable one) finds no entry and the body is worked out as
before: the table is only a shortcut, filled with what the body itself worked out at the
positions that asked (never ahead, at load: a slow body then stays under the hand's budget).

A value that is a list is shared by every position that reads it, so it is kept only where the
rules just read it (`read_only`: indexed, `len`, `in`, iterated); other values must be plain
(text, int, bool, none), checked as the table is filled (expr/builtins.py `keyed_fill`).
"""

from __future__ import annotations

import ast

from ...expr import tree as t
from ...expr.emit import resolved_body
from ...expr.types import SEAT, SUIT
from ..pyast import function

TABLE_PREFIX = "k__keyed_"
FIELDS_PREFIX = "k__keyed_fields_"
MEMOISED_PREFIX = "m_keyed_"
MAX_ENTRIES = 1024
_SEAT_BUILTINS = frozenset({"distance", "seat_after"})
_ORDERED = frozenset({"==", "!=", "<", "<=", ">", ">="})
_READ_ONLY_FIELDS = {t.Index: "value", t.Aggregate: "iterable"}


class _Refused(Exception):
    """The body reads something that keeps it from being a table."""


class _Scan:
    """One body's scan: `uses` maps each state field read to the values its uses tell apart."""

    def __init__(self, scopes, seats: tuple, suits: tuple, knobs_as_data: bool):
        self.scopes, self.seats, self.suits, self.knobs_as_data = scopes, seats, suits, knobs_as_data
        self.uses: dict = {}

    def add(self, ref, values) -> None:
        self.uses.setdefault(ref.name, []).extend(values)

    def any_use(self, ref) -> None:
        """A use that could tell equal values apart: only a field typed seat or suit (text)."""
        if ref.type == SEAT:
            self.add(ref, self.seats)
        elif ref.type == SUIT:
            self.add(ref, self.suits)
        else:
            raise _Refused

    def scan(self, node, params: dict, stack: tuple) -> None:
        """Raise _Refused on anything but the reads the module's docstring lists. `params`: an
        inlined body's parameters that stand for a state field (the argument was the field's
        own `Ref`) -> that `Ref`."""
        kind = type(node)
        field = _field(node, params)
        if field is not None:
            self.any_use(field)
        elif kind is t.Ref:
            if node.kind in ("action", "derived") or (node.kind == "knob" and self.knobs_as_data):
                raise _Refused
        elif kind is t.Index and type(node.value) is t.Ref and node.value.kind == "const" \
                and (key := _field(node.key, params)) is not None \
                and isinstance(constant := self.scopes.constants.get(node.value.name), (dict, list)):
            self.add(key, constant if isinstance(constant, dict) else range(len(constant)))
        elif kind is t.Compare:
            for side, other in ((node.left, node.right), (node.right, node.left)):
                field = _field(side, params)
                if field is None:
                    self.scan(side, params, stack)
                elif node.op in _ORDERED or side is node.left:
                    self.add(field, _constants(other, node.op, self.scopes.constants))
                else:   # (`x in field`: the field is the container)
                    self.any_use(field)
        elif kind is t.Not or kind is t.IfExp:
            test = node.operand if kind is t.Not else node.test
            field = _field(test, params)
            if field is not None:
                self.add(field, (True, False))
            else:
                self.scan(test, params, stack)
            if kind is t.IfExp:
                self.scan(node.body, params, stack)
                self.scan(node.orelse, params, stack)
        elif kind is t.Call and node.kind == "rule":
            self.call(node, params, stack)
        elif kind is t.Call and node.func in _SEAT_BUILTINS:
            for k, arg in enumerate(node.args):
                field = _field(arg, params)
                if field is not None and (node.func == "distance" or k == 0):
                    self.add(field, self.seats)
                else:
                    self.scan(arg, params, stack)
        else:
            for sub in t.children(node):
                self.scan(sub, params, stack)

    def call(self, node, params: dict, stack: tuple) -> None:
        entry = self.scopes.inline.get(node.func)
        if entry is None or node.func in stack or len(stack) > 8:
            raise _Refused
        names, tree, callee_scope = entry
        inner = {}
        for param, arg in zip(names, node.args):
            inner[param] = _field(arg, params)
            if inner[param] is None:
                self.scan(arg, params, stack)
        self.scan(resolved_body(tree, callee_scope), inner, stack + (node.func,))


def key_fields(name: str, scopes, seats: tuple, suits: tuple, compared: dict, knobs_as_data: bool = False):
    """{state field: its values, in order} for derived value `name` (see the module's docstring),
    or None when it cannot be a table (or would have more than MAX_ENTRIES entries)."""
    entry = scopes.derived.get(name)
    if entry is None:
        return None
    tree, scope = entry
    scan = _Scan(scopes, tuple(seats), tuple(suits), knobs_as_data)
    try:
        scan.scan(resolved_body(tree, scope), {}, (name,))
    except _Refused:
        return None
    fields, size = {}, 1
    for field in sorted(scan.uses):
        values = dict.fromkeys(scan.uses[field])
        values.update(dict.fromkeys(compared.get(field, ())))
        initial = scopes.state_init.get(field, _NO_VALUE)
        if _plain(initial):
            values[initial] = None
        fields[field] = tuple(values)
        size *= len(values)
    return fields if 0 < size <= MAX_ENTRIES else None


_NO_VALUE = object()


def _field(node, params: dict):
    """The state field's `Ref` that `node` is (itself, or a parameter standing for it), or None."""
    if type(node) is not t.Ref:
        return None
    if node.kind == "state":
        return node
    if node.kind == "param":
        return params.get(node.name)
    return None


def _constants(other, op: str, constants: dict) -> tuple:
    """The literals a field is compared with (`x == 'a'`, `x in ['a', 'b']`, `x in const.xs`)."""
    if type(other) is t.Const and _plain(other.value):
        return (other.value,)
    if op in ("in", "not in"):
        if type(other) is t.ListLit:
            return tuple(item.value for item in other.items if type(item) is t.Const and _plain(item.value))
        if type(other) is t.Ref and other.kind == "const" and isinstance(constants.get(other.name), (list, dict)):
            return tuple(v for v in constants[other.name] if _plain(v))
    return ()


def _plain(value) -> bool:
    return value is None or isinstance(value, (str, int, bool))


def compared(trees, constants: dict) -> dict:
    """{state field: the literals it is compared with anywhere in `trees`}: the values a
    field's table row is likeliest to need (`mode == 'sun'` in one rule, `mode == 'hokum'` in
    another)."""
    found: dict = {}
    for tree in trees:
        for node in t.walk(tree):
            if type(node) is t.Compare:
                for side, other in ((node.left, node.right), (node.right, node.left)):
                    if type(side) is t.Ref and side.kind == "state" and (node.op in _ORDERED or side is node.left):
                        found.setdefault(side.name, []).extend(_constants(other, node.op, constants))
    return {field: tuple(dict.fromkeys(values)) for field, values in found.items()}


def read_only(name: str, trees) -> bool:
    """Whether every read of derived value `name` in `trees` only reads it: indexed, iterated,
    `len` of it, or the list of an `in`: what cannot keep the value nor tell it from a copy."""
    for tree in trees:
        parents = [(tree, None)]
        while parents:
            node, parent = parents.pop()
            if type(node) is t.Ref and node.kind == "derived" and node.name == name and not _reads(node, parent):
                return False
            parents.extend((child, node) for child in t.children(node))
    return True


def _reads(node, parent) -> bool:
    kind = type(parent)
    if kind in _READ_ONLY_FIELDS:
        return getattr(parent, _READ_ONLY_FIELDS[kind]) is node
    if kind is t.Call:
        return parent.kind != "rule" and parent.func == "len"
    if kind is t.Compare:
        return parent.op in ("in", "not in") and parent.right is node
    return False


def constant_function(fn_name: str, value: ast.Constant) -> ast.FunctionDef:
    """`f_x(S)` of a derived value whose emitted body is a literal (a knob folded it): the
    literal, with no memo to look in."""
    return function(fn_name, "S", [ast.Return(value=value)])


def keyed_function(fn_name: str, name: str, fields: dict, memoised: ast.FunctionDef, lists: bool) -> list:
    """`f_x(S)`: the table's entry for the fields' values; else (no entry yet, or a value that
    cannot be a key) the memoised body as before, renamed `m_keyed_x`, whose value is then kept
    in the table (expr/builtins.py `keyed_fill`). Returns both functions."""
    lookup: ast.expr = ast.Name(id=TABLE_PREFIX + name, ctx=ast.Load())
    for field in fields:
        key = ast.Attribute(value=ast.Name(id="S", ctx=ast.Load()), attr=field, ctx=ast.Load())
        lookup = ast.Subscript(value=lookup, slice=key, ctx=ast.Load())
    if not fields:
        lookup = ast.Subscript(value=lookup, slice=ast.Tuple(elts=[], ctx=ast.Load()), ctx=ast.Load())
    first = ast.Try(body=[ast.Return(value=lookup)],
                    handlers=[ast.ExceptHandler(type=ast.Name(id="_KeyMiss", ctx=ast.Load()), name=None,
                                                body=[ast.Pass()])], orelse=[], finalbody=[])
    body_name = MEMOISED_PREFIX + name
    worked_out = ast.Call(func=ast.Name(id=body_name, ctx=ast.Load()), args=[ast.Name(id="S", ctx=ast.Load())],
                          keywords=[])
    fill = ast.Call(func=ast.Name(id="_keyed_fill", ctx=ast.Load()),
                    args=[ast.Name(id=TABLE_PREFIX + name, ctx=ast.Load()), ast.Name(id=FIELDS_PREFIX + name, ctx=ast.Load()),
                          ast.Name(id="S", ctx=ast.Load()), worked_out, ast.Constant(lists)], keywords=[])
    front = ast.FunctionDef(name=fn_name, args=memoised.args, body=[first, ast.Return(value=fill)],
                            decorator_list=[], returns=None)
    behind = ast.FunctionDef(name=body_name, args=memoised.args, body=memoised.body, decorator_list=[], returns=None)
    return [front, behind]


def table_statements(name: str, fields: dict) -> list:
    """`k__keyed_x = {}` (filled as positions ask: expr/builtins.py `keyed_fill`) and
    `k__keyed_fields_x`, the key fields and the values each may take, run when the module loads."""
    spec = ast.Tuple(elts=[ast.Tuple(elts=[ast.Constant(field), ast.Tuple(
        elts=[ast.Constant(v) for v in values], ctx=ast.Load())], ctx=ast.Load())
        for field, values in fields.items()], ctx=ast.Load())
    return [ast.Assign(targets=[ast.Name(id=TABLE_PREFIX + name, ctx=ast.Store())], value=ast.Dict(keys=[], values=[])),
            ast.Assign(targets=[ast.Name(id=FIELDS_PREFIX + name, ctx=ast.Store())], value=spec)]
