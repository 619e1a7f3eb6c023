"""Compile a resolved variant into callables: one generated Python module per variant.

The stages, in order (compile_variant reads as this list):

1. scopes (scopes.py): what the names of each expression may refer to;
2. rule functions: each body checked, in the order written, then offered for inlining;
3. phases, rules (filters and checks), effects, facts and steps: each expression checked
   (expr/resolve.py: names, knobs, types; a located RulesError if it cannot work) and emitted
   as `ast` (expr/emit.py: knobs folded, functions inlined), loops over short constant lists
   written out (expr/unroll.py), enter effects' maps made lazy (passes/lazy_maps.py); then
   derived values of a few state fields' values made tables (passes/keyed.py);
4. fusing (fuse.py): one function per phase for its filters, checks and effects, with the
   passes of passes/ (per-card and per-candidate specialisation, hoisting, action guards,
   action effects per value of an action field); the scoring steps and both result records
   as one function with the steps in locals (scored.py);
5. the module (module.py): comprehensions written out as loops (expr/lower.py), unparsed once,
   compiled with the builtin `compile` and cached by the variant hash.

A phase that fixes state (the contract) is compiled again per value of it when first entered
(specialize.py): the same stages with that state folded in. Rule text never reaches
`exec`: only code generated from the checked tree does, and its globals are the documented
builtins, the constants, and a restricted set of Python builtins. What the compilation makes (a
plan: the generated source, and phases and rules that name its functions) is bound to callables
in compiled.py, which also reads it back from the disk cache in later processes.
"""

from __future__ import annotations

import ast
import itertools

from ..engine.state import RESULT_LEADING
from ..errors import RulesError
from ..expr.emit import emit as emit_expression
from ..expr.parser import TREES
from ..expr.resolve import check as check_expression
from ..expr.scope import Scope
from ..expr.unroll import short_lists, unroll
from ..suggest import did_you_mean
from . import cache as disk_cache
from .compiled import (CompiledEffect, CompiledPhase, CompiledRule, CompiledRules, instantiate, store_plan,
                       table_and_deck)
from .fuse import (fused_check, fused_effects, fused_facts, fused_narrow, fused_steps, guard_fn, phase_fn, record_of,
                   refusal_fn)
from .loader import Variant
from .module import ModuleBuilder
from .passes.card_tables import CardTables
from .passes.cards import reads_only_card
from .passes.dispatch import domains_of
from .passes.flow import always_next, following as phases_following, written_after
from .passes.kept import keep_derived
from .passes.keyed import compared, constant_function, key_fields, keyed_function, read_only, table_statements
from .scored import fused_scored, literal_facts, typed_step
from .passes.lazy_maps import held_containers, lazy_maps
from .passes.state_types import state_types as infer_state_types
from .scopes import MATCH_CONTEXT, VariantScopes, names_in, plain
from .specialize import PhaseSpecializer, candidates_of
from .source import source_of, text_of
from .template import template


def compile_variant(variant: Variant, plan_key: str | None = None, observe=None) -> CompiledRules:
    """Check and compile every expression of a resolved variant. With `plan_key`, what the
    engine needs is also kept in the disk cache under that key (read back by compiled.from_plan).
    The expressions' parse trees are kept in the disk cache too (Lark is the slow part).
    `observe(scope, item_id)`, if given, is told the scope of every expression checked (what
    `baloot rules names` lists: rules/names.py)."""
    compiler, plan = _compiled_plan(variant, observe)
    if plan_key is not None:
        store_plan(plan_key, plan)   # (pickled now, before the names are bound to functions)
    rules, namespace = instantiate(variant, plan)
    rules.specializer = compiler.specializer(rules, namespace, plan["source"])
    return rules


def compile_open(variant: Variant):
    """The variant's rules compiled with every knob read at run time (scope.knobs_as_data): ->
    (the compiler, which specialises phases, and the plan, unbound; rules/open_variants.py binds
    a copy of it to each knob assignment)."""
    return _compiled_plan(variant, knobs_as_data=True)


