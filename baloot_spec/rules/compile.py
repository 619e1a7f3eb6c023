"""Compile a resolved variant into callables: one generated Python module per variant.

Every expression of the variant is checked (names, knobs, arity) and translated by
`expr.compiler`; the translations are assembled into one module of small functions, compiled
with the builtin `compile` and cached by the variant hash. Rule text never reaches `exec`: only
source generated from the checked tree does, and its globals are the documented builtins, the
constants, and a restricted set of Python builtins. What the compilation makes (a plan: the
generated source, and phases and rules that name its functions) is bound to callables in
compiled.py, which also reads it back from the disk cache in later processes.
"""

from __future__ import annotations

import ast
import itertools
from keyword import iskeyword

from ..cards import Card
from ..engine.state import ENGINE_LISTS, Play, Trick
from ..errors import RulesError
from ..suggest import did_you_mean
from ..expr.builtins import Rec, builtin_arity
from ..expr.emit import emit as emit_expression
from ..expr.parser import TREES, parse_expression
from ..expr.resolve import check as check_expression
from ..expr.scope import AGGREGATES, Scope
from ..expr.unroll import short_lists, unroll
from . import cache as disk_cache
from .compiled import (CompiledEffect, CompiledPhase, CompiledRule, CompiledRules, bind_phase, cached_phase,
                       instantiate, store_phase_code, store_plan, table_and_deck)
from .fuse import fused_check, fused_effects, fused_facts, fused_narrow, fused_steps, guard_fn, phase_fn, record_of
from .loader import Variant
from .module import ModuleBuilder
from .passes.cards import reads_only_card
from .passes.flow import following as phases_following, written_after
from .passes.lazy_maps import held_containers, lazy_maps as lazy_map_values
from .source import source_of as _source_of, text_of as _text_of
from .template import template

# Fields the generic engine provides on the state of a hand (see engine/state.py).
GENERIC_STATE = frozenset({
    "dealer", "actor", "phase", "public", "hands", "hand", "initial", "dealt", "trick", "tricks",
    "played", "match_scores", "all_cards", "all_seats", "suits", "exposed",
})
# Attributes of the generic values: cards, plays in a trick, finished tricks.
GENERIC_ATTRIBUTES = frozenset({"suit", "rank", "seat", "card", "leader", "plays", "winner", "cards"})
# The attribute names any other value a rule can hold has of its own (a card's `text`, a string's
# `count`, a list's `index`, a record's `items`): never read as a record field by subscript (see
# Scope.record_fields; a play's annotations are left out where they are declared).
_PYTHON_ATTRIBUTES = frozenset([name for kind in (str, int, float, bool, list, tuple, dict, type(None), Rec,
                                                  Card, Play, Trick)
                                 for name in dir(kind)] + list(Play._own))   # (a play's slots are its subclass's)
MATCH_CONTEXT = frozenset({"scores", "hand"})


def _names_in(text: str) -> set[str]:
    """The bare names an expression uses (e.g. the announcement a check rule is about)."""
    return {str(node.children[0]) for node in parse_expression(text).iter_subtrees() if node.data == "name"}


def _record_fields(text: str) -> set[str]:
    tree = parse_expression(text)
    found = set()
    for node in tree.iter_subtrees():
        if node.data == "record":
            found.update(str(f.children[0]) for f in node.children if f is not None)
    return found



