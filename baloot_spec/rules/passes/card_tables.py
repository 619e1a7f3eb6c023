"""Per-card tables: a call of a rule function of one card that reads nothing but the card, the
constants, the knobs and the state a specialised phase fixes (the contract) is a lookup in a
table of the deck, built once when the generated module is loaded.

`strength(c)` in a Hokum in hearts is `8 - k__ix_trump_order.get(c.rank, -1) if c.suit == 'H'
else 8 - k__ix_plain_order.get(c.rank, -1)`: two attribute reads, a comparison, a method call and
a subtraction per card, where `k__card_strength[c]` is one dict lookup (cards are interned, so
hashed by identity). Only where the typed tree says the argument is a card (`card` type, or an
inlined parameter whose argument is one), and only where the function's body, and every rule
function it calls, reads nothing else: no other state, no derived value, no loop, no builtin but
`index`/`len`/`abs` (what resolve.py lets a rule call is pure, but these are the ones a
card's attribute tables use). A body that folds to a literal (`is_trump` in a Sun) or to one
comparison of the card's attributes is left inline: the lookup would cost as much.

The table holds the value of the body for every card of the deck (expr/builtins.py
`card_table`, run when the module loads); a card for which the body raises is computed on demand
instead, so the error is the same and raised at the same point as without the table.
"""

from __future__ import annotations

import ast
import itertools

from ...expr import tree as t
from ...expr.astutil import walk
from ...expr.emit import LAZY_LOCAL, Emitter, resolved_body
from ...expr.types import CARD
from .domains import key_domain

PURE_BUILTINS = frozenset({"index", "len", "abs"})
TABLE_PREFIX = "k__card_"
FUNCTION_PREFIX = "t_card_"
PARAM = "v_card"
KEY_PARAM = "v_key"
ROW_LOCAL = LAZY_LOCAL + "_card_"   # `_h__card_f`: a keyed table's row, read once per function


def reads_only_card(name: str, scope, fixed: dict | None, known: dict | None = None) -> bool:
    """Whether rule function `name` has one parameter and a body (and callees) that read
    nothing but it, constants, knobs and the fixed state (plain values)."""
    return card_inputs(name, scope, fixed, known) == frozenset()


def card_inputs(name: str, scope, fixed: dict | None, known: dict | None = None) -> frozenset | None:
    """The derived values rule function `name` reads besides its one parameter, each of a few
    known values (domains.py: the table is then keyed by them too), or None when the body (or
    a callee) reads anything else: other state, a derived value of unknown values, a loop, a
    builtin but `index`/`len`/`abs`. `known` holds the answers so far (each function is looked
    at once, however often it is called; a function being looked at counts as no: recursion is
    never tabulated)."""
    known = {} if known is None else known
    if name in known:
        return known[name]
    known[name] = None
    entry = scope.inline.get(name)
    if entry is None or len(entry[0]) != 1:
        return None
    _params, tree, callee_scope = entry
    keys: set = set()
    for node in t.walk(resolved_body(tree, callee_scope)):
        kind = type(node)
        if kind is t.Ref:
            if node.kind == "state":
                if not (fixed and node.name in fixed and _plain(fixed[node.name])):
                    return None
            elif node.kind == "derived":
                if key_domain(node.name, callee_scope) is None:
                    return None
                keys.add(node.name)
            elif node.kind not in ("param", "knob", "const"):
                return None
        elif kind is t.Call:
            if node.kind == "rule":
                inner = card_inputs(node.func, callee_scope, fixed, known)
                if inner is None:
                    return None
                keys |= inner
            elif node.func not in PURE_BUILTINS:
                return None
        elif kind not in (t.Const, t.Attr, t.Index, t.IfExp, t.BoolOp, t.Not, t.Compare, t.BinOp, t.Neg, t.ListLit):
            return None
    known[name] = frozenset(keys)
    return known[name]


def _plain(value) -> bool:
    return value is None or isinstance(value, (str, int, bool))


def cheap(body: ast.expr) -> bool:
    """A body no slower than a lookup: a literal, or no call, subscript nor branch in it
    (`v_card.suit == 'H'`)."""
    return not any(isinstance(node, (ast.Call, ast.Subscript, ast.IfExp, ast.BoolOp)) for node in walk(body))


