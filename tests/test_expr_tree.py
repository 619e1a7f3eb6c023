"""The expression tree (baloot_spec/expr/tree.py, parse.py): the parser's tree printed back as
rules text parses to the same tree, for every expression the shipped rules use, and the shapes
that need care (precedence, n-ary and/or, quotes, comprehensions) print as they should."""

import pytest

from baloot_spec.expr import tree as t
from baloot_spec.expr.parse import parse
from baloot_spec.expr.parser import ExprSyntaxError
from baloot_spec.limits import MAX_EXPRESSION_DEPTH

from shipped_expressions import shipped_expressions


def test_every_shipped_expression_prints_back_to_the_same_tree():
    texts = sorted({text for text, *_ in shipped_expressions()})
    assert len(texts) > 150   # (the shipped rules have a few hundred)
    for text in texts:
        tree = parse(text)
        assert parse(t.to_text(tree)) == tree, text


@pytest.mark.parametrize("text, printed", [
    ("(a + b) * c", "(a + b) * c"), ("a - (b - c)", "a - (b - c)"), ("(a - b) - c", "a - b - c"),
    ("a and (b or c)", "a and (b or c)"), ("(a and b) or c", "a and b or c"),
    ("not (a == b)", "not a == b"), ("(not a) == b", "(not a) == b"), ("-(a + 1)", "-(a + 1)"),
    ("(a if b else c) if d else e", "(a if b else c) if d else e"), ("a if b else (c if d else e)", "a if b else c if d else e"),
    ("\"it's\"", "\"it's\""), ("'sun'", "'sun'"), ("{a: 1, b: [x, none]}", "{a: 1, b: [x, none]}"), ("{}", "{}"),
    ("count(c for c in hand if c.suit == trump)", "count(c for c in hand if c.suit == trump)"),
    ("[c.rank for c in (a or b)]", "[c.rank for c in a or b]"), ("any(x for x in (y if z else w))", "any(x for x in (y if z else w))"),
    ("(a + b).suit", "(a + b).suit"), ("hands[seat][0]", "hands[seat][0]"), ("x not in [1, 2]", "x not in [1, 2]"),
    ("f()", "f()"), ("true and false", "true and false"),
])
def test_printing_keeps_the_meaning(text, printed):
    assert t.to_text(parse(text)) == printed
    assert parse(printed) == parse(text)


def test_and_or_chains_are_one_node():
    tree = parse("a and b and (c and d) and e")
    assert tree == t.BoolOp("and", tuple(t.Name(n) for n in "abcde"))
    assert parse("a or b and c") == t.BoolOp("or", (t.Name("a"), t.BoolOp("and", (t.Name("b"), t.Name("c")))))


def test_positions_do_not_take_part_in_equality_but_are_kept():
    first, second = parse("x + 1"), parse("x  +  1")
    assert first == second
    assert (first.right.pos.line, first.right.pos.column) == (1, 5)
    assert (second.right.pos.line, second.right.pos.column) == (1, 7)
    call = parse("len(  xs)")
    assert (call.func_pos.column, call.args[0].pos.column) == (1, 7)


def test_walk_visits_every_node_parents_first_without_recursion():
    tree = parse("any(c.suit == s for c in hand if c.rank != 'A')")
    kinds = [type(n).__name__ for n in t.walk(tree)]
    assert kinds[0] == "Aggregate" and kinds.count("Name") == 4 and kinds.count("Attr") == 2
    wide = parse(" or ".join(f"x == {i}" for i in range(30)))   # (an n-ary node: 30 operands, depth 3)
    assert t.size(wide) == 1 + 30 * 3


def test_deep_nesting_is_refused_with_a_position():
    text = "(" * (MAX_EXPRESSION_DEPTH + 5) + "x" + ")" * (MAX_EXPRESSION_DEPTH + 5)
    nested = " + ".join(["-x"] * 3)
    assert parse(nested) == parse("-x + -x + -x")
    with pytest.raises(ExprSyntaxError):
        parse("-" * (MAX_EXPRESSION_DEPTH + 5) + "x")
    parse(text)   # (parentheses alone add no operator: accepted as today)


def test_trees_are_frozen():
    tree = parse("a + b")
    with pytest.raises(AttributeError):
        tree.op = "-"
