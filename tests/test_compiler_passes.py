"""The rules compiler's passes over generated `ast` (baloot_spec/rules/passes/, rules/template.py,
expr/astutil.py), each on small fixtures: an input written here, the output worked out by hand
from what the pass's docstring promises. The compiler gives them emitted `ast`, never text; the
tests parse their fixtures only to write them briefly."""

import ast
import textwrap

import pytest

from baloot_spec.expr.astutil import ComprehensionFinder, clone
from baloot_spec.rules.module import ModuleBuilder
from baloot_spec.rules.passes.cards import on_cards, reads_only_card
from baloot_spec.rules.passes.flow import following, next_names
from baloot_spec.rules.passes.guards import action_guard, any_guard
from baloot_spec.rules.passes.hoist import hoisted
from baloot_spec.rules.passes.lazy_maps import held_containers, lazy_maps, state_reads
from baloot_spec.rules.passes.settled import settle
from baloot_spec.rules.template import holes


def _e(text: str) -> ast.expr:
    return ast.parse(text, mode="eval").body


def _text(node) -> str:
    if isinstance(node, list):
        return "\n".join(ast.unparse(ast.fix_missing_locations(s)) for s in node)
    return ast.unparse(node)


LAZY = "(_h_led if _h_led is not ... else (_h_led := f_led(S)))"


# ---- cards ----------------------------------------------------------------------------------------
@pytest.mark.parametrize("test, only_card", [
    ("A.card.suit == S.trump", True),
    ("b_rank(A.card) > 3 and A.card in S.hand", True),
    ("A.card.suit == S.trump and A.belote", False),    # an annotation of the play
    ("A == S.x", False),                                # the play itself
    ("S.trump == 'H'", True),                           # reads nothing of the candidate
])
def test_reads_only_card(test, only_card):
    assert reads_only_card(_e(test)) is only_card


def test_on_cards_reads_the_card_as_the_candidate_and_leaves_its_input_alone():
    test = _e("A.card.suit == S.trump and b_rank(A.card) > 3")
    assert _text(on_cards(test)) == "A.suit == S.trump and b_rank(A) > 3"
    assert _text(test) == "A.card.suit == S.trump and b_rank(A.card) > 3"


# ---- hoist ----------------------------------------------------------------------------------------
def test_a_derived_value_is_lifted_out_of_the_candidates_test():
    statements, test = hoisted(_e(f"A.card.suit == {LAZY}.suit"))
    assert _text(statements) == "if _h_led is ...:\n    _h_led = f_led(S)"
    assert _text(test) == "A.card.suit == _h_led.suit"


def test_nothing_to_lift_gives_the_test_itself():
    test = _e("A.card.suit == S.trump")
    assert hoisted(test) == ([], test)


def test_a_lazy_fetch_reading_the_candidate_is_not_lifted():
    # (a derived value's body never reads A; a fetch written around A must stay in the loop)
    text = "(_h_x if _h_x is not ... else (_h_x := f_x(A)))"
    assert hoisted(_e(text))[0] == []


# ---- guards ---------------------------------------------------------------------------------------
@pytest.mark.parametrize("when, guard", [
    ("A.call == 'sun' and S.bid is None", "A.call == 'sun'"),
    ("S.bid is None and A.call in k_calls and b_len(A.items) > 0", "A.call in k_calls and b_len(A.items) > 0"),
    ("S.bid is None", None),                                  # nothing of the action alone
    ("A.call == S.call", None),                               # reads the state too
    ("A.x == 1 and False", "False"),                          # never applies
    ("True and A.x == 1", "A.x == 1"),                        # True tells nothing
    ("(_h_a := A.x) and A.y", "A.y"),                         # an assignment is no guard
])
def test_action_guard(when, guard):
    found = action_guard(_e(when))
    assert (None if found is None else _text(found)) == guard


