"""Code specialised on the length of the current trick (expr/lengths.py, rules/compile.py
`specialized_code`, engine/hand.py `legal`): `len(trick)` a constant that folds, loops over the
trick written out item by item, `index` of a written-out list without a call; the same values
and the same failures as the code for any length, and the engine calling the narrow made for
the length it is at."""

import ast
import dis
import itertools
import random
from dataclasses import replace

import pytest

from baloot_spec.cards import Table
from baloot_spec.engine.hand import Hand
from baloot_spec.engine.random_play import play_random_hand, random_deck
from baloot_spec.engine.state import CURRENT_TRICK
from baloot_spec.expr.builtins import Rec, make_builtins
from baloot_spec.expr.emit import emit
from baloot_spec.expr.lengths import written_index
from baloot_spec.expr.resolve import check
from baloot_spec.expr.scope import Scope
from baloot_spec.rules import load_variant
from baloot_spec.rules.compiled import SAFE_PY_BUILTINS
from baloot_spec.rules.pyast import lazy_locals

DERIVED = {"ranks": "[q * 3 % 7 for q in trick]", "top": "max(r for r in ranks)", "lead": "trick[0] if len(trick) > 0 else none"}


def _scope() -> Scope:
    scope = Scope(state=frozenset({CURRENT_TRICK, "y"}), builtins={"len": (1, 1), "index": (2, 2)},
                  functions={name: 0 for name in DERIVED})
    for name, body in DERIVED.items():
        scope.derived[name] = (check(body, scope), scope)
    return scope


def _function(name: str, body: ast.expr, namespace: dict):
    """`def name(S): return body` (the body's lazy locals started), compiled into `namespace`."""
    fn = ast.FunctionDef(name=name, args=ast.arguments(posonlyargs=[], args=[ast.arg(arg="S")], vararg=None,
                                                       kwonlyargs=[], kw_defaults=[], kwarg=None, defaults=[]),
                         body=[*lazy_locals(body), ast.Return(value=body)], decorator_list=[], returns=None)
    module = ast.fix_missing_locations(ast.Module(body=[fn], type_ignores=[]))
    exec(compile(module, "<test>", "exec"), namespace)   # (the test's own generated code)
    return namespace[name]


def _compiled(text: str, length: int | None):
    """g(S) for `text`: for any length (the derived values called as f_name(S)), or compiled
    for the trick's `length`; and its emitted `ast`."""
    scope = _scope()
    namespace = {"__builtins__": SAFE_PY_BUILTINS, **make_builtins(Table(["N", "W", "S", "E"],
                                                                         {"NS": ["N", "S"], "EW": ["E", "W"]}))}
    for name, (tree, callee) in scope.derived.items():
        _function(f"f_{name}", emit(tree, callee), namespace)
    lengths = None if length is None else {CURRENT_TRICK: length}
    body = emit(check(text, scope), scope, lengths=lengths)
    return _function("g", body, namespace), body


def _outcome(g, trick, y):
    try:
        return g(Rec(trick=trick, y=y))
    except Exception as exc:   # the same failure
        return ("raised", type(exc).__name__)


EXPRESSIONS = [
    "len(trick) > 0 and trick[0] > y",
    "[q + 1 for q in trick]",
    "max(q * 2 for q in trick)",
    "min(q for q in trick)",
    "max(q for q in trick)",
    "count(q > y for q in trick)",
    "count(q for q in trick if q > 1)",
    "first(q for q in trick if q > y)",
    "first(q for q in trick)",
    "any(q == y for q in trick)",
    "all(q != y for q in trick)",
    "any(q > 1 for q in trick if q < 5)",
    "sum(q for q in trick)",
    "trick[index(ranks, top)]",
    "none if len(trick) == 0 else trick[index(ranks, top)]",
    "lead",
]