def compile_variant(variant: Variant, plan_key: str | None = None, observe=None) -> CompiledRules:
    """Check and compile every expression of a resolved variant. With `plan_key`, what the
    engine needs is also kept in the disk cache under that key (read back by compiled.from_plan).
    The expressions' parse trees are kept in the disk cache too (Lark is the slow part).
    `observe(scope, item_id)`, if given, is told the scope of every expression checked (what
    `baloot rules names` lists: rules/names.py)."""
    known_trees = len(TREES)
    if not known_trees:
        TREES.update(disk_cache.load("trees", "all") or {})
        known_trees = len(TREES)
    # Numbers inlined bodies' loop variables apart, one counter per generated module (so that
    # its source depends on the rules alone, and can be found again in the disk cache).
    inline_names = [itertools.count(1)]
    rs = variant.ruleset
    deal_def = rs.single["deal"]
    table, deck = table_and_deck(variant)
    constants = {name: _plain(value) for name, value in rs.maps["constants"].items()}
    for name, spec in rs.maps["state"].items():
        if iskeyword(name) or name in GENERIC_STATE:
            where = spec.location() if hasattr(spec, "location") else None
            raise RulesError(f"state {name!r} cannot be declared: "
                             + ("it is a field the engine keeps" if name in GENERIC_STATE else "it is a reserved word"), where)
    state_init = {name: _plain(spec["initial"]) for name, spec in rs.maps["state"].items()}

    # Everything a value may have as an attribute: generic ones, record fields, annotations.
    attributes = set(GENERIC_ATTRIBUTES)
    annotations: set = set()   # (a play's own fields: never read as a record's)
    action_fields: dict[str, set] = {}
    for phase in rs.lists["phases"]:
        fields = set()
        for params in (phase.get("actions") or {}).values():
            fields.update(params)
        if phase.get("kind") == "tricks":
            fields.add("card")
            fields.update(phase.get("annotations", {}))
        action_fields[phase["name"]] = fields
        annotations.update(phase.get("annotations", {}))
    attributes |= annotations
    for _section, item in rs.items():
        for key in ("expr", "when", "only", "require"):
            if isinstance(item.get(key), str):
                try:
                    attributes |= _record_fields(item[key])
                except Exception:
                    pass  # syntax errors are reported, located, when the expression compiles
        for value in (item.get("set") or {}).values():
            if isinstance(value, str):
                try:
                    attributes |= _record_fields(value)
                except Exception:
                    pass

    fact_names = [step["name"] for step in rs.lists["facts"]]
    score_names = [step["name"] for step in rs.lists["scoring"]]
    attributes.update(score_names)  # a match step reads the hand's result as hand.<step name>
    match_names = [step["name"] for step in rs.lists["match"]]
    hand_state = GENERIC_STATE | set(state_init)
    functions = {f["name"]: len(f.get("params") or []) for f in rs.lists["functions"]}
    _refuse_shadowing(rs.lists["functions"])
    indexable = frozenset(name for name, value in constants.items()
                          if isinstance(value, list) and all(isinstance(v, (str, int)) for v in value))
    inline: dict = {}   # filled below, function by function, once each body has been checked
    derived: dict = {}  # the same for zero-argument functions (used by specialised phases only)
    record_fields = frozenset(a for a in attributes if a not in GENERIC_ATTRIBUTES and a not in annotations
                              and a not in _PYTHON_ATTRIBUTES)
    base = dict(functions=functions, builtins=builtin_arity(), params=dict(variant.knobs),
                consts=frozenset(constants), attributes=frozenset(attributes), record_fields=record_fields,
                engine_lists=ENGINE_LISTS, inline=inline, indexable=indexable,
                seats=len(table.seats), derived=derived, const_values=constants,
                engine_fields=GENERIC_STATE)
    any_state = frozenset(hand_state | set(fact_names) | set(score_names) | set(match_names) | MATCH_CONTEXT)

    # (a function may be called where a fact, a step or the match context reuses an engine name)
    function_engine_fields = GENERIC_STATE - set(fact_names) - set(score_names) - set(match_names) - MATCH_CONTEXT

    builder = ModuleBuilder()

    fixed_values: dict = {}   # set only while a phase is being specialised

    short = short_lists(constants)   # loops over these are written out (expr/unroll.py)

    function_types: dict = {}   # rule function -> the type of its body (expr/types.py), once checked

    checked: dict = {}   # (the same rule re-emitted for a specialised phase is checked once)

    def expr(value, scope: Scope, rule_id: str, written_out: bool = True, boolean: bool = False,
             tree=None) -> ast.expr:
        """The Python `ast` of one expression of the rules: parsed, resolved and typed (a located
        RulesError if it cannot work), then emitted with the phase's fixed state folded in."""
        if observe is not None:
            observe(scope, rule_id)
        if tree is None:
            key = (id(value), boolean, scope.state, scope.action, scope.locals)
            tree = checked.get(key)
            if tree is None:
                tree = checked[key] = check_expression(_text_of(value), scope, _source_of(value), rule_id,
                                                       function_types, boolean)
        node = emit_expression(tree, scope, fixed_values or None, inline_names[0])
        return unroll(node, short) if written_out else node

    # Functions rules define. Each body is checked first, in the order written, and only then
    # offered for inlining (an error is located in its own body, never at a call site); the code
    # is written in a second pass, when every checked body can be inlined wherever it is called
    # (a function calling one defined further down was otherwise left as a call).
    scopes, trees = {}, []   # (each function's checked tree, in order)
    for fn in rs.lists["functions"]:
        params = tuple(fn.get("params") or [])
        scope = scopes[fn["name"]] = Scope(state=any_state - set(params), locals=frozenset(params),
                                           **{**base, "engine_fields": function_engine_fields})
        tree = check_expression(_text_of(fn["expr"]), scope, _source_of(fn["expr"]), fn["id"], function_types)
        function_types[fn["name"]] = tree.type
        trees.append(tree)
        if params:
            inline[fn["name"]] = (params, tree, scope)
        else:
            derived[fn["name"]] = (tree, scope)
    for fn in rs.lists["functions"]:
        params = tuple(fn.get("params") or [])
        body = expr(fn["expr"], scopes[fn["name"]], fn["id"], tree=trees.pop(0))
        if params:
            builder.add_named(f"f_{fn['name']}", ", ".join(("S",) + tuple(f"v_{p}" for p in params)), body)
        else:
            # A derived value (led_suit, winning...): computed once per position. The engine gives
            # each position a fresh S._memo; other contexts (scoring facts) have none.
            builder.add_memoized(f"f_{fn['name']}", fn["name"], body)

    rules_by_id = {}
    fused: dict[str, dict] = {}   # phase -> sources of its rules and effects, for the fused functions
    phases: dict[str, CompiledPhase] = {}
    next_texts: dict[str, ast.expr] = {}   # phase -> its `next` as Python (which phases can follow)
    for ph in rs.lists["phases"]:
        scope = Scope(state=frozenset(hand_state), **base)
        next_texts[ph["name"]] = expr(ph["next"], scope, ph["id"])
        # (plain str: the engine compares these on every event, and CPython 3.11 specialises a
        # comparison or a dict lookup only for exact str, not the loader's located strings; they
        # are interned with the rest of the plan's strings, compiled.interned)
        cp = CompiledPhase(name=str(ph["name"]), kind=str(ph["kind"]), id=str(ph["id"]), source=ph.get("source"),
                           next=phase_fn(builder, "next", ph, next_texts[ph["name"]]))
        if ph["kind"] == "calls":
            for action, params in ph["actions"].items():
                cp.actions[action] = {name: (list(deck.suits) if dom == "suits" else [_plain(v) for v in dom])
                                      for name, dom in params.items()}
            cp.turn = phase_fn(builder, "turn", ph, expr(ph["turn"], scope, ph["id"]))
            cp.end = phase_fn(builder, "end", ph, expr(ph["end"], scope, ph["id"]))
        elif ph["kind"] == "tricks":
            cp.action = str(ph["action"])
            cp.annotations = {name: _plain(spec["default"]) for name, spec in ph.get("annotations", {}).items()}
            cp.leader = phase_fn(builder, "leader", ph, expr(ph["leader"], scope, ph["id"]))
            cp.winner = phase_fn(builder, "winner", ph, expr(ph["winner"], scope, ph["id"]))
        elif ph["kind"] == "deal_rest":
            cp.taker = phase_fn(builder, "taker", ph, expr(ph["taker"], scope, ph["id"]))
        cp.fixed = tuple(str(name) for name in ph.get("fixed") or ())
        for name in cp.fixed:
            if name not in state_init:
                raise RulesError(f"phase {ph['name']!r} fixes {name!r}, which is not a declared state variable",
                                 ph.key_location("fixed"), ph["id"])
        if ph["name"] in phases:
            raise RulesError(f"phase {ph['name']!r} is defined twice", ph.location(), ph["id"])
        phases[cp.name] = cp

    def rule_sources(rule) -> tuple:
        """(kind, scope, when, test) of a rule, `when` and `test` as emitted `ast`."""
        scope = Scope(state=frozenset(hand_state - action_fields[rule["phase"]]),
                      action=frozenset(action_fields[rule["phase"]]), **base)
        kind = "filter" if "only" in rule else "check"
        # A filter's `when` is evaluated once per position, before looking at candidates; a
        # check's looks at the announcements made with the action.
        when_scope = Scope(state=scope.state, **base) if kind == "filter" else scope
        return (kind, scope, expr(rule.get("when", True), when_scope, rule["id"], boolean=True),
                expr(rule["only"] if kind == "filter" else rule["require"], scope, rule["id"], boolean=True))

    def effect_sources(effect, lazy_maps: bool = False) -> tuple:
        """(at, when, values) of an effect as emitted `ast`; with lazy_maps, an enter effect's
        maps that can be are LazyMaps (found before loops are written out: passes/lazy_maps.py)."""
        on = effect.get("at", "action")
        fields = action_fields[effect["phase"]] if on == "action" else set()
        scope = Scope(state=frozenset(hand_state - fields), action=frozenset(fields), **base)
        values = ast.Tuple(elts=[expr(v, scope, effect["id"], written_out=False) for v in effect["set"].values()],
                           ctx=ast.Load())
        if lazy_maps and on == "enter":   # (entering a phase: never part of a specialised phase's code)
            values = lazy_map_values(builder, effect["id"], values, written_after(rs.lists["effects"], effect, phases, following))
        return on, expr(effect.get("when", True), scope, effect["id"], boolean=True), unroll(values, short)

    for rule in rs.lists["rules"]:
        phase = phases.get(rule["phase"])
        if phase is None:
            raise RulesError(f"unknown phase {rule['phase']!r}{did_you_mean(rule['phase'], phases)} (phases: {', '.join(phases)})", rule.key_location("phase"), rule["id"])
        kind, scope, when_src, test_src = rule_sources(rule)
        when = builder.add("S" if kind == "filter" else "S, A", when_src)
        if kind == "check":
            reads = _names_in(_text_of(rule.get("when", True))) & action_fields[rule["phase"]]
        fused.setdefault(rule["phase"], {}).setdefault(kind, []).append(
            (rule["id"], when_src, test_src, bool(rule.get("if_possible", False))))
        test = builder.add("S, A", test_src)
        # A filter also gets a whole-list form: one call per position instead of one per candidate.
        keep = builder.add("S, C", _kept(test_src)) if kind == "filter" else None
        explain = template(builder, rule.get("explain") or rule["id"], scope, rule["id"])
        compiled = CompiledRule(rule["id"], rule["phase"], kind, when, test, bool(rule.get("if_possible", False)),
                                explain, rule.get("source"), keep, frozenset(reads) if kind == "check" else frozenset())
        (phase.filters if kind == "filter" else phase.checks).append(compiled)
        rules_by_id[rule["id"]] = compiled

    following = phases_following(next_texts)   # (which phases can follow each one: for lazy maps)
    held = set()   # the containers the engine changes in place that an effect's value may hold
    for effect in rs.lists["effects"]:
        phase = phases.get(effect["phase"])
        if phase is None:
            raise RulesError(f"unknown phase {effect['phase']!r}{did_you_mean(effect['phase'], phases)}", effect.key_location("phase"), effect["id"])
        for name in effect["set"]:
            if name not in state_init:
                raise RulesError(f"effect sets {name!r}, which is not a declared state variable (state: in rules/*.yaml)",
                                 effect["set"].key_location(name), effect["id"])
            if name in phase.fixed and effect.get("at", "action") != "enter":
                raise RulesError(f"effect sets {name!r}, which phase {phase.name!r} declares fixed",
                                 effect["set"].key_location(name), effect["id"])
        on, when_src, values_src = effect_sources(effect, lazy_maps=True)
        held |= held_containers(values_src, builder.bodies)
        when = builder.add("S, A", when_src)
        values = builder.add("S, A", values_src)
        fused.setdefault(effect["phase"], {}).setdefault(on, []).append(
            (effect["id"], when_src, values_src, tuple(effect["set"])))
        compiled = CompiledEffect(effect["id"], when, tuple(effect["set"]), values, effect.get("source"))
        {"action": phase.on_action, "enter": phase.on_enter, "exit": phase.on_exit}[on].append(compiled)

    def fact_texts() -> list:
        """(id, name, emitted `ast`) of each fact, in order (a specialised phase's fixed state
        folded in while one is being compiled)."""
        scope = Scope(state=frozenset(hand_state), **base)
        return [(step["id"], step["name"], expr(step["expr"], scope, step["id"])) for step in rs.lists["facts"]]

    fact_sources = fact_texts()
    facts = [(name, fact_id, builder.add("S", text)) for fact_id, name, text in fact_sources]
    scoring, step_sources = _steps(builder, rs.lists["scoring"], set(fact_names), base, expr)
    def specializer(phase_name: str, values: tuple) -> CompiledPhase:
        """Compile `phase_name` again with its fixed state folded in (the rules were checked
        above: this only re-emits them). The code is kept in the disk cache (compiled.py)."""
        found = cached_phase(rules, namespace, phase_name, values)
        if found is not None:
            return found
        names, code = _specialized_code(phases[phase_name], phase_name, values)
        store_phase_code(source, phase_name, values, names, code)
        return bind_phase(phases[phase_name], names, code, namespace)

    def _specialized_code(generic, phase_name: str, values: tuple):
        item = next(ph for ph in rs.lists["phases"] if ph["name"] == phase_name)
        fixed_values.update(zip(generic.fixed, values))
        inline_names[0] = itertools.count(1)
        try:
            out = ModuleBuilder()
            parts: dict = {"filter": [], "check": [], "action": [], "exit": []}
            for rule in rs.lists["rules"]:
                if rule["phase"] == phase_name:
                    kind, _scope, when_src, test_src = rule_sources(rule)
                    parts[kind].append((rule["id"], when_src, test_src, bool(rule.get("if_possible", False))))
            for effect in rs.lists["effects"]:
                if effect["phase"] == phase_name and effect.get("at", "action") != "enter":
                    on, when_src, values_src = effect_sources(effect)
                    parts[on].append((effect["id"], when_src, values_src, tuple(effect["set"])))
            scope = Scope(state=frozenset(hand_state), **base)
            names = {"narrow": fused_narrow(out, parts["filter"], _candidates_of(generic), generic.narrow_over_cards), "check": fused_check(out, parts["check"]),
                     "action": fused_effects(out, parts["action"]), "exit": fused_effects(out, parts["exit"]),
                     "next": phase_fn(out, "next", item, expr(item["next"], scope, item["id"])),
                     "check_guard": guard_fn(out, parts["check"]), "action_guard": guard_fn(out, parts["action"])}
            if generic.kind == "tricks":
                names["winner"] = phase_fn(out, "winner", item, expr(item["winner"], scope, item["id"]))
            if generic.kind == "calls":
                names["turn"] = phase_fn(out, "turn", item, expr(item["turn"], scope, item["id"]))
                names["end"] = phase_fn(out, "end", item, expr(item["end"], scope, item["id"]))
            if generic.kind == "score":   # the facts with the contract folded in (no Hokum tests in a Sun)
                names["facts_all"] = fused_facts(out, fact_texts())
        finally:
            fixed_values.clear()
        return names, compile(out.source(), f"<rules {variant.hash} {phase_name} {values!r}>", "exec")

    facts_all = fused_facts(builder, fact_sources)
    steps_all = fused_steps(builder, step_sources)
    match, _ = _steps(builder, rs.lists["match"], set(MATCH_CONTEXT), base, expr)
    # The facts, then the facts and the steps, read back off the namespace as records (a dict
    # display of checked names: one instruction, where building a dict from pairs takes 3 us).
    facts_of = builder.add("V", record_of(fact_names), prefix="facts_of")
    score_of = builder.add("V", record_of(fact_names + score_names), prefix="score_of")

    for name, parts in fused.items():
        phase = phases[name]
        phase.narrow_over_cards = phase.kind == "tricks" and all(reads_only_card(f[2]) for f in parts.get("filter", []))
        phase.narrow = fused_narrow(builder, parts.get("filter", []), _candidates_of(phase), phase.narrow_over_cards)
        phase.check = fused_check(builder, parts.get("check", []))
        phase.effects = {on: fused_effects(builder, parts.get(on, [])) for on in ("action", "enter", "exit")}
        phase.check_guard = guard_fn(builder, parts.get("check", []))
        phase.action_guard = guard_fn(builder, parts.get("action", []))
    for phase in phases.values():
        if phase.narrow is None:
            phase.narrow_over_cards = phase.kind == "tricks"
            phase.narrow, phase.check = fused_narrow(builder, []), fused_check(builder, [])
            phase.effects = {on: fused_effects(builder, []) for on in ("action", "enter", "exit")}
            phase.check_guard = phase.action_guard = guard_fn(builder, [])

    first_phase = rs.lists["phases"][0]["name"] if rs.lists["phases"] else None
    if "bidding" in phases:
        first_phase = "bidding"
    # Everything the engine needs, with generated functions named, not bound: what a later
    # process reads back from the disk cache instead of compiling the variant again.
    plan = {"deal": dict(deal_def), "state_init": state_init, "phases": phases,
            "first_phase": first_phase, "facts": facts, "scoring": scoring, "match": match,
            "functions": list(functions), "constants": constants, "indexable": sorted(indexable),
            "rules_by_id": rules_by_id, "source": builder.source(), "facts_all": facts_all, "steps_all": steps_all,
            "facts_of": facts_of, "score_of": score_of, "held_by_effects": sorted(held)}
    if plan_key is not None:
        store_plan(plan_key, plan)   # (pickled now, before the names are bound to functions)
    source = plan["source"]
    rules, namespace = instantiate(variant, plan)
    rules.specializer = specializer
    if len(TREES) > known_trees:
        disk_cache.store("trees", "all", dict(TREES))
    return rules


