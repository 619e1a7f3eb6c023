"""The few values a derived value can take, read off its typed tree: what lets a per-card table
(card_tables.py) be keyed by it as well as by the card.

`led_suit` is `trick[0].card.suit if len(trick) > 0 else none`: a suit of the deck (the type of
`card.suit`) or none, so a function of a card and the led suit is a table per (led suit, card).
Only a body that cannot fail is a key: the table reads the key at every lookup, where the
function's own body may have read it in one branch only; a body that cannot raise makes both
the same. "Cannot fail" is judged conservatively: literals, the state's and the engine's
values' own fields, `len` of a list, comparisons of ints or for (in)equality, and `xs[0]` only
under a test `len(xs) > 0` (or `!= 0`, `>= 1`) of the same `xs`.
"""

from __future__ import annotations

from ...expr import tree as t
from ...expr.emit import resolved_body
from ...expr.types import ATTRIBUTES, SUIT

# A domain: (whether it holds every suit of the deck, its other values, in order).
Domain = tuple


def key_domain(name: str, scope) -> Domain | None:
    """The domain of derived value `name`, or None (not a derived value, a body that could fail,
    or values that cannot be listed)."""
    entry = scope.derived.get(name)
    if entry is None:
        return None
    tree, callee_scope = entry
    body = resolved_body(tree, callee_scope)
    if not cannot_fail(body, frozenset()):
        return None
    return values_of(body)


def values_of(node: t.Node) -> Domain | None:
    """(with_suits, values) of what `node` can evaluate to, or None."""
    kind = type(node)
    if kind is t.Const:
        try:
            hash(node.value)
        except TypeError:
            return None
        return (False, (node.value,))
    if kind is t.IfExp:
        body, orelse = values_of(node.body), values_of(node.orelse)
        if body is None or orelse is None:
            return None
        return (body[0] or orelse[0], tuple(dict.fromkeys(body[1] + orelse[1])))
    if node.type == SUIT:
        return (True, ())
    return None


def cannot_fail(node: t.Node, nonempty: frozenset) -> bool:
    """Whether evaluating `node` cannot raise (see the module's docstring); `nonempty`: the
    subtrees a surrounding test has shown to be non-empty lists."""
    kind = type(node)
    if kind is t.Const:
        return True
    if kind is t.Ref:
        return node.kind in ("state", "const", "knob")
    if kind is t.Attr:
        owner = getattr(node.value.type, "kind", None)
        return owner in ATTRIBUTES and node.attr in ATTRIBUTES[owner] and cannot_fail(node.value, nonempty)
    if kind is t.Index:
        return (type(node.key) is t.Const and node.key.value == 0 and node.value in nonempty
                and cannot_fail(node.value, nonempty))
    if kind is t.Call:
        return (node.kind != "rule" and node.func == "len" and len(node.args) == 1
                and getattr(node.args[0].type, "kind", None) == "list" and cannot_fail(node.args[0], nonempty))
    if kind is t.Compare:
        sides = (node.left, node.right)
        if not all(cannot_fail(side, nonempty) for side in sides):
            return False
        return node.op in ("==", "!=") or all(getattr(side.type, "kind", None) == "int" for side in sides)
    if kind is t.IfExp:
        return (cannot_fail(node.test, nonempty) and cannot_fail(node.orelse, nonempty)
                and cannot_fail(node.body, nonempty | _shown_nonempty(node.test)))
    return False


def _shown_nonempty(test: t.Node) -> frozenset:
    """{xs} when `test` is `len(xs) > 0`, `len(xs) != 0` or `len(xs) >= 1`."""
    if type(test) is t.Compare and type(test.left) is t.Call and test.left.func == "len" \
            and test.left.kind != "rule" and type(test.right) is t.Const and len(test.left.args) == 1:
        if (test.op, test.right.value) in ((">", 0), ("!=", 0), (">=", 1)) and type(test.right.value) is int:
            return frozenset({test.left.args[0]})
    return frozenset()
