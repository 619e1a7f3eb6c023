"""A state field read again in a generated function that stores into the state, read once
(rules/passes/written_reads.py): a store keeps the field's local up to date; which reads keep a
local, which use it, what is forgotten, the functions left as they are, and that every function
computes what it did (values, the state it leaves, the order of its reads, stores and
evaluations, failures, and the rule a fused effect names)."""

from __future__ import annotations

import ast
import re
import textwrap

import pytest

from baloot_spec.errors import BalootError, RuleRuntimeError
from baloot_spec.rules import load_variant, module
from baloot_spec.rules.fuse import fused_effects
from baloot_spec.rules.module import ModuleBuilder
from baloot_spec.rules.passes.rule_lines import rule_at
from baloot_spec.rules.passes.written_reads import COMPUTED, written_reads

from logged_runs import run_logged


def _function(source: str) -> ast.FunctionDef:
    return ast.parse(textwrap.dedent(source)).body[0]


def _text(source: str) -> str:
    return ast.unparse(ast.fix_missing_locations(written_reads(_function(source))))


class _State:
    """A state whose every field read (`S.x`) and store (`S.x=value`) is logged in the run's
    log; a field set to "missing" is not there (AttributeError); `hand` is computed from `hands`
    and `actor`, as the engine's property is."""

    def __init__(self, log, **fields):
        object.__setattr__(self, "_log", log)
        object.__setattr__(self, "_fields", dict(fields))

    def __getattr__(self, field):
        self._log.append(f"S.{field}")
        if field == "hand":
            return self._fields["hands"].get(self._fields["actor"], [])
        value = self._fields.get(field, "missing")
        if value == "missing":
            raise AttributeError(field)
        return value

    def __setattr__(self, field, value):
        self._log.append(f"S.{field}={value!r}")
        self._fields[field] = value


def _run(function: ast.FunctionDef, fields: dict, *args):
    """("value", result, state, log) or ("raised", type, args, state, log): `f(S, *args)`, S a
    _State; `ev(tag, value)` logs `tag` (and raises for "fail"); `f_pure(S)` reads S.a."""
    log = []
    state = _State(log, **fields)
    result = run_logged(function, (state, *args), log=log, f_pure=lambda S: ("pure", S.a), other=lambda S: S)
    return (*result[:-1], dict(state._fields), result[-1])


def _fewer_reads(original: list, rewritten: list) -> bool:
    """Whether `rewritten` is `original` without some state reads, each of a field read or
    stored before it (a computed field: since the last store; no read added, none moved, every
    store and evaluation kept)."""
    seen, k = set(), 0
    for entry in original:
        field = entry.split("=")[0] if entry.startswith("S.") else None
        if k < len(rewritten) and rewritten[k] == entry:
            k += 1
            if field:
                if "=" in entry:   # (a store: what the state computes from its fields is read again)
                    seen.difference_update(f"S.{name}" for name in COMPUTED)
                seen.add(field)
        elif not (field and "=" not in entry and field in seen):
            return False
    return k == len(rewritten)


def _same(source: str, fields: dict, *args) -> list:
    original = _run(_function(source), fields, *args)
    rewritten = _run(written_reads(_function(source)), fields, *args)
    assert rewritten[:-1] == original[:-1]
    assert _fewer_reads(original[-1], rewritten[-1]), (original[-1], rewritten[-1])
    return rewritten[-1]


# A field read after its own store in the same function, the store in the same statement as reads.
READ_AFTER_WRITE = """
def f(S):
    S.a, S.b = (ev('x', S.a) + 1, S.b)
    return (S.a, S.b, S.a + ev('y', S.c))
"""

# A store in one branch of an `if` only, to a field read before it (its local updated there).
ONE_BRANCH = """
def f(S):
    x = S.b
    if ev('t', S.a):
        S.b, = (ev('v', S.b + 1),)
    return (S.b, x, S.b)
"""