@pytest.mark.parametrize("text", EXPRESSIONS)
@pytest.mark.parametrize("length", [0, 1, 2, 3, 4])
def test_code_for_a_length_gives_what_the_code_for_any_length_gives(text, length):
    general, _ = _compiled(text, None)
    special, body = _compiled(text, length)
    assert "b_len" not in ast.unparse(body)
    assert not any(isinstance(n, (ast.ListComp, ast.GeneratorExp)) for n in ast.walk(body)), ast.unparse(body)
    rng = random.Random(length)
    for _ in range(40):
        trick = [rng.choice([0, 1, 2, 3, 4, 5, 6]) for _ in range(length)]
        if rng.random() < 0.1 and trick:
            trick[rng.randrange(length)] = None   # (a comparison that fails fails in both)
        y = rng.choice([0, 2, 4])
        assert _outcome(special, trick, y) == _outcome(general, trick, y), (ast.unparse(body), trick, y)


def test_the_length_folds_tests_and_writes_the_loop_out():
    _, body = _compiled("len(trick) > 0 and trick[0] > y", 0)
    assert ast.unparse(body) == "False"
    _, body = _compiled("[q + 1 for q in trick]", 3)
    assert ast.unparse(body) == "[S.trick[0] + 1, S.trick[1] + 1, S.trick[2] + 1]"
    _, body = _compiled("max(q * 2 for q in trick)", 2)
    assert ast.unparse(body) == "max(S.trick[0] * 2, S.trick[1] * 2)"
    _, body = _compiled("max(q for q in trick)", 2)   # (the list itself, known not empty)
    assert ast.unparse(body) == "max(S.trick)"
    _, body = _compiled("max(q for q in trick)", 0)
    assert ast.unparse(body) == "None"
    _, body = _compiled("trick[index(ranks, top)]", 4)   # the max of a list is in it: list.index, no call of b_index
    assert "b_index" not in ast.unparse(body) and ".index(" in ast.unparse(body)


LIST = "(_h_x if _h_x is not ... else (_h_x := [S[0], S[1], S[2]]))"


@pytest.mark.parametrize("items, value", [([3, 5, 3], 3), ([3, 5, 3], 5), ([3, 5, 3], 4), ([1, 1, 1], 1)])
def test_index_of_a_written_out_list_of_plain_items_is_a_chain_of_tests(items, value):
    chain = written_index(ast.parse(LIST, mode="eval").body, ast.Name(id="v", ctx=ast.Load()), "int")
    assert chain is not None and "index" not in ast.unparse(chain)
    found = _function("g", chain, {"__builtins__": {}, "v": value})
    assert found(items) == (items.index(value) if value in items else -1)


@pytest.mark.parametrize("kind, value", [("card", "v"), ("int", "f(v)"), (None, "v")])
def test_index_is_kept_as_a_call_for_items_of_other_types_or_a_value_not_read_twice(kind, value):
    assert written_index(ast.parse(LIST, mode="eval").body, ast.parse(value, mode="eval").body, kind) is None


def test_a_specialised_trick_phase_has_a_narrow_per_length_and_a_winner_for_a_full_trick():
    rules = load_variant()
    generic = rules.phases["play"]
    assert len(generic.narrows) == len(rules.table.seats) and set(generic.narrows) == {generic.narrow}
    phase = rules.specialized("play", ("sun", None))
    assert len(phase.narrows) == len(rules.table.seats) and phase.narrows[0] is not phase.narrows[1]
    assert phase.narrows[1] is phase.narrows[2] is phase.narrows[3]   # (following suit in a Sun: one function)
    hokum = rules.specialized("play", ("hokum", "H"))
    assert len(set(hokum.narrows)) == len(hokum.narrows)   # (who is winning: known in a different way at each length)
    assert "trick" not in phase.narrows[0].__code__.co_names   # (nothing to follow when leading)
    assert "b_len" not in phase.narrows[1].__code__.co_names
    winner = phase.winner.__code__
    assert not {"b_index", "b_len"} & set(winner.co_names), winner.co_names
    assert not any(op.opname == "FOR_ITER" for op in dis.get_instructions(winner))   # (written out)


