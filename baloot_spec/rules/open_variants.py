"""Rules for many knob assignments from one compilation: the knobs read at run time.

A tool that visits hundreds of variants of the same rules (the fingerprint's search,
conformance/fingerprint.py) spent nearly all of its time compiling them: about 0.5 s a variant,
which folds every knob in as a literal. Here the rules are compiled once with every knob read
from the generated module's `_K` (scope.knobs_as_data), and each knob assignment gets a fresh
copy of that plan, executed in its own namespace with its own `_K`; a phase specialised on
its fixed state (the contract) is generated once and bound into each namespace. The answers
are the same as load_variant's (a test compares both on the corpus); the code is slower to
run, since nothing is folded, and far cheaper to make (a few milliseconds a variant).

Only knobs may differ: every variant given to one OpenVariants must have the template's rules
files and overlays; OpenVariantCache keeps one per set of them.
"""

from __future__ import annotations

import pickle

from ..errors import RulesError
from .compiled import CompiledRules, bind_phase, instantiate
from .loader import Variant

FILENAME = "<rules, knobs read at run time>"


class OpenVariants:
    """CompiledRules for any knob assignment of one set of rules files (see the module)."""

    def __init__(self, template: Variant):
        from .compile import compile_open   # (the compiler, imported only when this is used)
        self.files, self.overlays = list(template.ruleset.files), list(template.overlays)
        self.compiler, plan = compile_open(template)
        self.plan = pickle.dumps(plan)     # (unbound: each variant binds a copy of its own)
        self.phase_code: dict = {}         # (phase, fixed values) -> (names, code), knob-free

    def rules(self, variant: Variant) -> CompiledRules:
        """The rules of `variant`, which may differ from the template in its knobs only."""
        if list(variant.ruleset.files) != self.files or list(variant.overlays) != self.overlays:
            raise RulesError(f"variant {variant.preset!r} has other rules files or overlays than these open "
                             "rules were compiled from: only knobs may differ")
        rules, namespace = instantiate(variant, pickle.loads(self.plan), FILENAME)

        def specialize(phase_name: str, values: tuple):
            key = (phase_name, values)
            if key not in self.phase_code:
                self.phase_code[key] = self.compiler.specialized_code(phase_name, values)
            names, code = self.phase_code[key]
            return bind_phase(rules.phases[phase_name], names, code, namespace)

        rules.specializer = specialize
        return rules


class OpenVariantCache:
    """CompiledRules for any variant: one OpenVariants per set of rules files and overlays,
    compiled when first needed (the fingerprint's reference, conformance/retarget.py)."""

    def __init__(self):
        self.compiled: dict = {}

    def rules(self, variant: Variant) -> CompiledRules:
        group = (tuple(variant.ruleset.files), tuple(variant.overlays))
        if group not in self.compiled:
            self.compiled[group] = OpenVariants(variant)
        return self.compiled[group].rules(variant)