# A store in one branch to a field not read before: unknown after the `if`, read again.
ONE_BRANCH_NEW = """
def f(S):
    if ev('t', S.a):
        S.b, = (2,)
    return (S.b, S.b)
"""

# A later element of the stored display reads the field: forgotten, read again after.
LATER_ELEMENT = """
def f(S):
    x = S.a
    S.a, S.b = (S.a + 1, S.a * 10)
    return (x, S.a, S.a, S.b)
"""

# A derived value (a rule function given S) read after a store sees the stored value.
DERIVED = """
def f(S):
    S.a, = (ev('v', S.a + 1),)
    return (f_pure(S), S.a, f_pure(S))
"""

# A try may stop between a local's update and the store: what it stores is forgotten after it.
TRY = """
def f(S):
    x = S.a
    try:
        S.a, S.b = (7, ev('t', S.c))
    except KeyError:
        pass
    return (S.a, x, S.a)
"""

# A loop's body stores: every pass reads the field afresh, and after the loop too.
LOOP = """
def f(S):
    t = S.a
    for x in S.items:
        S.a, = (S.a + x,)
        t = t + S.a
    return (S.a, t, S.a)
"""

# The engine's computed field follows the fields it reads: read again after any store.
COMPUTED_FIELD = """
def f(S):
    h = S.hand
    S.actor, = (ev('v', 'E'),)
    return (h, S.hand, S.hand)
"""

# The bidding's shape: tests of fields between rules that set some of them.
EFFECTS = """
def f(S, A=None):
    if S.stage == 'chance':
        S.pos, S.done = (S.pos + 1, S.pos + 1 >= ev('n', S.need))
    if S.stage == 'first' and (not S.done):
        S.pos, = (S.pos + 1,)
    if ((S.round == 1 and S.stage == 'first') and (not S.done)) and S.bid == 'sun':
        S.stage, S.pos, S.done = ('chance', 1, ev('d', S.need) == 1)
    if ((S.round == 1 and S.stage == 'first') and (not S.done)) and S.pos > 4:
        S.round, S.pos = (2, 1)
    if (S.round == 2 and (not S.done)) and S.pos > 4:
        S.done, S.thrown_in, S.round = (True, S.bid == None, 2)
    return (S.stage, S.round, S.pos, S.done)
"""

_BASE = {"a": 1, "b": 2, "c": 3, "items": [1, 2, 3], "hands": {"N": [1], "E": [2, 3]}, "actor": "N",
         "stage": "first", "pos": 1, "done": False, "round": 1, "bid": None, "need": 1}
_FIELDS = [
    _BASE,
    {**_BASE, "a": 0},
    {**_BASE, "c": "fail"},
    {**_BASE, "a": "fail"},
    {**_BASE, "b": "missing"},
    {**_BASE, "c": "missing"},
    {**_BASE, "items": []},
    {**_BASE, "items": "missing"},
    {**_BASE, "actor": "E"},
    {**_BASE, "stage": "chance", "pos": 3, "need": 4},
    {**_BASE, "stage": "chance", "pos": 3, "need": "fail"},
    {**_BASE, "pos": 5},
    {**_BASE, "pos": 5, "bid": "sun"},
    {**_BASE, "bid": "sun", "need": 1},
    {**_BASE, "round": 2, "pos": 4},
    {**_BASE, "round": 2, "pos": 5},
    {**_BASE, "round": "missing"},
    {**_BASE, "done": "missing"},
]


@pytest.mark.parametrize("source", [READ_AFTER_WRITE, ONE_BRANCH, ONE_BRANCH_NEW, LATER_ELEMENT, DERIVED, TRY, LOOP,
                                    COMPUTED_FIELD, EFFECTS])
@pytest.mark.parametrize("fields", _FIELDS)
def test_the_same_values_state_and_failures_with_fewer_reads(source, fields):
    original = _run(_function(source), fields)
    assert "positional argument" not in str(original[2:3])   # (the shape is called as it should be)
    _same(source, fields)