def test_the_engine_narrows_with_the_function_made_for_the_current_trick_s_length():
    rules = load_variant()
    calls = []
    specializer = rules.specializer

    def spy(length, narrow):
        def narrowed(S, C):
            calls.append((length, len(S.trick)))
            return narrow(S, C)
        return narrowed

    def spied(phase_name, values):
        made = specializer(phase_name, values)
        return replace(made, narrows=tuple(spy(k, f) for k, f in enumerate(made.narrows))) if made.narrows else made
    rules = replace(rules, specializer=spied, _specialized={})   # (a copy: the loaded rules are shared)
    rng = random.Random(7)
    for hand_number in range(10):
        play_random_hand(rules, rng, rules.table.seats[hand_number % 4])
    assert calls and all(made == at for made, at in calls)
    assert {made for made, _ in calls} == set(range(len(rules.table.seats)))


def test_a_specialised_trick_phase_s_narrow_for_any_length_is_the_one_made_for_the_length():
    # (no whole narrow testing the length is compiled: one picks the narrow of the trick's length,
    # and past the lengths it says it failed, None, as a failing narrow does)
    rules = load_variant()
    checked = set()
    rng = random.Random(11)
    for hand_number in range(6):
        hand = Hand(rules, rules.table.seats[hand_number % 4], {"deck": random_deck(rules, rng)})
        while not hand.is_over():
            S = hand.state
            phase = hand._now[0]
            if phase.kind == "tricks" and phase.narrows[0] is not phase.narrow:
                cards = list(S.hands[hand.turn()])
                assert phase.narrow(S, list(cards)) == phase.narrows[len(S.trick)](S, list(cards))
                checked.add(len(S.trick))
                if S.trick:   # (a trick as long as the table: no narrow is made for it)
                    now = S.trick
                    S.trick = [now[0]] * len(rules.table.seats)
                    assert phase.narrow(S, list(cards)) is None
                    S.trick = now
            hand.play_legal(rng.randrange(len(hand.legal())))
    assert checked == set(range(len(rules.table.seats)))


def _lazy_list(count: int) -> ast.expr:
    return ast.parse(f"(_h_x if _h_x is not ... else (_h_x := [{', '.join(f'S[{i}]' for i in range(count))}]))",
                     mode="eval").body


@pytest.mark.parametrize("kind", ["max", "min"])
@pytest.mark.parametrize("lazy", [False, True])
@pytest.mark.parametrize("count", [2, 3, 4, 6])
def test_the_position_of_the_extreme_of_a_written_out_list_is_a_chain_of_comparisons(kind, lazy, count):
    """index(xs, max(xs)) of plain items: the first greatest (least) item's position, found by
    comparisons alone (no max, no list.index), for every list of 0..2 of that length; a list
    that cannot be compared raises TypeError as max does (tools/BENCHMARKS.md, step 108)."""
    value = f"{kind}(_h_x)"
    if lazy:
        value = f"(_h_v if _h_v is not ... else (_h_v := {value}))"
    chain = written_index(_lazy_list(count), ast.parse(value, mode="eval").body, "int")
    text = ast.unparse(chain)
    assert "index" not in text and kind not in text, text
    found = _function("g", chain, {"__builtins__": {}})
    extreme = max if kind == "max" else min
    for items in itertools.product(range(3), repeat=count):
        items = list(items)
        assert found(items) == items.index(extreme(items)), (text, items)
    for at in range(count):
        with pytest.raises(TypeError):
            found([1] * at + [None] + [2] * (count - at - 1))


@pytest.mark.parametrize("count, kind", [(1, "int"), (7, "int"), (3, "card"), (3, None)])
def test_the_extreme_s_position_stays_list_index_for_one_item_many_items_or_items_not_plain(count, kind):
    """One item: the list must still be built (it may fail), and no comparison would build it."""
    chain = written_index(_lazy_list(count), ast.parse("max(_h_x)", mode="eval").body, kind)
    assert chain is not None and ".index(max(_h_x))" in ast.unparse(chain)


def test_the_trick_s_winner_compares_the_ranks_without_max_or_index():
    for contract in (("sun", None), ("hokum", "H")):
        winner = load_variant().specialized("play", contract).winner.__code__
        assert not {"max", "index"} & set(winner.co_names), winner.co_names