def test_any_guard_needs_a_guard_for_every_rule_and_names_each_once():
    assert any_guard([_e("A.x == 1"), _e("S.y")]) is None
    assert any_guard([]) is None
    assert _text(any_guard([_e("A.x == 1 and S.y"), _e("A.x == 1"), _e("A.z and S.q")])) == "A.x == 1 or A.z"
    assert _text(any_guard([_e("A.x and False"), _e("False")])) == "False"


# ---- flow -----------------------------------------------------------------------------------------
def test_next_names_and_following():
    names = {"a", "b", "c"}
    assert next_names(_e("'b' if S.x else 'c'"), names) == {"b", "c"}
    assert next_names(_e("S.somewhere"), names) == names
    nexts = {"a": _e("'b'"), "b": _e("'c' if S.x else 'b'"), "c": _e("'c'")}
    assert following(nexts) == {"a": {"b", "c"}, "b": {"b", "c"}, "c": {"c"}}


# ---- lazy maps ------------------------------------------------------------------------------------
def test_state_reads_follow_rule_functions_and_refuse_other_uses_of_the_state():
    bodies = {"f_pts": _e("S.points[v_x] + S.bonus"), "f_odd": _e("b_len(S)")}
    assert state_reads(_e("f_pts(S, 1) * S.mult"), bodies) == {"points", "bonus", "mult"}
    assert state_reads(_e("f_odd(S)"), bodies) is None
    assert state_reads(_e("A.x + S.y"), bodies) is None
    assert state_reads(_e("A.x + S.y"), bodies, action=True) == {"y"}


def test_a_map_reading_stable_state_becomes_a_lazy_map_and_one_reading_unstable_state_does_not():
    builder = ModuleBuilder()
    values = _e("(_R({v_t: S.points[v_t] for v_t in k_teams}), _R({v_t: S.tricks for v_t in k_teams}))")
    out = lazy_maps(builder, "e.id", values, frozenset({"tricks"}))
    assert _text(out) == "(_LazyMap([v_t for v_t in k_teams], entry1, S, ('points',)), " \
                         "_R({v_t: S.tricks for v_t in k_teams}))"
    assert [fn.name for fn in builder.functions] == ["entry1"]
    assert "R = S.points[v_t]" in builder.source()
    # what the values may hold (IN_PLACE, engine/state.py): the eager map reads `tricks`
    assert held_containers(out, {}) == {"tricks"}
    assert held_containers(_e("(_LazyMap([v for v in k_teams], e, S, ('dealt',)),)"), {}) == {"dealt"}
    assert held_containers(_e("(b_len(S),)"), {}) == {"hands", "dealt", "trick", "tricks", "played"}


# ---- templates ------------------------------------------------------------------------------------
@pytest.mark.parametrize("text, found", [
    ("no holes", []),
    ("{a} and {b}", [(0, 3), (8, 11)]),
    ("{} {{x}} {y", [(4, 7)]),     # an empty hole is text; `{{x}}` holds the hole {x}
    ("x {a{b} c}", [(4, 7)]),
])
def test_holes(text, found):
    assert holes(text) == found


# ---- ast helpers ----------------------------------------------------------------------------------
def test_clone_is_deep_and_equal():
    node = _e("[f(x, [1, 2]) for x in S.xs if x]")
    copy = clone(node)
    assert ast.dump(copy) == ast.dump(node)
    assert not {id(n) for n in ast.walk(copy) if n._fields} & {id(n) for n in ast.walk(node) if n._fields}
    # (the markers, `Load()`, `Add()`, ...: no fields, never changed, shared as ast.parse shares them: step 126)
    assert all(a is b for a, b in zip(ast.walk(copy), ast.walk(node)) if not a._fields)


def test_comprehension_finder():
    finder = ComprehensionFinder()
    assert finder(_e("a + f([x for x in y])")) and not finder(_e("a + f(b)"))