def test_a_field_read_after_its_own_store_reads_the_local():
    text = _text(READ_AFTER_WRITE)
    assert "S.a, S.b = ((_sw1 := (ev('x', S.a) + 1)), (_sw2 := S.b))" in text
    assert "return (_sw1, _sw2, _sw1 + ev('y', S.c))" in text
    assert _same(READ_AFTER_WRITE, _BASE) == ["S.a", "x", "S.b", "S.a=2", "S.b=2", "S.c", "y"]


def test_a_store_in_one_branch_updates_the_local_the_other_path_keeps():
    text = _text(ONE_BRANCH)
    assert "x = (_sw1 := S.b)" in text and "S.b, = ((_sw1 := ev('v', _sw1 + 1)),)" in text
    assert "return (_sw1, x, _sw1)" in text
    for a in (0, 1):
        _same(ONE_BRANCH, {**_BASE, "a": a})


def test_a_field_a_branch_starts_is_not_known_after_it():
    assert _text(ONE_BRANCH_NEW).endswith("return ((_sw1 := S.b), _sw1)")


def test_a_store_a_later_element_reads_around_forgets_the_field():
    text = _text(LATER_ELEMENT)
    assert "S.a, S.b = (_sw1 + 1, (_sw2 := (_sw1 * 10)))" in text   # (a's store binds no local)
    assert "return (x, (_sw3 := S.a), _sw3, _sw2)" in text


def test_a_derived_value_after_a_store_reads_the_stored_state():
    text = _text(DERIVED)
    assert "return (f_pure(S), _sw1, f_pure(S))" in text
    assert _run(written_reads(_function(DERIVED)), _BASE)[1] == (("pure", 2), 2, ("pure", 2))


def test_what_a_try_stores_is_read_again_after_it():
    text = _text(TRY)
    assert "x = S.a" in text and "return ((_sw1 := S.a), x, _sw1)" in text
    assert _run(written_reads(_function(TRY)), {**_BASE, "c": "fail"})[1] == (1, 1, 1)


def test_what_a_loop_stores_is_read_again_in_each_pass_and_after_it():
    text = _text(LOOP)
    assert "S.a, = ((_sw1 := (S.a + x)),)" in text and "t = t + _sw1" in text and "t = S.a" in text
    assert text.endswith("return ((_sw2 := S.a), t, _sw2)")


def test_the_computed_field_is_read_again_after_a_store():
    assert _text(COMPUTED_FIELD).endswith("h = S.hand\n    S.actor, = (ev('v', 'E'),)\n    return (h, (_sw1 := S.hand), _sw1)")
    assert _run(written_reads(_function(COMPUTED_FIELD)), _BASE)[1] == ([1], [2, 3], [2, 3])


def test_the_bidding_shape_tests_each_field_once_between_its_stores():
    text = _text(EFFECTS)
    assert text.startswith("def f(S, A=None):")
    assert text.count("S.stage") == 2 and text.count("S.round") == 3   # (one read each, and the stores)
    assert "if (_sw1 := S.stage) == 'chance':" in text and "if _sw1 == 'first' and (not S.done):" in text
    assert "S.stage, S.pos, S.done = ((_sw1 := 'chance'), 1, ev('d', S.need) == 1)" in text
    assert "S.round, S.pos = ((_sw3 := 2), 1)" in text and "if (_sw3 == 2 and (not S.done))" in text
    assert text.endswith("return (_sw1, _sw3, S.pos, S.done)")