class CardTables:
    """The tables of one generated module: rule function -> (the body its table is made of, the
    derived values it is keyed by). Called by the emitter (expr/emit.py `tables`) at each call of
    a rule function of one argument."""

    def __init__(self):
        self.bodies: dict[str, tuple] = {}
        self.refused: set = set()
        self.known: dict = {}   # card_inputs' answers (one module: one scope of functions, one contract)

    def __call__(self, emitter: Emitter, name: str, arg_type, arg: ast.expr):
        if arg_type != CARD or name in self.refused:
            return None
        if name in emitter.stack:   # (being inlined around this call: its own table is not made yet)
            return None
        if name not in self.bodies:
            made = self._body(emitter, name)
            if made is None:
                self.refused.add(name)
                return None
            self.bodies[name] = made
        table = ast.Name(id=TABLE_PREFIX + name, ctx=ast.Load())
        keys = self.bodies[name][1]
        if keys:   # the row of the keys' values: `T[led_suit]`, fetched once per generated function
            row = table
            for key in keys:
                row = ast.Subscript(value=row, slice=emitter.emit(t.Ref("derived", key)), ctx=ast.Load())
            if emitter.in_iterable:   # (no assignment expression allowed there)
                table = row
            else:
                local = ROW_LOCAL + name
                table = ast.IfExp(test=ast.Compare(left=ast.Name(id=local, ctx=ast.Load()), ops=[ast.IsNot()],
                                                   comparators=[ast.Constant(...)]),
                                  body=ast.Name(id=local, ctx=ast.Load()),
                                  orelse=ast.NamedExpr(target=ast.Name(id=local, ctx=ast.Store()), value=row))
        return ast.Subscript(value=table, slice=arg, ctx=ast.Load())

    def _body(self, emitter: Emitter, name: str):
        keys = card_inputs(name, emitter.scope, emitter.fixed, self.known)
        if keys is None:
            return None
        keys = tuple(sorted(keys))
        params, tree, callee_scope = emitter.scope.inline[name]
        inner = Emitter(callee_scope, emitter.fixed, itertools.count(1), "_card", frozenset({name}))
        inner.env[("param", params[0])] = ast.Name(id=PARAM, ctx=ast.Load())
        inner.env.update((("derived", key), ast.Name(id=f"{KEY_PARAM}{k}", ctx=ast.Load())) for k, key in enumerate(keys))
        inner.param_types[params[0]] = CARD
        body = inner.emit(resolved_body(tree, callee_scope))
        if cheap(body):
            return None
        return body, keys, tuple(key_domain(key, emitter.scope) for key in keys)

    def statements(self) -> list:
        """The module's table statements, in the order the functions were first met:
        `def t_card_f(v_card): return body` and `k__card_f = _card_table(t_card_f, k__deck)`
        (keyed: `def t_card_f(v_card, v_key0, ...)` and `_keyed_card_table(t_card_f, k__deck,
        domains)`)."""
        out = []
        for name, (body, keys, domains) in self.bodies.items():
            params = [ast.arg(arg=PARAM)] + [ast.arg(arg=f"{KEY_PARAM}{k}") for k in range(len(keys))]
            out.append(ast.FunctionDef(name=FUNCTION_PREFIX + name, args=ast.arguments(
                posonlyargs=[], args=params, vararg=None, kwonlyargs=[], kw_defaults=[], kwarg=None,
                defaults=[]), body=[ast.Return(value=body)], decorator_list=[], returns=None))
            args = [ast.Name(id=FUNCTION_PREFIX + name, ctx=ast.Load()), ast.Name(id="k__deck", ctx=ast.Load())]
            if keys:
                args.append(ast.Tuple(elts=[ast.Tuple(elts=[ast.Constant(with_suits), ast.Tuple(
                    elts=[ast.Constant(v) for v in values], ctx=ast.Load())], ctx=ast.Load())
                    for with_suits, values in domains], ctx=ast.Load()))
            out.append(ast.Assign(targets=[ast.Name(id=TABLE_PREFIX + name, ctx=ast.Store())], value=ast.Call(
                func=ast.Name(id="_keyed_card_table" if keys else "_card_table", ctx=ast.Load()),
                args=args, keywords=[])))
        return out
