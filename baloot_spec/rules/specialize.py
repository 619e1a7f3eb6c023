"""A phase compiled again for each value of the state it fixes (the contract), when first entered.

The stages of rules/compile.py run again with that state folded in (`fixed`: no Hokum test in a
Sun), the trick phase's filters once per length of the current trick: the rules were checked
when the variant was compiled, so this only re-emits them into a module of their own. A mixin of
compile.py's `_VariantCompiler`, whose scopes, checked expressions and emitters it uses.
"""

from __future__ import annotations

import itertools

from ..engine.state import CURRENT_TRICK
from ..expr.astutil import same_dump
from .collector import collector_paused
from .compiled import CompiledPhase, CompiledRules, bind_phase, cached_phase, code_of, store_phase_code
from .fuse import (fused_check, fused_effects, fused_facts, fused_narrow, guard_fn, narrow_by_length, phase_fn,
                   refusal_fn)
from .module import ModuleBuilder
from .passes.card_tables import CardTables


class PhaseSpecializer:
    """specializer() and specialized_code(), over the compiler's stages (compile.py)."""

    def specializer(self, rules: CompiledRules, namespace: dict, source: str):
        """(phase name, values of its fixed state) -> that phase compiled again with the values
        folded in (the rules were checked above: this only re-emits them); its code is kept in
        the disk cache (compiled.py)."""
        def specialize(phase_name: str, values: tuple) -> CompiledPhase:
            found = cached_phase(rules, namespace, phase_name, values)
            if found is not None:
                return found
            names, code = self.specialized_code(phase_name, values)
            store_phase_code(source, phase_name, values, names, code)
            return bind_phase(self.compiled_phases[phase_name], names, code, namespace)
        return specialize

    @property
    def seats(self) -> int:
        return len(self.table.seats)

    def _with_trick(self, length: int, make):
        """What `make()` emits with the current trick's length known to be `length`."""
        self.lengths[CURRENT_TRICK] = length
        try:
            return make()
        finally:
            self.lengths.clear()

    def _narrows(self, out: ModuleBuilder, phase_name: str, over_cards: bool) -> tuple:
        """The phase's narrow for each length of the current trick (a function made for one
        length and the same as one made for a shorter one is that one)."""
        made: list = []   # (a function's body, its name), no two bodies alike
        names = []
        for length in range(self.seats):
            fn_name = self._with_trick(length, lambda: fused_narrow(out, self._filter_parts(phase_name), None, over_cards))
            body = out.functions[-1].body
            same = next((name for earlier, name in made if same_dump(earlier, body)), None)
            if same is not None:   # (the bodies compared as their `ast.dump`s would be, without writing them out)
                out.functions.pop()
                fn_name = same
            else:
                made.append((body, fn_name))
            names.append(fn_name)
        return tuple(names)

    def _filter_parts(self, phase_name: str) -> list:
        """(rule id, when, test, if_possible) of the phase's filters, emitted now."""
        parts = []
        for rule in self.rs.lists["rules"]:
            if rule["phase"] == phase_name and "only" in rule:
                _kind, _scope, when, test = self.rule_parts(rule)
                parts.append((rule["id"], when, test, bool(rule.get("if_possible", False))))
        return parts

    def specialized_code(self, phase_name: str, values: tuple):
        """-> (the names of the phase's functions, the code of the module that defines them)."""
        with collector_paused():   # (all of it makes code: rules/collector.py)
            return self._specialized_code(phase_name, values)

    def _specialized_code(self, phase_name: str, values: tuple):
        generic = self.compiled_phases[phase_name]
        item = next(ph for ph in self.rs.lists["phases"] if ph["name"] == phase_name)
        self.fixed.update(zip(generic.fixed, values))
        self.inline_names = itertools.count(1)
        self.tables = CardTables()
        try:
            out = ModuleBuilder()
            parts: dict = {"filter": [], "check": [], "action": [], "exit": []}
            tricks = generic.kind == "tricks"
            for rule in self.rs.lists["rules"]:
                if rule["phase"] == phase_name and not (tricks and "only" in rule):   # (filters: per length, below)
                    kind, _scope, when, test = self.rule_parts(rule)
                    parts[kind].append((rule["id"], when, test, bool(rule.get("if_possible", False))))
            for effect in self.rs.lists["effects"]:
                if effect["phase"] == phase_name and effect.get("at", "action") != "enter":
                    on, when, values_of = self.effect_parts(effect)
                    parts[on].append((effect["id"], when, values_of, tuple(effect["set"])))
            scope = self.scopes.hand()
            names = {"check": fused_check(out, parts["check"]),
                     "action": fused_effects(out, parts["action"], kept=self.kept_reads),
                     "exit": fused_effects(out, parts["exit"], kept=self.kept_reads),
                     "next": phase_fn(out, "next", item, self.expr(item["next"], scope, item["id"])),
                     "check_guard": guard_fn(out, parts["check"]), "action_guard": guard_fn(out, parts["action"]),
                     "refusal_guard": refusal_fn(out, parts["check"])}
            if tricks:   # the narrow per length of the current trick (and one that picks it), the winner for a full one
                names["narrows"] = self._narrows(out, phase_name, generic.narrow_over_cards)
                names["narrow"] = narrow_by_length(out, names["narrows"], CURRENT_TRICK)
                names["winner"] = self._with_trick(self.seats, lambda: phase_fn(
                    out, "winner", item, self.expr(item["winner"], scope, item["id"])))
            else:
                names["narrow"] = fused_narrow(out, parts["filter"], candidates_of(generic), generic.narrow_over_cards)
            if generic.kind == "calls":
                names["turn"] = phase_fn(out, "turn", item, self.expr(item["turn"], scope, item["id"]))
                names["end"] = phase_fn(out, "end", item, self.expr(item["end"], scope, item["id"]))
            if generic.kind == "score":   # the facts with the contract folded in (no Hokum tests in a Sun), the steps with them
                fact_parts = self.fact_parts()
                names["facts_all"] = fused_facts(out, fact_parts)
                names["scored"], names["facts_scored"] = self.scored(out, fact_parts)
            out.statements += self.tables.statements()
        finally:
            self.fixed.clear()
            self.tables = None
        return names, code_of(out.source(), f"<rules {self.variant.hash} {phase_name} {values!r}>")


def candidates_of(phase) -> list | None:
    return phase.call_candidates() if phase.kind == "calls" else None
