"""The generated Python of one phase, for review (`baloot rules check --show-code PHASE`).

Every function the phase's compiled form names (its own expressions, its rules' and effects'
functions, the fused narrow/check/effects), then every rule function those call, in the order
of the generated module. Read back from the compiled module's source with `ast` (printing is
the only use of generated text outside the compiler).
"""

from __future__ import annotations

import ast

from ..errors import BalootError
from ..suggest import did_you_mean
from .passes.keyed import MEMOISED_PREFIX

_PHASE_FUNCTIONS = ("next", "turn", "end", "leader", "winner", "taker", "narrow", "check", "check_guard",
                    "action_guard", "refusal_guard", "facts_all")
_ITEM_FUNCTIONS = ("when", "test", "keep", "explain", "values")
_CALLED = ("f_", MEMOISED_PREFIX)   # rule functions, and a keyed derived value's body (passes/keyed.py)


class UnknownPhase(BalootError):
    """A phase the variant does not have (a usage error)."""


def phase_code(rules, phase_name: str) -> str:
    """The source of the generated functions of `phase_name` in the compiled `rules`."""
    phase = rules.phases.get(phase_name)
    if phase is None:
        raise UnknownPhase(f"no phase {phase_name!r}{did_you_mean(phase_name, rules.phases)} "
                           f"(phases: {', '.join(rules.phases)})")
    bound = [getattr(phase, name, None) for name in _PHASE_FUNCTIONS] + list((phase.effects or {}).values())
    for item in [*phase.filters, *phase.checks, *phase.on_action, *phase.on_enter, *phase.on_exit]:
        bound += [getattr(item, name, None) for name in _ITEM_FUNCTIONS]
    wanted = {getattr(fn, "__name__", None) for fn in bound if callable(fn)}
    module = ast.parse(rules.python_source)
    defs = {node.name: node for node in module.body if isinstance(node, ast.FunctionDef)}
    todo = [name for name in wanted if name in defs]
    while todo:   # (and the rule functions they call, transitively)
        for node in ast.walk(defs[todo.pop()]):
            if isinstance(node, ast.Name) and node.id.startswith(_CALLED) and node.id in defs and node.id not in wanted:
                wanted.add(node.id)
                todo.append(node.id)
    return "\n\n".join(ast.unparse(node) for name, node in defs.items() if name in wanted) + "\n"
