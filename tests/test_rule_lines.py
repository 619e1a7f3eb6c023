"""A fused function names its failing rule from the failing line (rules/passes/rule_lines.py),
not from an `i = k` counter set before each rule: the same rule id as the counter named, for
every kind of fused function and every statement that can fail (a `when`, a value, a derived
value called), and the function left with its counters where that table cannot be exact."""

import ast
from types import SimpleNamespace

import pytest

from baloot_spec.engine.hand import Hand
from baloot_spec.errors import BalootError, RuleRuntimeError
from baloot_spec.rules import fuse, load_variant, module
from baloot_spec.rules.module import ModuleBuilder, function_text
from baloot_spec.rules.passes.rule_lines import rule_at, without_counters

from test_rule_runtime_errors import DEAL, rules_with


def _e(text: str) -> ast.expr:
    return ast.parse(text, mode="eval").body


class _Boom(Exception):
    pass


def _state(target):
    def boom(k):
        if k == target:
            raise _Boom(k)
        return True
    return SimpleNamespace(boom=boom, x=0, y=0, _memo={})


def _run(source, fn_name, target, args):
    space = {"_RuleRuntimeError": RuleRuntimeError, "_BalootError": BalootError, "_Exception": Exception,
             "_rule_at": rule_at, "_Namespace": SimpleNamespace}
    exec(compile(source, "<test>", "exec"), space)
    try:
        space[fn_name](_state(target), *args)
    except RuleRuntimeError as exc:
        assert isinstance(exc.__cause__, _Boom)
        return exc.rule_id
    return None


def _built(make):
    builder = ModuleBuilder()
    fn_name = make(builder)
    return builder, fn_name


_KINDS = {
    "effects": (lambda b: fuse.fused_effects(b, [(f"e{j}", _e(f"S.boom({2 * j})"), _e(f"(S.boom({2 * j + 1}),)"), ("x",))
                                              for j in range(4)]), ("A",)),
    "effects dispatched": (lambda b: fuse.fused_effects(
        b, [(f"e{j}", _e(f"A.call == '{'ab'[j % 2]}' and S.boom({2 * j})"), _e(f"(S.boom({2 * j + 1}),)"), ("x",))
            for j in range(4)], {"call": ("a", "b")}), ("A",)),
    "check": (lambda b: fuse.fused_check(b, [(f"c{j}", _e(f"S.boom({2 * j})"), _e(f"S.boom({2 * j + 1})"), False)
                                           for j in range(3)]), ("A",)),
    "facts": (lambda b: fuse.fused_facts(b, [(f"f{j}", f"v{j}", _e(f"S.boom({j})")) for j in range(4)]), ()),
    "steps": (lambda b: fuse.fused_steps(b, [(f"s{j}", f"v{j}", _e(f"S.boom({j})")) for j in range(4)]), ()),
    "phase expression": (lambda b: fuse.phase_fn(b, "turn", {"id": "phase.p"}, _e("S.boom(0)")), ()),
}


@pytest.mark.parametrize("kind", sorted(_KINDS))
def test_the_rule_named_by_line_is_the_one_the_counter_named(kind, monkeypatch):
    make, extra = _KINDS[kind]
    builder, fn_name = _built(make)
    source = builder.source()
    assert "i = " not in source and ("_rule_at(" in source or kind in ("phase expression",))
    module._TEXTS.clear()
    monkeypatch.setattr(module, "without_counters", lambda function: None)   # (the counters, as before)
    counted = builder.source()
    module._TEXTS.clear()
    assert "i = 0" in counted
    action = [SimpleNamespace(call=call) for call in ("a", "b")]
    for target in range(9):
        for args in ([action[0]], [action[1]]) if extra else [[]]:
            named = _run(source, fn_name, target, args)
            assert named == _run(counted, fn_name, target, args), (target, args)
    assert any(_run(source, fn_name, target, [action[0]] if extra else []) for target in range(9))


