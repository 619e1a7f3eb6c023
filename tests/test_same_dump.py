"""`astutil.same_dump(a, b)`: the answer `ast.dump(a) == ast.dump(b)` gives, without writing the
trees out (step 126: the trick phase's narrows per length compared so, once per contract)."""

from __future__ import annotations

import ast
import itertools
import random

from baloot_spec.expr.astutil import clone, same_dump

SOURCES = [
    "x + 1", "x + 1.0", "x + True", "x - 1", "y + 1", "f(x, *a, k=1)", "f(x, *a, k=2)", "f(x, k=1)",
    "a if b else c", "[1, 2]", "(1, 2)", "{1: 2}", "{1, 2}", "x[0]", "x[0:1]", "x[0:]", "x.a", "x.b",
    "lambda: 0", "0.0", "-0.0", "float('nan')", "...", "None", "'a'", "b'a'", "'None'", "1j",
    "[v for v in xs if v]", "[v for v in xs]", "(v for v in xs)", "not x", "-x", "x is not ...",
    "def f(S):\n    return S.a", "def f(S):\n    return", "def f(S):\n    pass", "def g(S):\n    return S.a",
    "for x in xs:\n    t += x\nelse:\n    pass", "for x in xs:\n    t += x",
    "try:\n    a = 1\nexcept E:\n    raise\nfinally:\n    pass", "try:\n    a = 1\nexcept E as e:\n    raise",
]


def _trees():
    trees = []
    for source in SOURCES:
        tree = ast.parse(source)
        trees += [tree, tree.body[0], tree.body]
    return trees


def _dump(tree) -> str:
    """`ast.dump`, a list of statements as the body of a module (how the narrows were compared)."""
    return ast.dump(ast.Module(body=tree, type_ignores=[]) if type(tree) is list else tree)


def test_it_agrees_with_dump_on_every_pair():
    trees = _trees()
    for a, b in itertools.product(trees, repeat=2):
        if (type(a) is list) == (type(b) is list):
            assert same_dump(a, b) == (_dump(a) == _dump(b)), (_dump(a), _dump(b))


def test_positions_are_not_compared_and_missing_fields_read_as_dump_reads_them():
    a, b = ast.parse("x + 1").body[0], ast.parse("\n\n(  x   +   1)").body[0]
    assert same_dump(a, b)
    made = ast.Return()                     # (`value` never set: its class default, None)
    assert same_dump(made, ast.Return(value=None)) and not same_dump(made, ast.Return(value=ast.Constant(1)))
    bare = ast.Name(id="x")                  # (`ctx` never set: a required field missing)
    assert same_dump(bare, ast.Name(id="x")) and not same_dump(bare, ast.Name(id="x", ctx=ast.Load()))
    assert ast.dump(bare) != ast.dump(ast.Name(id="x", ctx=ast.Load()))


def test_random_changes_of_generated_functions_agree_with_dump():
    """The default rules' generated functions, each against copies with one node's field changed."""
    from baloot_spec.rules import module
    functions = []
    real = module.function_text
    module.function_text = lambda function, *keyed: functions.append(clone(function)) or real(function, *keyed)
    try:
        from baloot_spec.rules.compile import compile_variant
        from baloot_spec.rules.loader import resolve_variant
        compile_variant(resolve_variant("default"))
    finally:
        module.function_text = real
    rng = random.Random(126)
    changes = [lambda v: v, lambda v: None, lambda v: 1, lambda v: True, lambda v: 1.0, lambda v: "x",
               lambda v: [], lambda v: ast.Constant(value=v)]
    checked = 0
    for function in rng.sample(functions, min(60, len(functions))):
        assert same_dump(function, clone(function))
        for _ in range(10):
            changed = clone(function)
            node = rng.choice([n for n in ast.walk(changed) if n._fields])
            field = rng.choice(node._fields)
            value = getattr(node, field, None)
            setattr(node, field, rng.choice(changes)(value))
            assert same_dump(function, changed) == (ast.dump(function) == ast.dump(changed))
            checked += 1
    assert checked >= 300


def test_the_narrows_per_length_are_not_written_out(monkeypatch):
    """Specialising the trick phase compares its narrows per length without `ast.dump` (step 126)."""
    from baloot_spec.rules.compile import compile_variant
    from baloot_spec.rules.loader import resolve_variant
    compiler_rules = compile_variant(resolve_variant("default"))
    dumped = []
    real = ast.dump
    monkeypatch.setattr(ast, "dump", lambda node, *a, **k: dumped.append(type(node).__name__) or real(node, *a, **k))
    from baloot_spec.rules import compiled
    monkeypatch.setattr(compiled, "cached_phase", lambda *a, **k: None, raising=False)
    import baloot_spec.rules.specialize as specialize
    monkeypatch.setattr(specialize, "cached_phase", lambda *a, **k: None)
    monkeypatch.setattr(specialize, "store_phase_code", lambda *a, **k: None)
    compiler_rules.specialized("play", ("hokum", "H"))
    assert "Module" not in dumped