def test_comprehension_finder_does_not_ask_the_markers():
    """`Load()`, `Add()`, ...: no fields, no comprehension: never looked at (step 126)."""
    finder = ComprehensionFinder()
    node = _e("a + f(b) < c and not d.e[g]")
    assert not finder(node)
    asked = [entry[0] for entry in finder._known.values()]
    assert len(asked) == sum(1 for n in ast.walk(node) if n._fields) and all(n._fields for n in asked)


# ---- settled lazy locals ---------------------------------------------------------------------------
def _settled(source: str) -> str:
    function = ast.parse(textwrap.dedent(source)).body[0]
    return ast.unparse(settle(function))


def _same(a: str, b: str) -> bool:
    return ast.dump(ast.parse(textwrap.dedent(a))) == ast.dump(ast.parse(textwrap.dedent(b)))


def test_a_first_read_fetches_and_a_later_read_is_the_local():
    settled = _settled(f"""
        def f(S):
            _h_led = ...
            a = {LAZY}
            b = {LAZY}
            return a + b
        """)
    assert _same(settled, """
        def f(S):
            a = (_h_led := f_led(S))
            b = _h_led
            return a + b
        """)   # (`_h_led = ...` is never seen once no read tests it: dropped)


def test_a_lowered_test_of_a_known_local_keeps_the_branch_that_runs():
    settled = _settled("""
        def f(S):
            _h_x = ...
            if _h_x is not ...:
                t = _h_x
            else:
                _h_x = g(S)
                t = _h_x
            if _h_x is ...:
                _h_x = g(S)
            return t
        """)
    assert _same(settled, """
        def f(S):
            _h_x = g(S)
            t = _h_x
            return t
        """)


@pytest.mark.parametrize("middle", [
    f"if S.a:\n        a = {LAZY}",                  # only one branch reads it
    f"for q in S.trick:\n        a = {LAZY}",        # a loop may run no time
    f"a = S.a and {LAZY}",                             # not read when S.a is false
    f"a = {LAZY} if S.a else 0",
    f"a = [{LAZY} for q in S.trick]",
    f"a = S.a < {LAZY} < 3",
])
def test_a_read_that_may_not_have_run_leaves_the_next_read_alone(middle):
    source = f"""
def f(S):
    _h_led = ...
    {middle}
    return {LAZY}
"""
    settled = _settled(source)
    assert settled.rstrip().endswith("return " + LAZY[1:-1])   # (still the lazy read: unparse drops the parentheses)


def test_a_reset_makes_the_local_unset_again_and_a_handler_knows_nothing():
    settled = _settled(f"""
        def f(S):
            _h_led = ...
            a = {LAZY}
            _h_led = ...
            try:
                b = {LAZY}
            except E:
                c = {LAZY}
            return {LAZY}
        """)
    assert _same(settled, f"""
        def f(S):
            _h_led = ...
            a = (_h_led := f_led(S))
            _h_led = ...
            try:
                b = (_h_led := f_led(S))
            except E:
                c = {LAZY}
            return {LAZY}
        """)


def test_a_lazy_local_never_read_keeps_its_value_and_loses_its_name_and_one_still_tested_keeps_its_start():
    settled = _settled(f"""
        def f(S):
            _h_led = ...
            _h_w = ...
            _h_t = ...
            a = {LAZY}.seat
            b = {LAZY.replace('led', 'w')}
            c = S.x and {LAZY.replace('led', 't')}
            return a + {LAZY.replace('led', 't')}
        """)
    assert _same(settled, f"""
        def f(S):
            _h_t = ...
            a = f_led(S).seat
            b = f_w(S)
            c = S.x and (_h_t := f_t(S))
            return a + {LAZY.replace('led', 't')}
        """)


def test_after_a_try_whose_handlers_all_raise_the_body_s_reads_are_known():
    settled = _settled(f"""
        def f(S):
            _h_led = ...
            try:
                b = {LAZY}
            except E:
                raise
            return {LAZY}
        """)
    assert settled.rstrip().endswith("return _h_led")
