"""A finished hand's results carried on: the match steps after a hand, the scoring steps over a
hand's facts, and the one way a rule function's failure becomes a RuleRuntimeError naming it."""

from __future__ import annotations

from ..errors import BalootError, RuleRuntimeError
from ..expr.builtins import Rec, Values


def run_rule(rule_id, fn, *args):
    """fn(*args), a failure inside it reported as the rule `rule_id`'s."""
    try:
        return fn(*args)
    except BalootError:
        raise
    except Exception as exc:
        raise RuleRuntimeError(rule_id, exc) from exc


def match_step(rules, scores: dict, hand_result: dict) -> Rec:
    """Run the match steps after one hand: `scores` before it, `hand` = its result (every scoring
    step by name, e.g. written, winner, gahwa). Returns every match step's value by name."""
    values = Rec(scores=Rec(scores), hand=Rec(hand_result))
    for name, step_id, fn in rules.match:
        values[name] = run_rule(step_id, fn, values)
    return values


def score_facts(rules, facts: dict) -> Rec:
    """Run the scoring steps over a hand's facts; every step's value, by name."""
    return Rec(vars(rules.steps_all(Values(**facts))))
