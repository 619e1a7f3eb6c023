"""The rule-expression language: what it computes, and how it refuses bad or hostile text."""

import copy
import pickle

import pytest

from baloot_spec.errors import RulesError
from baloot_spec.expr.builtins import Rec, make_builtins
from baloot_spec.expr.compiler import Scope, to_python
from baloot_spec.rules.compiled import SAFE_PY_BUILTINS


def evaluate(text, **state):
    """Compile one expression over the names given and run it (what the rules compiler does)."""
    from baloot_spec.cards import Table
    scope = Scope(state=frozenset(state), builtins={"len": (1, 1), "round_to": (3, 3), "index": (2, 2)},
                  params={"first_lead": "buyer"}, consts=frozenset({"order"}),
                  attributes=frozenset({"suit", "rank", "a", "b"}))
    source = to_python(text, scope)
    namespace = {"__builtins__": SAFE_PY_BUILTINS, "_R": Rec, "k_order": ["A", "T", "K"],
                 **make_builtins(Table(["N", "W", "S", "E"], {"NS": ["N", "S"], "EW": ["E", "W"]}))}
    exec(compile(f"def f(S):\n    return {source}\n", "<test>", "exec"), namespace)
    return namespace["f"](Rec(state))


@pytest.mark.parametrize("text, value", [
    ("7 // 2", 3), ("7 % 2", 1), ("2 + 3 * 4", 14), ("-3 + 10", 7), ("(2 + 3) * 4", 20),
    ("1 if x > 2 else 0", 1), ("x in [1, 3]", True), ("x not in [1, 3]", False),
    ("not x == 3 and true", False), ("x == 3 or false", True),
    ("round_to(65, 10, 'down')", 60), ("round_to(65, 10, 'up')", 70), ("round_to(64, 10, 'up')", 60),
    ("round_to(66, 10, 'down')", 70), ("round_to(55, 10, 'down') // 10", 5),
    ("count(n > 1 for n in xs)", 2), ("sum(n for n in xs if n != 2)", 4), ("any(n == 2 for n in xs)", True),
    ("all(n > 0 for n in xs)", True), ("max(n for n in xs)", 3), ("min(n for n in xs if n > 5)", None),
    ("first(n for n in xs if n > 1)", 2), ("[n * 2 for n in xs if n > 1]", [4, 6]),
    ("{a: 1, b: x}.b", 3), ("map(n * n for n in xs)[3]", 9), ("index(const.order, 'K')", 2),
    ("param.first_lead == 'buyer'", True), ("len(xs) - 1", 2), ("'sun' if none == none else 'x'", "sun"),
    # aggregates: filters, empty lists, and any/all stop at the item that decides (10 // 0 after it)
    ("any(n > 5 for n in xs)", False), ("any(n == 2 for n in xs if n > 1)", True), ("all(n > 1 for n in xs)", False),
    ("all(n > 5 for n in xs if n > 5)", True), ("count(n > 1 for n in xs if n != 3)", 1), ("count(n > 5 for n in xs)", 0),
    ("max(n for n in xs if n < 3)", 2), ("sum(n for n in xs if n > 5)", 0),
    # max/min/sum of the items themselves read the list directly: same values, empty included
    ("min(n for n in xs)", 1), ("sum(n for n in xs)", 6), ("max(n for n in [])", None),
    ("min(n for n in [])", None), ("sum(n for n in [])", 0), ("max(n for n in [x, 7, x])", 7),
    ("any(10 // (2 - n) > 100 or n == 1 for n in xs)", True), ("all(10 // (2 - n) > 0 and n < 1 for n in xs)", False),
])
def test_expressions_compute_what_they_say(text, value):
    assert evaluate(text, x=3, xs=[1, 2, 3]) == value


@pytest.mark.parametrize("text", ["max(n for n in x)", "min(n for n in x)"])
def test_max_min_of_what_is_no_list_is_still_an_error(text):
    # (the compiler writes `max([*xs] or [None])` for speed: an empty list gives none, and a
    # value that cannot be iterated must still fail, as `max(xs, default=None)` did)
    with pytest.raises(TypeError):
        evaluate(text, x=3)


def test_an_aggregate_over_what_is_known_to_be_no_list_is_refused_when_the_rules_load():
    with pytest.raises(RulesError, match="goes over a none, which has no items"):
        evaluate("max(n for n in none)", x=3)


def test_max_of_a_map_reads_its_keys():
    assert evaluate("max(t for t in m)", m=Rec({"EW": 1, "NS": 0})) == "NS"
    assert evaluate("min(t for t in m)", m=Rec({})) is None


@pytest.mark.parametrize("text, message, column", [
    ("x +", "syntax error", 4),
    ("x == led_sut", "unknown name 'led_sut'", 6),
    ("param.no_such_knob", "unknown knob 'param.no_such_knob'", 7),
    ("const.nothing", "unknown constant", 7),
    ("x.colour", "unknown attribute 'colour'", 3),
    ("len(x, x)", "takes 1 argument(s), given 2", 1),
    ("foo(x)", "unknown function 'foo'", 1),
    ("count(x)", "is an aggregate", 1),
    ("max(x for x in xs)", "loop variable 'x' hides a rule name", 11),
])
def test_bad_expressions_are_located_errors(text, message, column):
    with pytest.raises(RulesError) as info:
        evaluate(text, x=1)
    error = info.value
    assert message in error.message
    assert error.location.column == column
    assert error.caret_col == column - 1
    assert "^" in error.render()


@pytest.mark.parametrize("hostile", [
    "__import__('os').system('true')", "x.__class__", "().__class__.__bases__", "exec('1')",
    "open('/etc/passwd')", "x; import os", "lambda: 1", "x[0:1]", "`x`",
])
def test_hostile_text_can_only_fail_to_load(hostile):
    with pytest.raises(RulesError):
        evaluate(hostile, x=[1])


def test_a_record_reads_fields_as_attributes_and_keeps_the_dict_methods():
    record = Rec(seat="N", items=3, project=Rec(value=20))
    assert record.seat == "N" and record.project.value == 20
    assert record["items"] == 3 and list(record.items()) == [("seat", "N"), ("items", 3), ("project", {"value": 20})]
    with pytest.raises(AttributeError, match="missing"):
        record.missing
    assert not hasattr(record, "missing") and getattr(record, "missing", 7) == 7
    for twin in (pickle.loads(pickle.dumps(record)), copy.deepcopy(record), copy.copy(record)):
        assert twin == record and type(twin) is Rec and twin.project.value == 20
