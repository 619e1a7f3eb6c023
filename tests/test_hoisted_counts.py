"""rules/passes/hoisted_counts.py: a count of the items whose attribute equals a value, inside a
loop that leaves the list alone, read from one list of the attribute made at the first count.
Fixtures in the lowered shape (how `count(x.a == v for x in xs)` is written out), the rewritten
text checked, and both run on the same inputs: the same results, the same errors."""

import ast
import random
import textwrap
from types import SimpleNamespace

import pytest

from baloot_spec.rules import load_variant
from baloot_spec.rules.passes.hoisted_counts import hoisted_counts

FOUR = """
def f(S, v_cards):
    _t1 = []
    for _l2 in k_ranks:
        _t3 = 0
        for _l4 in v_cards:
            if not _l4.rank == _l2:
                continue
            _t3 += 1
        if not _t3 == 4:
            continue
        _t1.append(_l2)
    return _t1
"""

HOISTED = """
def f(S, v_cards):
    _t1 = []
    _cn1 = ...
    for _l2 in k_ranks:
        if _cn1 is ...:
            _cn1 = []
            for _l4 in v_cards:
                _cn1.append(_l4.rank)
        _t3 = _cn1.count(_l2)
        if not _t3 == 4:
            continue
        _t1.append(_l2)
    return _t1
"""


def _pass(source: str) -> str:
    return ast.unparse(ast.fix_missing_locations(hoisted_counts(ast.parse(textwrap.dedent(source)).body[0])))


def _run(source: str, ranks, cards):
    namespace = {"k_ranks": ranks}
    exec(compile(textwrap.dedent(source), "<test>", "exec"), namespace)
    try:
        return namespace["f"](None, cards)
    except Exception as exc:   # noqa: BLE001 (the same error, both ways)
        return type(exc), str(exc)


def test_the_count_in_a_loop_reads_one_list_made_at_the_first_count():
    assert _pass(FOUR) == ast.unparse(ast.parse(textwrap.dedent(HOISTED)))


def test_the_rewritten_function_gives_what_the_loop_gave():
    rng = random.Random(5)
    hoisted = _pass(FOUR)
    for _ in range(300):
        ranks = rng.sample("AKQJT987", rng.randint(0, 5))
        cards = [SimpleNamespace(rank=rng.choice("AKQJT")) for _ in range(rng.randint(0, 12))]
        if cards and rng.random() < 0.1:
            cards.insert(rng.randrange(len(cards)), SimpleNamespace(suit="S"))   # no rank: the same error
        assert _run(hoisted, ranks, cards) == _run(FOUR, ranks, cards)


def test_no_loop_that_reads_the_count_again_no_rewrite():
    alone = """
    def f(S, v_cards):
        _t3 = 0
        for _l4 in v_cards:
            if not _l4.rank == 'A':
                continue
            _t3 += 1
        return _t3
    """
    assert _pass(alone) == ast.unparse(ast.parse(textwrap.dedent(alone)))


@pytest.mark.parametrize("change", [
    ("        _t1.append(_l2)", "        v_cards = _t1"),                  # the list assigned in the loop
    ("        _t1.append(_l2)", "        v_cards.append(_l2)"),            # changed in place
    ("    for _l2 in k_ranks:", "    for v_cards in k_ranks:"),            # the loop's own variable
    ("    return _t1", "    return _l4"),                                 # the item read after its loop
    ("if not _l4.rank == _l2:", "if not _l4.rank == _l4:"),            # the value is the item
    ("if not _l4.rank == _l2:", "if not _l4.rank == _t3:"),            # the value is the count
    ("if not _l4.rank == _l2:", "if not _l4.rank != _l2:"),            # not an equality
    ("if not _l4.rank == _l2:", "if not _l4.rank == f(_l2):"),         # the value is not a name
    ("            _t3 += 1", "            _t3 += 2"),                   # not a count
])
def test_what_the_pass_leaves_alone(change):
    source = FOUR.replace(*change)
    assert source != FOUR
    assert _pass(source) == ast.unparse(ast.parse(textwrap.dedent(source)))


def test_two_counts_of_the_same_attribute_share_one_list():
    source = """
    def f(S, v_cards):
        _t1 = []
        for _l2 in k_ranks:
            _t3 = 0
            for _l4 in v_cards:
                if not _l4.rank == _l2:
                    continue
                _t3 += 1
            _t5 = 0
            for _l6 in v_cards:
                if not _l6.rank == 'A':
                    continue
                _t5 += 1
            _t1.append(_t3 + _t5)
        return _t1
    """
    text = _pass(source)
    assert text.count("_cn1 = ...") == 1 and text.count("if _cn1 is ...:") == 2 and "_cn2" not in text   # (each count
    # made where it stands, if not made yet: the first one might not have run)
    assert "_t3 = _cn1.count(_l2)" in text and "_t5 = _cn1.count('A')" in text
    for ranks in (["A", "K"], []):
        cards = [SimpleNamespace(rank=r) for r in "AAKQ"]
        assert _run(text, ranks, cards) == _run(source, ranks, cards)


def test_the_default_rules_count_a_hands_ranks_once():
    source = load_variant("default").python_source
    best = source.split("def f_best_projects(", 1)[1].split("\ndef ", 1)[0]
    assert "_cn1 = []" in best and "= _cn1.count(" in best


def test_a_list_that_changes_with_an_outer_loop_is_made_again_at_each_of_its_turns():
    source = """
    def f(S, v_hands):
        _t1 = []
        for _l7 in v_hands:
            for _l2 in k_ranks:
                _t3 = 0
                for _l4 in _l7:
                    if not _l4.rank == _l2:
                        continue
                    _t3 += 1
                _t1.append(_t3)
        return _t1
    """
    text = _pass(source)
    assert "    for _l7 in v_hands:\n        _cn1 = ...\n        for _l2 in k_ranks:" in text
    hands = [[SimpleNamespace(rank=r) for r in hand] for hand in ("AAK", "", "KKKQ", "A")]
    assert _run(text, ["A", "K"], hands) == _run(source, ["A", "K"], hands) == [2, 1, 0, 0, 0, 3, 1, 0]
