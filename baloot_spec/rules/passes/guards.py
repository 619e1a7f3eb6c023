"""Action guards: the part of a rule's `when` that reads nothing but the action `A` (with
builtins and constants). Whatever the position, the rule cannot apply to an action for which it
is false: most plays say nothing, and then the announcement checks and effects are not run.

And the dual (refusal_guard): a check whose `when` reads nothing but the action and whose
requirement the action alone makes false refuses that action at every position. In a phase
specialised on its fixed state that is common (in a Sun, `mode == 'hokum'` folds to False), and
the random player then need not ask (engine/announcing.py)."""

from __future__ import annotations

import ast

from ...expr.astutil import walk
from ..pyast import both, either, is_const


def action_guard(when: ast.expr) -> ast.expr | None:
    """The conjuncts of a generated `when` that read only the action, joined by `and`
    (`False` if one is the literal False); None if there is none."""
    own = [part for part in conjuncts(when) if _reads_only_action(part)]
    if any(is_const(part, False) for part in own):
        return ast.Constant(False)
    return both(own) if own else None


def any_guard(whens: list) -> ast.expr | None:
    """A test of the action alone that is false only when none of these rules can apply to it
    (None unless each of them has an action guard)."""
    guards = [action_guard(when) for when in whens]
    if not guards or not all(guard is not None for guard in guards):
        return None
    live = list({ast.dump(g): g for g in guards if not is_const(g, False)}.values())   # (each once, in order)
    return either(live) if live else ast.Constant(False)


def conjuncts(node) -> list:
    if isinstance(node, ast.BoolOp) and isinstance(node.op, ast.And):
        return [part for value in node.values for part in conjuncts(value)]
    return [node]


def _reads_only_action(node) -> bool:
    if isinstance(node, ast.Constant):
        return node.value is False   # `True` tells nothing; `False` says the rule never applies
    for sub in walk(node):
        if isinstance(sub, (ast.NamedExpr, ast.Lambda)):
            return False
        if isinstance(sub, ast.Name) and not (sub.id == "A" or sub.id.startswith(("b_", "k_"))):
            return False
    return True


def refusal_guard(checks: list) -> ast.expr | None:
    """A test of the action alone that is true only when one of these checks (rule id, when,
    test, if_possible) refuses the action whatever the position: each conjunct of its `when`
    reads only the action, and its test is the literal False or has a conjunct of the action
    alone that is false. None when no check can be judged so."""
    refusing = []
    for _rule_id, when, test, if_possible in checks:
        if if_possible:   # (waived where nothing else is possible: never refused by the action alone)
            continue
        applies = [part for part in conjuncts(when) if not is_const(part, True)]
        if not all(_reads_only_action(part) for part in applies):
            continue
        if is_const(test, False):
            fails = []
        else:
            own = [part for part in conjuncts(test) if not isinstance(part, ast.Constant) and _reads_only_action(part)]
            if not own:
                continue
            fails = [ast.UnaryOp(op=ast.Not(), operand=both(own))]
        refusing.append(both(applies + fails) if applies + fails else ast.Constant(True))
    return either(refusing) if refusing else None