def _steps(builder, items, context: set, base: dict, expr) -> tuple[list, list]:
    """Steps that each see the context and the steps before them: [(name, id, function)], and
    [(id, name, emitted `ast`)] for fusing."""
    names = set(context)
    out, sources = [], []
    for step in items:
        scope = Scope(state=frozenset(names), **{**base, "engine_fields": frozenset()})   # (facts reuse engine names)
        text = expr(step["expr"], scope, step["id"])
        out.append((step["name"], step["id"], builder.add("S", text)))
        sources.append((step["id"], step["name"], text))
        names.add(step["name"])
    return out, sources



def _candidates_of(phase) -> list | None:
    return phase.call_candidates() if phase.kind == "calls" else None



def _plain(value):
    """YAML values as plain Python (lists, dicts with str keys where YAML gave ints for names).
    (The rules' strings are interned when the plan is instantiated: compiled.interned.)"""
    if isinstance(value, dict):
        return {(k if isinstance(k, (int, bool)) else str(k)): _plain(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_plain(v) for v in value]
    if isinstance(value, str):
        return str(value)
    return value


def _refuse_shadowing(functions) -> None:
    """A function the rules define may not take the name of a builtin or an aggregate: `len(x)`
    would silently mean the rules' function in one place and the builtin in every reader's mind."""
    reserved = set(builtin_arity()) | AGGREGATES
    for fn in functions:
        if fn["name"] in reserved:
            location = fn["name"].location() if hasattr(fn["name"], "location") else None
            raise RulesError(f"function {fn['name']!r} has the name of a builtin: choose another name", location, fn["id"])


def _kept(test: ast.expr) -> ast.ListComp:
    """`[A for A in C if test]`: a filter's whole-list form (one call per position)."""
    loop = ast.comprehension(target=ast.Name(id="A", ctx=ast.Store()), iter=ast.Name(id="C", ctx=ast.Load()),
                             ifs=[test], is_async=0)
    return ast.ListComp(elt=ast.Name(id="A", ctx=ast.Load()), generators=[loop])
