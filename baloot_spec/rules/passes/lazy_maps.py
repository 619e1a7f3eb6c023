"""Lazy maps: an enter effect's `map(...)` values whose entries read only state that nothing
changes for the rest of the hand become LazyMaps (expr/builtins.py), worked out entry by entry
when first read; and which containers the engine changes in place an effect's values may hold."""

from __future__ import annotations

import ast

from ...engine.state import IN_PLACE
from ..pyast import assign, call, lazy_locals, name, strings


def lazy_maps(builder, effect_id: str, values: ast.Tuple, unstable: frozenset) -> ast.Tuple:
    """An effect's values (a tuple display, changed in place) with each `map(...)` whose entries
    read only state in no way `unstable` made a LazyMap: its entries are worked out when first
    read, from a copy of the fields they read taken now. Since nothing changes those fields for
    the rest of the hand, an entry is the same whenever it is worked out; what the entries read
    is found on the generated code, through the rule functions it calls (`builder.bodies`). An
    entry that fails is reported under the effect's id, as the eager map's failure would be
    (only later: when it is first read). Each entry is a function added to `builder`."""
    for k, value in enumerate(values.elts):
        comp = value.args[0] if (isinstance(value, ast.Call) and isinstance(value.func, ast.Name)
                                 and value.func.id == "_R" and len(value.args) == 1 and not value.keywords) else None
        if not (isinstance(comp, ast.DictComp) and len(comp.generators) == 1 and isinstance(comp.key, ast.Name)
                and isinstance(comp.generators[0].target, ast.Name) and comp.key.id == comp.generators[0].target.id
                and not comp.generators[0].is_async):
            continue
        reads = state_reads(comp.value, builder.bodies)
        if reads is None or reads & unstable:
            continue
        loop = comp.generators[0]
        keys = ast.ListComp(elt=name(loop.target.id), generators=[loop])
        entry = builder.guarded("entry", f"S, {loop.target.id}", [effect_id],
                                [*lazy_locals(comp.value), assign("R", comp.value)], name("R"))
        values.elts[k] = call("_LazyMap", keys, name(entry), name("S"), strings(sorted(reads - {"_memo"})))
    return values


def held_containers(values: ast.expr, bodies: dict) -> set:
    """Which of the containers the engine changes in place (IN_PLACE, engine/state.py) an
    effect's values (a tuple display) may keep a reference to: those whose fields they read, or
    all of them if they use the state in a way state_reads cannot follow. A LazyMap reads the
    fields it names (a copy of those taken when it is made) and its keys."""
    reads: set = set()
    for value in (values.elts if isinstance(values, ast.Tuple) else [values]):
        if (isinstance(value, ast.Call) and isinstance(value.func, ast.Name) and value.func.id == "_LazyMap"
                and len(value.args) == 4 and isinstance(value.args[3], ast.Tuple)):
            reads |= {e.value for e in value.args[3].elts if isinstance(e, ast.Constant)}
            value = value.args[0]
        found = state_reads(value, bodies, action=True)   # (the action's fields are the event's values)
        if found is None:
            return set(IN_PLACE)
        reads |= found
    return {container for container, names in IN_PLACE.items() if reads & names}


def state_reads(node, bodies: dict, seen: set | None = None, action: bool = False) -> set | None:
    """The state fields a generated expression reads (`S.<field>`, and through the rule functions
    it calls with S, whose bodies `bodies` holds); None if it uses S, or the action (unless
    `action`), in any other way."""
    seen = set() if seen is None else seen
    reads: set = set()

    def visit(node) -> bool:
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == "S":
            reads.add(node.attr)
            return True
        if (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id.startswith("f_")
                and node.args and isinstance(node.args[0], ast.Name) and node.args[0].id == "S"):
            if node.func.id not in seen:
                seen.add(node.func.id)
                body = bodies.get(node.func.id)
                inner = None if body is None else state_reads(body, bodies, seen, action)
                if inner is None:
                    return False
                reads.update(inner)
            return all(visit(arg) for arg in node.args[1:]) and all(visit(k.value) for k in node.keywords)
        if isinstance(node, ast.Name) and (node.id == "S" or (node.id == "A" and not action)):
            return False
        return all(visit(child) for child in ast.iter_child_nodes(node))

    return reads if visit(node) else None
