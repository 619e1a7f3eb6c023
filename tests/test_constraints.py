"""Knob constraints (rules/params.yaml `constraints:`) are evaluated over their parse tree, never
by eval/exec: a hostile constraint only fails to load, located in rules/params.yaml."""

import builtins

import pytest

from baloot_spec.cli import main
from baloot_spec.errors import RulesError
from baloot_spec.rules.constraints import check_constraints, constraint_holds

REQUIRE = "require: \"param.ace_sun_overcall == 'anyone'\""


def run(capsys, *argv):
    code = main(list(argv))
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def replace_in(path, old, new):
    text = path.read_text(encoding="utf-8")
    assert old in text, f"{old!r} not in {path}"
    path.write_text(text.replace(old, new, 1), encoding="utf-8")


def require_line(path) -> int:
    return next(n for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1) if "require:" in line)


@pytest.mark.parametrize("hostile, message", [
    # a call of Python's own functions: in the language a call of an unknown function
    ("open('/etc/passwd') == 'x'", "a constraint may use only"),
    ("open('/etc/passwd').read() == 'x'", "syntax error"),
    ("len([1, 2]) == 2", "a constraint may use only"),
    # attribute walks towards Python internals: the grammar has no underscores in names
    ("param.wrongful_ashkal.__class__ == 1", "syntax error"),
    # arithmetic, aggregates, names of the game's state: not knob facts
    ("param.match_target * 1000000 == 1", "a constraint may use only"),
    ("any(x == 1 for x in [1])", "a constraint may use only"),
    ("hand == none", "a constraint may use only"),
    # an answer that is not true or false
    ("param.ace_sun_overcall", "must be true or false"),
    ("'anyone' in param.ace_sun_overcall", "'in' takes a list"),
])
def test_a_hostile_constraint_only_fails_to_load_located(rules_copy, capsys, tmp_path, monkeypatch, hostile, message):
    params = rules_copy / "params.yaml"
    replace_in(params, REQUIRE, f"require: \"{hostile}\"")
    monkeypatch.chdir(tmp_path)
    code, out, err = run(capsys, "rules", "check")
    assert code == 2
    assert "Traceback" not in err
    assert message in err
    assert f"rules/params.yaml:{require_line(params)}:" in err
    assert "knobs.forced-sun-needs-open-overcall" in err


def test_constraints_are_evaluated_without_eval_exec_or_compile(monkeypatch):
    def refused(*args, **kwargs):
        raise AssertionError("constraint text reached eval/exec/compile")
    for name in ("eval", "exec", "compile"):
        monkeypatch.setattr(builtins, name, refused)
    constraint = {"id": "knobs.test", "when": "param.a == 'x'", "require": "param.b in ['y', 'z']", "message": "m"}
    check_constraints({"a": "x", "b": "z"}, [constraint], "test")     # when holds, require holds
    check_constraints({"a": "w", "b": "q"}, [constraint], "test")     # when does not hold
    with pytest.raises(RulesError) as caught:
        check_constraints({"a": "x", "b": "q"}, [constraint], "test")  # when holds, require does not
    assert "a=x, b=q cannot be combined" in str(caught.value)


@pytest.mark.parametrize("text, expected", [
    # worked out by hand for a = 'x', n = 3, flag = true
    ("param.a == 'x'", True),
    ("param.a != 'x'", False),
    ("param.n >= 3 and param.n < 4", True),
    ("param.n > 3 or not param.flag", False),
    ("param.n not in [1, 2, -3]", True),
    ("param.a in ['y', 'x']", True),
    ("(param.flag or param.n == 0) and param.a == \"x\"", True),
    ("true", True),
    ("false", False),
])
def test_the_constraint_evaluator_answers(text, expected):
    assert constraint_holds({"id": "knobs.test", "when": text}, "when", {"a": "x", "n": 3, "flag": True}) is expected


def test_an_unknown_knob_in_a_constraint_names_the_close_ones():
    with pytest.raises(RulesError) as caught:
        constraint_holds({"id": "knobs.test", "when": "param.flg"}, "when", {"flag": True})
    assert "unknown knob 'param.flg'" in str(caught.value) and "param.flag" in str(caught.value)