def _compiled_plan(variant: Variant, observe=None, knobs_as_data: bool = False):
    known_trees = len(TREES)
    if not known_trees:
        TREES.update(disk_cache.load("trees", "all") or {})
        known_trees = len(TREES)
    compiler = _VariantCompiler(variant, observe, knobs_as_data)   # 1. scopes
    compiler.state_types()                          #    and the declared state's types
    compiler.functions()                            # 2. rule functions
    compiler.phases()                               # 3. phases' own expressions,
    compiler.rules()                                #    filters and checks,
    compiler.effects()                              #    effects,
    compiler.scoring()                              #    facts, scoring and match steps
    compiler.keyed()                                #    derived values as tables keyed by state fields
    compiler.fuse()                                 # 4. one function per phase and moment
    plan = compiler.plan()                          # 5. the module, and what names its functions
    if len(TREES) > known_trees:
        disk_cache.store("trees", "all", dict(TREES))
    return compiler, plan


class _VariantCompiler(PhaseSpecializer):
    """The stages of compile_variant, sharing the variant's scopes and its module builder."""

    def __init__(self, variant: Variant, observe=None, knobs_as_data: bool = False):
        self.variant, self.rs, self.observe = variant, variant.ruleset, observe
        self.table, self.deck = table_and_deck(variant)
        self.scopes = VariantScopes(variant, len(self.table.seats), knobs_as_data)
        self.builder = ModuleBuilder()
        self.kept_reads: frozenset = frozenset()   # (what the kept derived values read: keyed())
        self.memoised: list = []   # (function name, key) of each derived value: functions()
        self.short = short_lists(self.scopes.constants)   # loops over these are written out (expr/unroll.py)
        self.function_types: dict = {}   # rule function -> the type of its body (expr/types.py), once checked
        self.checked: dict = {}          # (the same rule re-emitted for a specialised phase is checked once)
        self.fixed: dict = {}            # set only while a phase is being specialised
        self.lengths: dict = {}          # and the engine lists' lengths it is specialised on (expr/lengths.py)
        self.tables: CardTables | None = None   # its per-card tables (passes/card_tables.py), then
        # Numbers inlined bodies' loop variables apart, one counter per generated module (so that
        # its source depends on the rules alone, and can be found again in the disk cache).
        self.inline_names = itertools.count(1)
        self.compiled_phases: dict[str, CompiledPhase] = {}
        self.nexts: dict[str, ast.expr] = {}   # phase -> its emitted `next` (which phases can follow)
        self.fused: dict[str, dict] = {}       # phase -> its rules' and effects' emitted parts, for fusing
        self.rules_by_id: dict = {}
        self.held: set = set()   # the containers the engine changes in place that an effect's value may hold
        self.template_trees: list = []   # the explanations' holes, checked (what keyed() reads besides `checked`)

    def expr(self, value, scope: Scope, rule_id: str, written_out: bool = True, boolean: bool = False,
             tree=None) -> ast.expr:
        """The Python `ast` of one expression of the rules: parsed, resolved and typed (a located
        RulesError if it cannot work), then emitted with the phase's fixed state folded in."""
        if self.observe is not None:
            self.observe(scope, rule_id)
        if tree is None:
            key = (id(value), boolean, scope.state, scope.action, scope.locals)
            tree = self.checked.get(key)
            if tree is None:
                tree = self.checked[key] = check_expression(text_of(value), scope, source_of(value), rule_id,
                                                            self.function_types, boolean)
        node = emit_expression(tree, scope, self.fixed or None, self.inline_names, self.tables, self.lengths or None)
        return unroll(node, self.short) if written_out else node

    def state_types(self) -> None:
        """The declared state fields that hold records, typed from the effects that set them."""
        scopes = self.scopes
        reused = frozenset(scopes.fact_names) | set(scopes.score_names) | set(scopes.match_names) | MATCH_CONTEXT
        found = infer_state_types(self.rs.lists["effects"], lambda e: scopes.effect(e["phase"], e.get("at", "action")),
                                  scopes.state_init, reused, scopes.state_types)
        scopes.state_types.update(found)

    # 2 ---------------------------------------------------------------------------------------
    def functions(self) -> None:
        """Functions rules define. Each body is checked first, in the order written, and only then
        offered for inlining (an error is located in its own body, never at a call site); the code
        is written in a second pass, when every checked body can be inlined wherever it is called
        (a function calling one defined further down was otherwise left as a call)."""
        scopes, trees = {}, []
        for fn in self.rs.lists["functions"]:
            params = tuple(fn.get("params") or [])
            scope = scopes[fn["name"]] = self.scopes.function(params)
            tree = check_expression(text_of(fn["expr"]), scope, source_of(fn["expr"]), fn["id"], self.function_types)
            self.function_types[fn["name"]] = tree.type
            trees.append(tree)
            if params:
                self.scopes.inline[fn["name"]] = (params, tree, scope)
            else:
                self.scopes.derived[fn["name"]] = (tree, scope)
        derived = []
        for fn, tree in zip(self.rs.lists["functions"], trees):
            params = tuple(fn.get("params") or [])
            body = self.expr(fn["expr"], scopes[fn["name"]], fn["id"], tree=tree)
            if params:
                self.builder.add_named(f"f_{fn['name']}", ", ".join(("S",) + tuple(f"v_{p}" for p in params)), body)
            else:
                # A derived value (led_suit, winning...): computed once per position. The engine gives
                # each position a fresh S._memo; other contexts (scoring facts) have none.
                self.builder.add_memoized(f"f_{fn['name']}", fn["name"], body)
                derived.append((f"f_{fn['name']}", fn["name"]))
                if isinstance(body, ast.Constant) and type(body.value) in (bool, int, str, type(None)):
                    self.scopes.literal_derived[fn["name"]] = body.value   # (read as the literal from now on)
        self.memoised = derived   # (some kept across events once keyed() has made its tables)

    # 3 ---------------------------------------------------------------------------------------
    def phases(self) -> None:
        builder, phases = self.builder, self.compiled_phases
        for ph in self.rs.lists["phases"]:
            scope = self.scopes.hand()
            self.nexts[ph["name"]] = self.expr(ph["next"], scope, ph["id"])
            # (plain str: the engine compares these on every event, and CPython 3.11 specialises a
            # comparison or a dict lookup only for exact str, not the loader's located strings; they
            # are interned with the rest of the plan's strings, compiled.interned)
            cp = CompiledPhase(name=str(ph["name"]), kind=str(ph["kind"]), id=str(ph["id"]), source=ph.get("source"),
                               next=phase_fn(builder, "next", ph, self.nexts[ph["name"]]), goes_to=always_next(self.nexts[ph["name"]]))
            if ph["kind"] == "calls":
                for action, params in ph["actions"].items():
                    cp.actions[action] = {name: (list(self.deck.suits) if dom == "suits" else [plain(v) for v in dom])
                                          for name, dom in params.items()}
                cp.turn = phase_fn(builder, "turn", ph, self.expr(ph["turn"], scope, ph["id"]))
                cp.end = phase_fn(builder, "end", ph, self.expr(ph["end"], scope, ph["id"]))
            elif ph["kind"] == "tricks":
                cp.action = str(ph["action"])
                cp.annotations = {name: plain(spec["default"]) for name, spec in ph.get("annotations", {}).items()}
                cp.leader = phase_fn(builder, "leader", ph, self.expr(ph["leader"], scope, ph["id"]))
                cp.winner = phase_fn(builder, "winner", ph, self.expr(ph["winner"], scope, ph["id"]))
            elif ph["kind"] == "deal_rest":
                cp.taker = phase_fn(builder, "taker", ph, self.expr(ph["taker"], scope, ph["id"]))
            cp.fixed = tuple(str(name) for name in ph.get("fixed") or ())
            for name in cp.fixed:
                if name not in self.scopes.state_init:
                    raise RulesError(f"phase {ph['name']!r} fixes {name!r}, which is not a declared state variable",
                                     ph.key_location("fixed"), ph["id"])
            if ph["name"] in phases:
                raise RulesError(f"phase {ph['name']!r} is defined twice", ph.location(), ph["id"])
            phases[cp.name] = cp

    def rule_parts(self, rule) -> tuple:
        """(kind, scope, when, test) of a rule, `when` and `test` as emitted `ast`."""
        scope = self.scopes.rule(rule["phase"])
        kind = "filter" if "only" in rule else "check"
        # A filter's `when` is evaluated once per position, before looking at candidates; a
        # check's looks at the announcements made with the action.
        when_scope = self.scopes.filter_when(rule["phase"]) if kind == "filter" else scope
        return (kind, scope, self.expr(rule.get("when", True), when_scope, rule["id"], boolean=True),
                self.expr(rule["only"] if kind == "filter" else rule["require"], scope, rule["id"], boolean=True))

    def rules(self) -> None:
        builder, phases = self.builder, self.compiled_phases
        for rule in self.rs.lists["rules"]:
            phase = phases.get(rule["phase"])
            if phase is None:
                raise RulesError(f"unknown phase {rule['phase']!r}{did_you_mean(rule['phase'], phases)} "
                                 f"(phases: {', '.join(phases)})", rule.key_location("phase"), rule["id"])
            kind, scope, when_src, test_src = self.rule_parts(rule)
            when = builder.add("S" if kind == "filter" else "S, A", when_src)
            reads = frozenset()
            if kind == "check":
                reads = frozenset(names_in(text_of(rule.get("when", True))) & self.scopes.action_fields[rule["phase"]])
            self.fused.setdefault(rule["phase"], {}).setdefault(kind, []).append(
                (rule["id"], when_src, test_src, bool(rule.get("if_possible", False))))
            test = builder.add("S, A", test_src)
            # A filter also gets a whole-list form: one call per position instead of one per candidate.
            keep = builder.add("S, C", _kept(test_src)) if kind == "filter" else None
            explain = template(builder, rule.get("explain") or rule["id"], scope, rule["id"], self.template_trees)
            compiled = CompiledRule(rule["id"], rule["phase"], kind, when, test, bool(rule.get("if_possible", False)),
                                    explain, rule.get("source"), keep, reads)
            (phase.filters if kind == "filter" else phase.checks).append(compiled)
            self.rules_by_id[rule["id"]] = compiled

    def effect_parts(self, effect, following: dict | None = None) -> tuple:
        """(at, when, values) of an effect as emitted `ast`; with `following` (which phases can
        follow each one), an enter effect's maps that can be are LazyMaps (found before loops
        are written out: passes/lazy_maps.py)."""
        on = effect.get("at", "action")
        scope = self.scopes.effect(effect["phase"], on)
        values = ast.Tuple(elts=[self.expr(v, scope, effect["id"], written_out=False) for v in effect["set"].values()],
                           ctx=ast.Load())
        if following is not None and on == "enter":   # (entering a phase: never part of a specialised phase's code)
            unstable = written_after(self.rs.lists["effects"], effect, self.compiled_phases, following)
            values = lazy_maps(self.builder, effect["id"], values, unstable)
        return on, self.expr(effect.get("when", True), scope, effect["id"], boolean=True), unroll(values, self.short)

    def effects(self) -> None:
        following = phases_following(self.nexts)
        for effect in self.rs.lists["effects"]:
            phase = self.compiled_phases.get(effect["phase"])
            if phase is None:
                raise RulesError(f"unknown phase {effect['phase']!r}{did_you_mean(effect['phase'], self.compiled_phases)}",
                                 effect.key_location("phase"), effect["id"])
            for name in effect["set"]:
                if name not in self.scopes.state_init:
                    raise RulesError(f"effect sets {name!r}, which is not a declared state variable (state: in rules/*.yaml)",
                                     effect["set"].key_location(name), effect["id"])
                if name in phase.fixed and effect.get("at", "action") != "enter":
                    raise RulesError(f"effect sets {name!r}, which phase {phase.name!r} declares fixed",
                                     effect["set"].key_location(name), effect["id"])
            on, when_src, values_src = self.effect_parts(effect, following)
            self.held |= held_containers(values_src, self.builder.bodies)
            when = self.builder.add("S, A", when_src)
            values = self.builder.add("S, A", values_src)
            self.fused.setdefault(effect["phase"], {}).setdefault(on, []).append(
                (effect["id"], when_src, values_src, tuple(effect["set"])))
            compiled = CompiledEffect(effect["id"], when, tuple(effect["set"]), values, effect.get("source"))
            {"action": phase.on_action, "enter": phase.on_enter, "exit": phase.on_exit}[on].append(compiled)

    def fact_parts(self) -> list:
        """(id, name, emitted `ast`) of each fact, in order (a specialised phase's fixed state
        folded in while one is being compiled)."""
        scope = self.scopes.hand()
        return [(step["id"], step["name"], self.expr(step["expr"], scope, step["id"])) for step in self.rs.lists["facts"]]

    def steps(self, items, context: set) -> tuple[list, list]:
        """Steps that each see the context and the steps before them: [(name, id, function)], and
        [(id, name, emitted `ast`)] for fusing."""
        parts = self.step_parts(items, context)
        return [(step, step_id, self.builder.add("S", value)) for step_id, step, value in parts], parts

    def step_parts(self, items, context: set, types: dict | None = None) -> list:
        """[(id, name, emitted `ast`)] of steps that each see the context and the steps before them;
        with `types` (of the context: facts_scored's facts), each checked with them and the steps' before it."""
        names, parts = set(context), []
        for step in items:
            scope, tree = typed_step(step, self.scopes.step(names), types, self.function_types)
            parts.append((step["id"], step["name"], self.expr(step["expr"], scope, step["id"], tree=tree)))
            names.add(step["name"])
        return parts

    def scored(self, out: ModuleBuilder, fact_parts: list) -> tuple[str | None, str | None]:
        """(scored, facts_scored) (rules/scored.py), the steps with each fact a literal in this code
        fixed to it: facts_scored(S) computes the facts from the state (no namespace); only where
        it cannot be made is scored(S) of the namespace made instead (the other is None)."""
        known = literal_facts(fact_parts, {step["name"] for step in self.rs.lists["scoring"]})
        fixed = dict(self.fixed)
        self.fixed.clear()
        self.fixed.update(known)
        hand = self.scopes.hand()   # (each fact's type: its tree as fact_parts just checked it)
        trees = {f["name"]: self.checked.get((id(f["expr"]), False, hand.state, hand.action, hand.locals)) for f in self.rs.lists["facts"]}
        types = {fact: tree.type for fact, tree in trees.items() if tree is not None}
        try:   # (scored only where facts_scored cannot be made: the engine calls one of them)
            typed = self.step_parts(self.rs.lists["scoring"], set(self.scopes.fact_names), types)
            whole = fused_scored(out, self.scopes.fact_names, typed, known, fact_parts, RESULT_LEADING)
            if whole is not None:
                return None, whole
            parts = self.step_parts(self.rs.lists["scoring"], set(self.scopes.fact_names))
        finally:
            self.fixed.clear()
            self.fixed.update(fixed)
        return fused_scored(out, self.scopes.fact_names, parts, known), None

    def scoring(self) -> None:
        builder, scopes = self.builder, self.scopes
        fact_parts = self.fact_parts()
        self.facts = [(name, fact_id, builder.add("S", value)) for fact_id, name, value in fact_parts]
        self.scoring_steps, step_parts = self.steps(self.rs.lists["scoring"], set(scopes.fact_names))
        self.facts_all = fused_facts(builder, fact_parts)
        self.steps_all = fused_steps(builder, step_parts)
        self.scored_fn = fused_scored(builder, scopes.fact_names, step_parts, {})
        self.match, _ = self.steps(self.rs.lists["match"], set(MATCH_CONTEXT))
        # The facts, then the facts and the steps, read back off the namespace as records (a dict
        # display of checked names: one instruction, where building a dict from pairs takes 3 us).
        self.facts_of = builder.add("V", record_of(scopes.fact_names), prefix="facts_of")
        self.score_of = builder.add("V", record_of(scopes.fact_names + scopes.score_names), prefix="score_of")

    def keyed(self) -> None:
        """Each derived value that reads only state fields of a few values, as a table keyed by
        them, filled as positions ask (passes/keyed.py); read first by its f_<name>."""
        scopes = self.scopes
        trees = [*self.checked.values(), *self.template_trees, *(entry[1] for entry in scopes.inline.values()),
                 *(entry[0] for entry in scopes.derived.values())]
        values = compared(trees, scopes.constants)
        functions = {fn.name: k for k, fn in enumerate(self.builder.functions)}
        replaced = set()
        for name in scopes.derived:
            fn_name = f"f_{name}"
            if fn_name not in functions:
                continue
            k = functions[fn_name]
            if isinstance(self.builder.bodies[fn_name], ast.Constant):   # (a knob folded it: no memo)
                self.builder.functions[k] = constant_function(fn_name, self.builder.bodies[fn_name])
                replaced.add(fn_name)
                continue
            fields = key_fields(name, scopes, self.table.seats, self.deck.suits, values, scopes.base["knobs_as_data"])
            if fields is None:
                continue
            front, behind = keyed_function(fn_name, name, fields, self.builder.functions[k], read_only(name, trees))
            self.builder.functions[k] = front
            self.builder.functions.append(behind)
            self.builder.statements += table_statements(name, fields)
            replaced.add(fn_name)
        # the others kept across events while no effect writes what they read (passes/kept.py)
        self.kept_reads = keep_derived(self.builder, [d for d in self.memoised if d[0] not in replaced],
                                       scopes.state_init)

    # 4 ---------------------------------------------------------------------------------------
    def fuse(self) -> None:
        builder = self.builder
        for name, parts in self.fused.items():
            phase = self.compiled_phases[name]
            phase.narrow_over_cards = phase.kind == "tricks" and all(reads_only_card(f[2]) for f in parts.get("filter", []))
            phase.narrow = fused_narrow(builder, parts.get("filter", []), candidates_of(phase), phase.narrow_over_cards)
            phase.narrows = (phase.narrow,) * self.seats if phase.kind == "tricks" else ()
            phase.check = fused_check(builder, parts.get("check", []))
            phase.effects = {on: fused_effects(builder, parts.get(on, []), domains_of(phase.actions) if on == "action" else None,
                                               self.kept_reads) for on in ("action", "enter", "exit")}
            phase.check_guard = guard_fn(builder, parts.get("check", []))
            phase.action_guard = guard_fn(builder, parts.get("action", []))
            phase.refusal_guard = refusal_fn(builder, parts.get("check", []))
        for phase in self.compiled_phases.values():
            if phase.narrow is None:
                phase.narrow_over_cards = phase.kind == "tricks"
                phase.narrow, phase.check = fused_narrow(builder, []), fused_check(builder, [])
                phase.narrows = (phase.narrow,) * self.seats if phase.kind == "tricks" else ()
                phase.effects = {on: fused_effects(builder, []) for on in ("action", "enter", "exit")}
                phase.check_guard = phase.action_guard = guard_fn(builder, [])

    # 5 ---------------------------------------------------------------------------------------
    def plan(self) -> dict:
        """Everything the engine needs, with generated functions named, not bound: what a later
        process reads back from the disk cache instead of compiling the variant again."""
        rs, scopes, phases = self.rs, self.scopes, self.compiled_phases
        first_phase = rs.lists["phases"][0]["name"] if rs.lists["phases"] else None
        if "bidding" in phases:
            first_phase = "bidding"
        return {"deal": dict(rs.single["deal"]), "state_init": scopes.state_init, "phases": phases,
                "first_phase": first_phase, "facts": self.facts, "scoring": self.scoring_steps, "match": self.match,
                "functions": list(scopes.functions), "constants": scopes.constants,
                "indexable": sorted(scopes.indexable), "rules_by_id": self.rules_by_id, "source": self.builder.source(),
                "facts_all": self.facts_all, "steps_all": self.steps_all, "facts_of": self.facts_of,
                "score_of": self.score_of, "scored": self.scored_fn, "held_by_effects": sorted(self.held)}


def _kept(test: ast.expr) -> ast.ListComp:
    """`[A for A in C if test]`: a filter's whole-list form (one call per position)."""
    loop = ast.comprehension(target=ast.Name(id="A", ctx=ast.Store()), iter=ast.Name(id="C", ctx=ast.Load()),
                             ifs=[test], is_async=0)
    return ast.ListComp(elt=ast.Name(id="A", ctx=ast.Load()), generators=[loop])
