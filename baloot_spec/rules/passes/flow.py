"""Which phases can follow each one, read off each phase's emitted `next`, and so which state
fields can still change after an enter effect has run (what lazy_maps.py needs)."""

from __future__ import annotations

import ast

from ...engine.state import ENGINE_WRITES


def written_after(effects: list, effect, phases: dict, following: dict) -> frozenset:
    """The state fields that can change after `effect` (an `at: enter` effect) has run, until the
    hand ends: those set by itself and the enter effects after it, by its phase's other effects,
    by every phase that can follow, and by the engine in each of them (ENGINE_WRITES)."""
    here = effect["phase"]
    following = following[here]
    written = set(ENGINE_WRITES["*"])
    for name in following | {here}:
        written |= ENGINE_WRITES[phases[name].kind]
    at_or_after = False
    for other in effects:
        at_or_after = at_or_after or other is effect
        if (other["phase"] in following or (other["phase"] == here and (
                at_or_after or other.get("at", "action") != "enter"))):
            written.update(other["set"])
    return frozenset(written)


def following(nexts: dict) -> dict[str, set]:
    """Each phase's possible successors, transitively. A `next` that is not made of phase names
    (literals, chosen between by conditions) may lead anywhere."""
    direct = {name: next_names(node, nexts) for name, node in nexts.items()}
    out = {}
    for name in nexts:
        seen, todo = set(), [name]
        while todo:
            for successor in direct[todo.pop()]:
                if successor not in seen:
                    seen.add(successor)
                    todo.append(successor)
        out[name] = seen
    return out


def next_names(node: ast.expr, names) -> set:
    """The phases a generated `next` names (literals, chosen between by conditions), or all."""
    found: set = set()

    def walk(node) -> bool:
        if isinstance(node, ast.IfExp):
            return walk(node.body) and walk(node.orelse)
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            if node.value in names:
                found.add(node.value)
            return True
        return False

    return found if walk(node) else set(names)


def always_next(node: ast.expr) -> str | None:
    """The name a generated `next` always gives when it is one string literal (the engine reads it
    as a value: no call, no frame, when a phase is left), else None (the engine calls `next`)."""
    return str(node.value) if isinstance(node, ast.Constant) and isinstance(node.value, str) else None
