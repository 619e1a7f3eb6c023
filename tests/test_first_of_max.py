"""expr/first_of_max.py: `first(x for x in xs if key(x) == m)`, where derived value `m` is
`max(key(y) for y in xs)`, worked out in one pass; the tree match that decides it, the helper,
and the default rules' project comparison (project_winner_team) against its definition."""

import ast
import random
from types import SimpleNamespace

import pytest

from baloot_spec.expr import tree as t
from baloot_spec.expr.builtins import Rec
from baloot_spec.expr.first_of_max import first_of_max, greatest_key_item, same
from baloot_spec.expr.types import ANY, list_of
from baloot_spec.rules import load_variant

D, E, F = t.Binder(1, "d"), t.Binder(1, "e"), t.Binder(2, "f")
XS, YS, M = t.Ref("derived", "xs"), t.Ref("derived", "ys"), t.Ref("derived", "m")


def _key(binder, func="key"):
    return t.Call(func, (t.Attr(t.Ref("local", binder.name, binder), "project"),), kind="rule")


def _first(cond=None, elem=None, items=XS):
    cond = cond if cond is not None else t.Compare("==", _key(D), M)
    return t.Aggregate("first", elem if elem is not None else t.Ref("local", "d", D), D, items, cond)


def _emitter(m_body):
    scope = SimpleNamespace(derived={"m": (m_body, None)}, literal_derived={})
    return SimpleNamespace(scope=scope, emit=lambda node: ast.Name(id=type(node).__name__, ctx=ast.Load()))


MAX = t.Aggregate("max", _key(E), E, XS, None, type=list_of(ANY))


def test_the_first_item_of_the_greatest_key_is_one_pass():
    form = first_of_max(_emitter(MAX), _first())
    assert ast.unparse(form) == "_first_of_max(Aggregate, Ref)"   # (the keys' list, then the items)
    assert first_of_max(_emitter(MAX), _first(t.Compare("==", M, _key(D)))) is not None   # (either side)


@pytest.mark.parametrize("first, m_body", [
    (_first(items=YS), MAX),                                                  # another list
    (_first(t.Compare("==", _key(D, "other"), M)), MAX),                      # another key
    (_first(t.Compare("!=", _key(D), M)), MAX),                               # not an equality
    (_first(elem=t.Attr(t.Ref("local", "d", D), "seat")), MAX),                # not the item itself
    (_first(t.Compare("==", _key(F), M)), MAX),                               # the key of an outer loop's item
    (_first(), t.Aggregate("min", _key(E), E, XS, None, type=ANY)),           # the least key
    (_first(), t.Aggregate("max", _key(E), E, XS, t.Const(True), type=ANY)),  # a max with a condition
])
def test_what_is_not_the_pattern_is_left_to_the_loop(first, m_body):
    assert first_of_max(_emitter(m_body), first) is None


def test_trees_match_with_their_loop_variables_matched():
    inner = t.Aggregate("count", t.Ref("local", "a", t.Binder(3, "a")), t.Binder(3, "a"), XS)
    assert same(_key(D), _key(E), {D: E})
    assert not same(_key(D), _key(E), {})
    assert not same(_key(D), _key(E), {D: F})
    a = t.Aggregate("list", t.Ref("local", "a", inner.var), inner.var, XS)
    b_var = t.Binder(7, "z")
    assert same(a, t.Aggregate("list", t.Ref("local", "z", b_var), b_var, XS), {})
    assert not same(a, t.Aggregate("list", t.Ref("local", "z", b_var), b_var, YS), {})


def test_the_helper_is_first_where_the_key_is_the_greatest():
    rng = random.Random(3)
    for _ in range(500):
        keys = [[rng.randint(0, 2), rng.randint(0, 1)] for _ in range(rng.randint(0, 5))]
        items = [object() for _ in keys]
        best = max(keys) if keys else None
        assert greatest_key_item(keys, items) is next((x for x, k in zip(items, keys) if k == best), None)


def test_the_default_rules_compare_the_projects_in_one_pass_with_the_definitions_answer():
    rules = load_variant("default")
    source = rules.python_source
    body = source.split("def f_project_winner_team(", 1)[1].split("\ndef ", 1)[0]
    assert "_first_of_max(" in body and "f_best_project_key" not in body
    fn = rules.functions
    rng = random.Random(11)
    names = ["sira", "50", "100", "400"]
    seen = set()
    for _ in range(300):
        projects = Rec({s: [Rec(kind=rng.choice(["sequence", "four"]), name=rng.choice(names), value=rng.choice([4, 10, 20]),
                                key=rng.randint(1, 8), top=None, cards=[]) for _ in range(rng.randint(0, 2))]
                        for s in "NESW"})
        declared = [Rec(seat=s, name=p["name"]) for s in rng.sample("NESW", 4) for p in projects[s] if rng.random() < 0.7]
        state = SimpleNamespace(projects=projects, declared=declared, mode="sun", trump=None)
        expected = None
        if fn["declared_projects"](state):
            best = fn["best_project_key"](state)
            winner = next(d for d in fn["declared_projects"](state) if fn["project_key"](state, d) == best)
            expected = {"N": "NS", "S": "NS", "E": "EW", "W": "EW"}[winner["seat"]]
        assert fn["project_winner_team"](state) == expected
        seen.add(expected)
    assert seen == {None, "NS", "EW"}
