"""`baloot rules check --show-code PHASE` prints the Python generated for a phase's rules, for review."""

import ast

from baloot_spec.cli import main
from baloot_spec.rules import load_variant


def test_show_code_prints_the_phase_functions_and_the_rule_functions_they_call(capsys):
    assert main(["rules", "check", "--show-code", "play"]) == 0
    out = capsys.readouterr().out
    module = ast.parse(out)   # (valid Python, as generated)
    names = {node.name for node in module.body if isinstance(node, ast.FunctionDef)}
    play = load_variant().phases["play"]
    assert play.narrow.__name__ in names and play.check.__name__ in names
    assert all(rule.test.__name__ in names for rule in play.filters)
    assert "f_led_suit" in names   # (called by the follow-suit rule: rules/play.yaml)
    bidding = load_variant().phases["bidding"]
    assert bidding.narrow.__name__ not in names


def test_show_code_of_an_unknown_phase_is_a_usage_error(capsys):
    assert main(["rules", "check", "--show-code", "plya"]) == 2
    err = capsys.readouterr().err
    assert "no phase 'plya'" in err and "did you mean 'play'" in err and "Traceback" not in err
