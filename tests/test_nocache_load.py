"""Step 107: the compiler's own work when the rules are loaded with no disk cache made cheaper,
the generated code unchanged (tools/dump_generated.py: the same 55 sources as before)."""

import ast

from baloot_spec.expr.astutil import clone


def _e(text: str) -> ast.expr:
    return ast.parse(text, mode="eval").body


# ---- clone: the node's own fields, no defaults written in ------------------------------------------
def test_clone_holds_what_the_node_holds_and_nothing_more():
    node = ast.Call(func=ast.Name(id="f", ctx=ast.Load()), args=[_e("[x for x in S.xs if x]"), ast.Constant(1)],
                    keywords=[])
    copy = clone(node)
    assert ast.dump(copy, include_attributes=True) == ast.dump(node, include_attributes=True)
    pairs = list(zip(ast.walk(copy), ast.walk(node)))
    assert all(a is not b for a, b in pairs)
    # (a field never set reads its class's default in both; the copy does not set it: about a
    # third of the old copy's cost went to writing those defaults into every node)
    assert all(list(a.__dict__) == list(b.__dict__) for a, b in pairs)
    assert copy.args[1].kind is None and "kind" not in copy.args[1].__dict__


def test_clone_of_a_list_and_of_plain_values():
    statements = ast.parse("x = 1\nreturn x").body
    copies = clone(statements)
    assert [ast.dump(s) for s in copies] == [ast.dump(s) for s in statements]
    assert all(a is not b for a, b in zip(copies, statements))
    assert clone("text") == "text" and clone(None) is None and clone([1, None]) == [1, None]
