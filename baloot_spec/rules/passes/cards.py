"""A trick phase's filters over cards: when the fused narrow's tests read nothing of a
candidate play but its card, the engine passes the hand's cards as they are (no play made of
each card first), and the tests read the candidate itself where they read `A.card`."""

from __future__ import annotations

import ast

from ...expr.astutil import clone, walk


def reads_only_card(test: ast.expr) -> bool:
    """Whether the generated test reads nothing of the candidate `A` but `A.card`."""
    cards = {id(n.value) for n in walk(test) if isinstance(n, ast.Attribute) and n.attr == "card"}
    return all(id(n) in cards for n in walk(test) if isinstance(n, ast.Name) and n.id == "A")


class _OnCards(ast.NodeTransformer):
    def visit_Attribute(self, node):
        if isinstance(node.value, ast.Name) and node.value.id == "A" and node.attr == "card":
            return node.value
        return self.generic_visit(node)


def on_cards(test: ast.expr) -> ast.expr:
    """A copy of the test with the candidate a card: `A.card` read as `A`."""
    return _OnCards().visit(clone(test))