def test_an_effect_failing_in_a_derived_value_it_calls_is_named(tmp_path):
    # (the traceback's entry for the fused function is the calling line: the effect's own)
    overlay = tmp_path / "broken.yaml"
    overlay.write_text("overlay: broken\ntitle: A derived value that fails at run time\nsource: \"choice: test\"\n"
                       "add:\n  functions:\n    - id: test.broken-fn\n      name: broken_fn\n"
                       "      expr: \"tricks[3].winner == actor\"\n      source: \"choice: test\"\n"
                       "  effects:\n    - id: test.first\n      phase: bidding\n      when: \"call == 'pass'\"\n"
                       "      set: {thrown_in: \"false\"}\n      source: \"choice: test\"\n"
                       "    - id: test.calls-broken\n      phase: bidding\n      when: \"call == 'pass'\"\n"
                       "      set: {thrown_in: \"broken_fn\"}\n      source: \"choice: test\"\n", encoding="utf-8")
    rules = load_variant("default", {}, [str(overlay)])
    assert "i = " not in _effects_source(rules)
    hand = Hand(rules, "N", DEAL)
    with pytest.raises(RuleRuntimeError) as caught:
        hand.apply({"seat": "W", "type": "bid", "call": "pass"})
    assert caught.value.rule_id == "test.calls-broken"


def _effects_source(rules) -> str:
    """The text of the fused effects in the rules' generated module."""
    return "\n".join(ast.unparse(node) for node in ast.parse(rules.python_source).body
                     if isinstance(node, ast.FunctionDef) and node.name.startswith("effects"))


def test_the_second_effect_of_a_dispatched_branch_is_named(tmp_path):
    items = ("    - id: test.first\n      phase: bidding\n      when: \"call == 'pass'\"\n"
             "      set: {thrown_in: \"false\"}\n      source: \"choice: test\"\n"
             "    - id: test.second\n      phase: bidding\n      when: \"call == 'pass'\"\n"
             "      set: {round: \"tricks[3].winner\"}\n      source: \"choice: test\"\n")
    rules = rules_with(tmp_path, items, "effects")
    hand = Hand(rules, "N", DEAL)
    with pytest.raises(RuleRuntimeError) as caught:
        hand.apply({"seat": "W", "type": "bid", "call": "pass"})
    assert caught.value.rule_id == "test.second"


def test_the_default_variant_sets_no_counter_where_rules_run():
    source = load_variant().python_source
    assert "_rule_at(" in source
    for line in source.splitlines():
        assert not line.strip().startswith("i = ") or line.strip() == "i = 0", line   # (functions without rules only)


def test_a_statement_after_branches_that_set_different_counters_keeps_them():
    body = ast.parse("def f(S):\n    i = 0\n    try:\n        if S.a:\n            i = 1\n            S.x = 1\n"
                     "        else:\n            i = 2\n            S.x = 2\n        S.y = S.boom(0)\n"
                     "    except _BalootError:\n        raise\n    except _Exception as exc:\n"
                     "        raise _RuleRuntimeError(('r0', 'r1', 'r2')[i], exc) from exc\n    return None\n").body[0]
    assert without_counters(body) is None and "i = 1" in module._by_lines(body)
    body.body[1].body.pop()   # (without that statement: exact)
    assert without_counters(body) is not None and "i = " not in module._by_lines(body)


def test_counters_in_a_loop_are_kept():
    body = ast.parse("def f(S):\n    i = 0\n    try:\n        for x in S.xs:\n            i = 1\n            S.x = x\n"
                     "    except _BalootError:\n        raise\n    except _Exception as exc:\n"
                     "        raise _RuleRuntimeError(('r0', 'r1')[i], exc) from exc\n    return None\n").body[0]
    assert without_counters(body) is None


def test_a_text_longer_than_its_layout_keeps_the_counters():
    # a docstring written over two lines (what `ast.unparse` writes over lines): the lines laid
    # out are not the text's, so the function keeps its counters (module._by_lines)
    body = ast.parse("def f(S):\n    i = 0\n    try:\n        S.x = S.boom(0)\n        i = 1\n        S.y = 1\n"
                     "    except _BalootError:\n        raise\n    except _Exception as exc:\n"
                     "        raise _RuleRuntimeError(('r0', 'r1')[i], exc) from exc\n    return None\n").body[0]
    assert "i = 1" not in module._by_lines(body)
    body.body.insert(0, ast.Expr(ast.Constant("a\nb")))
    assert without_counters(body) is not None and "i = 1" in module._by_lines(body)