_LEFT = {
    "S given to a function that is no reader": "def f(S):\n    S.a, = (1,)\n    other(S)\n    return S.a + S.a",
    "a store into a field's item": "def f(S):\n    S.a, = (S.b,)\n    S.b[0] = 1\n    return S.a + S.a",
    "a store into a field's attribute": "def f(S):\n    S.a, = (S.b,)\n    S.b.x = 1\n    return S.a + S.a",
    "a deletion": "def f(S):\n    S.a, = (1,)\n    del S.c\n    return S.a + S.a",
    "a chained store": "def f(S):\n    x = S.a = 1\n    return S.a + S.a",
    "an augmented store": "def f(S):\n    S.b, = (1,)\n    S.a += 1\n    return S.a + S.a",
    "S bound again": "def f(S):\n    S.b, = (1,)\n    S = other(1)\n    return S.a + S.a",
    "a nested scope": "def f(S):\n    S.b, = (1,)\n    g = lambda: S.a\n    return S.a + S.a",
    "S in a list": "def f(S):\n    S.b, = (1,)\n    x = [S]\n    return S.a + S.a",
    "no store into S (state_reads.py's)": "def f(S):\n    return S.a + S.a",
}


@pytest.mark.parametrize("case", sorted(_LEFT))
def test_left_where_something_else_may_change_the_state(case):
    source = _LEFT[case]
    assert _text(source) == ast.unparse(_function(source))


def test_no_local_where_no_later_read_uses_it():
    assert "_sw" not in _text("def f(S):\n    S.a, S.b = (S.c, 2)\n    if S.d:\n        S.a, = (3,)\n    return S.e")


def test_a_display_of_another_length_forgets_what_it_stores():
    text = _text("def f(S):\n    x = S.a\n    S.a, S.b = ev('t', (1, 2))\n    return (x, S.a, S.a)")
    assert "return (x, (_sw1 := S.a), _sw1)" in text


_RULES = [
    ("e.start", "True", "(S.n + 1,)", ("n",)),
    ("e.again", "S.n > 2", "(S.n * 10, S.n)", ("n", "last")),
    ("e.fails", "S.flag", "(not S.flag, 1 // S.zero)", ("flag", "last")),
    ("e.after", "S.n > 5", "(S.n - 1,)", ("n",)),
]


def _fused(pass_on: bool, monkeypatch):
    module._TEXTS.clear()
    if not pass_on:
        monkeypatch.setattr(module, "written_reads", lambda function: function)
    builder = ModuleBuilder()
    name = fused_effects(builder, [(i, ast.parse(w, mode="eval").body, ast.parse(v, mode="eval").body, names)
                                   for i, w, v, names in _RULES])
    source = builder.source()
    module._TEXTS.clear()
    monkeypatch.undo()
    space = {"_RuleRuntimeError": RuleRuntimeError, "_BalootError": BalootError, "_Exception": Exception,
             "_rule_at": rule_at}
    exec(compile(source, "<test>", "exec"), space)
    return space[name], source


@pytest.mark.parametrize("n, flag, zero", [(0, False, 1), (2, False, 1), (3, True, 1), (3, True, 0), (9, True, 0)])
def test_fused_effects_leave_the_same_state_and_name_the_same_rule(n, flag, zero, monkeypatch):
    kept, source = _fused(True, monkeypatch)
    plain, before = _fused(False, monkeypatch)
    assert "_sw" in source and "_sw" not in before

    def run(fn):
        state = _Plain(n=n, flag=flag, zero=zero, last=None, _memo={"x": 1})
        try:
            fn(state, None)
            failed = None
        except RuleRuntimeError as exc:
            failed = exc.rule_id
        return vars(state), failed
    assert run(kept) == run(plain)


class _Plain:
    def __init__(self, **fields):
        self.__dict__.update(fields)


def test_the_default_rules_keep_reads_across_stores_in_the_calls_effects():
    """The generic module: the bidding's effects read a field once between its stores; the rules
    compute what they did (the corpus, the cross-check and the whole suite)."""
    functions = re.split(r"\n(?=def )", load_variant("default").python_source)
    kept = [f for f in functions if "_sw1" in f]
    assert kept and all(re.search(r"\bS\.\w+(, )?\s*(,\s*)?=[^=]", f.split("\n", 1)[1]) for f in kept)
    assert any(re.search(r"S\.\w+(, S\.\w+)*,? = \(.*\(_sw\d+ := ", f) for f in kept)   # (a store updating a local)
