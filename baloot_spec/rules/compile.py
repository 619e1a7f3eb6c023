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
import operator
import re
from functools import lru_cache
from keyword import iskeyword

from ..cards import Card
from ..engine.state import ENGINE_LISTS, ENGINE_WRITES, IN_PLACE, Play, Trick
from ..errors import RulesError
from ..suggest import did_you_mean
from ..expr.builtins import Rec, builtin_arity
from ..expr.compiler import AGGREGATES, LAZY_LOCAL, Scope, lazy_locals_prelude, python_text, to_python
from ..expr.emit import emit as emit_expression
from ..expr.lower import lower_module
from ..expr.parser import TREES, ExprSource, parse_expression
from ..expr.resolve import check as check_expression
from ..expr.unroll import short_lists, unroll, unroll_tree
from . import cache as disk_cache
from .compiled import (CompiledEffect, CompiledPhase, CompiledRule, CompiledRules, bind_phase, cached_phase,
                       instantiate, store_phase_code, store_plan, table_and_deck)
from .loader import Variant
from .source import source_of as _source_of, text_of as _text_of

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


class _ModuleBuilder:
    """Collects generated function definitions and compiles them together."""

    def __init__(self):
        self.lines: list[str] = []
        self.count = 0
        self.bodies: dict[str, str] = {}   # function name -> the expression it returns

    def add(self, args: str, body: str, prefix: str = "g") -> str:
        self.count += 1
        name = f"{prefix}{self.count}"
        self.add_named(name, args, body)
        return name

    def add_named(self, name: str, args: str, body: str) -> None:
        self.bodies[name] = body
        prelude = "".join(f"    {line}\n" for line in lazy_locals_prelude(body))
        self.lines.append(f"def {name}({args}):\n{prelude}    return {body}\n")

    def add_memoized(self, name: str, key: str, body: str) -> None:
        self.bodies[name] = body
        # No exception on either path: a miss is as common as a hit (the memo lives one position).
        prelude = "".join(f"    {line}\n" for line in lazy_locals_prelude(body))
        self.lines.append(
            f"def {name}(S):\n"
            f"{prelude}"
            f"    try:\n"
            f"        memo = S._memo\n"
            f"    except _AttributeError:  # a context without a memo (scoring facts)\n"
            f"        return {body}\n"
            f"    value = memo.get({key!r}, _MISSING)\n"
            f"    if value is _MISSING:\n"
            f"        value = memo[{key!r}] = {body}\n"
            f"    return value\n")

    def source(self) -> str:
        """The module, its comprehensions written out as loops (expr/lower.py), function by
        function."""
        return "\n".join(map(lower_module, self.lines))


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

    builder = _ModuleBuilder()

    fixed_values: dict = {}   # set only while a phase is being specialised

    short = short_lists(constants)   # loops over these are written out (expr/unroll.py)

    function_types: dict = {}   # rule function -> the type of its body (expr/types.py), once checked

    checked: dict = {}   # (the same rule re-emitted for a specialised phase is checked once)

    def expr(value, scope: Scope, rule_id: str, written_out: bool = True, boolean: bool = False,
             tree=None) -> str:
        """The Python text of one expression of the rules: parsed, resolved and typed (a located
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
        return python_text(unroll_tree(node, short) if written_out else node)

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
    next_texts: dict[str, str] = {}   # phase -> its `next` as Python (which phases can follow)
    for ph in rs.lists["phases"]:
        scope = Scope(state=frozenset(hand_state), **base)
        next_texts[ph["name"]] = expr(ph["next"], scope, ph["id"])
        # (plain str: the engine compares these on every event, and CPython 3.11 specialises a
        # comparison or a dict lookup only for exact str, not the loader's located strings; they
        # are interned with the rest of the plan's strings, compiled.interned)
        cp = CompiledPhase(name=str(ph["name"]), kind=str(ph["kind"]), id=str(ph["id"]), source=ph.get("source"),
                           next=_phase_fn(builder, "next", ph, next_texts[ph["name"]]))
        if ph["kind"] == "calls":
            for action, params in ph["actions"].items():
                cp.actions[action] = {name: (list(deck.suits) if dom == "suits" else [_plain(v) for v in dom])
                                      for name, dom in params.items()}
            cp.turn = _phase_fn(builder, "turn", ph, expr(ph["turn"], scope, ph["id"]))
            cp.end = _phase_fn(builder, "end", ph, expr(ph["end"], scope, ph["id"]))
        elif ph["kind"] == "tricks":
            cp.action = str(ph["action"])
            cp.annotations = {name: _plain(spec["default"]) for name, spec in ph.get("annotations", {}).items()}
            cp.leader = _phase_fn(builder, "leader", ph, expr(ph["leader"], scope, ph["id"]))
            cp.winner = _phase_fn(builder, "winner", ph, expr(ph["winner"], scope, ph["id"]))
        elif ph["kind"] == "deal_rest":
            cp.taker = _phase_fn(builder, "taker", ph, expr(ph["taker"], scope, ph["id"]))
        cp.fixed = tuple(str(name) for name in ph.get("fixed") or ())
        for name in cp.fixed:
            if name not in state_init:
                raise RulesError(f"phase {ph['name']!r} fixes {name!r}, which is not a declared state variable",
                                 ph.key_location("fixed"), ph["id"])
        if ph["name"] in phases:
            raise RulesError(f"phase {ph['name']!r} is defined twice", ph.location(), ph["id"])
        phases[cp.name] = cp

    def rule_sources(rule) -> tuple:
        """(kind, scope, when, test) of a rule, as Python text."""
        scope = Scope(state=frozenset(hand_state - action_fields[rule["phase"]]),
                      action=frozenset(action_fields[rule["phase"]]), **base)
        kind = "filter" if "only" in rule else "check"
        # A filter's `when` is evaluated once per position, before looking at candidates; a
        # check's looks at the announcements made with the action.
        when_scope = Scope(state=scope.state, **base) if kind == "filter" else scope
        return (kind, scope, expr(rule.get("when", True), when_scope, rule["id"], boolean=True),
                expr(rule["only"] if kind == "filter" else rule["require"], scope, rule["id"], boolean=True))

    def effect_sources(effect, lazy_maps: bool = False) -> tuple:
        """(at, when, values) of an effect, as Python text; with lazy_maps, an enter effect's
        maps that can be are LazyMaps (found before loops are written out, see _lazy_maps)."""
        on = effect.get("at", "action")
        fields = action_fields[effect["phase"]] if on == "action" else set()
        scope = Scope(state=frozenset(hand_state - fields), action=frozenset(fields), **base)
        values = "(" + "".join(expr(v, scope, effect["id"], written_out=False) + ", " for v in effect["set"].values()) + ")"
        if lazy_maps and on == "enter":   # (entering a phase: never part of a specialised phase's code)
            values = _lazy_maps(builder, effect["id"], values, _written_after(rs.lists["effects"], effect, phases, following))
        return on, expr(effect.get("when", True), scope, effect["id"], boolean=True), unroll(values, short)

    for rule in rs.lists["rules"]:
        phase = phases.get(rule["phase"])
        if phase is None:
            raise RulesError(f"unknown phase {rule['phase']!r}{did_you_mean(rule['phase'], phases)} (phases: {', '.join(phases)})", rule.key_location("phase"), rule["id"])
        kind, scope, when_src, test_src = rule_sources(rule)
        when = _fn(builder, "S" if kind == "filter" else "S, A", when_src)
        if kind == "check":
            reads = _names_in(_text_of(rule.get("when", True))) & action_fields[rule["phase"]]
        fused.setdefault(rule["phase"], {}).setdefault(kind, []).append(
            (rule["id"], when_src, test_src, bool(rule.get("if_possible", False))))
        test = _fn(builder, "S, A", test_src)
        # A filter also gets a whole-list form: one call per position instead of one per candidate.
        keep = builder.add("S, C", f"[A for A in C if {test_src}]") if kind == "filter" else None
        explain = _template(builder, rule.get("explain") or rule["id"], scope, rule["id"])
        compiled = CompiledRule(rule["id"], rule["phase"], kind, when, test, bool(rule.get("if_possible", False)),
                                explain, rule.get("source"), keep, frozenset(reads) if kind == "check" else frozenset())
        (phase.filters if kind == "filter" else phase.checks).append(compiled)
        rules_by_id[rule["id"]] = compiled

    following = _following(next_texts)   # (which phases can follow each one: for lazy maps)
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
        held |= _held_containers(values_src, builder.bodies)
        when = _fn(builder, "S, A", when_src)
        values = _fn(builder, "S, A", values_src)
        fused.setdefault(effect["phase"], {}).setdefault(on, []).append(
            (effect["id"], when_src, values_src, tuple(effect["set"])))
        compiled = CompiledEffect(effect["id"], when, tuple(effect["set"]), values, effect.get("source"))
        {"action": phase.on_action, "enter": phase.on_enter, "exit": phase.on_exit}[on].append(compiled)

    def fact_texts() -> list:
        """(id, name, Python text) of each fact, in order (a specialised phase's fixed state
        folded in while one is being compiled)."""
        scope = Scope(state=frozenset(hand_state), **base)
        return [(step["id"], step["name"], expr(step["expr"], scope, step["id"])) for step in rs.lists["facts"]]

    def fused_facts(out: _ModuleBuilder, sources: list) -> str:
        """facts_all(S): every fact, in order, set on a new scoring namespace."""
        return _guarded(out, "facts_all", "S", [f[0] for f in sources],
                        ["V = _Namespace()", *lazy_locals_prelude("\n".join(f[2] for f in sources))]
                        + [f"i = {k}\nV.{name} = {text}".replace("\n", "\n        ")
                           for k, (_id, name, text) in enumerate(sources)], "V")

    fact_sources = fact_texts()
    facts = [(name, fact_id, _fn(builder, "S", text)) for fact_id, name, text in fact_sources]
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
            out = _ModuleBuilder()
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
            names = {"narrow": _fused_narrow(out, parts["filter"], _candidates_of(generic), generic.narrow_over_cards), "check": _fused_check(out, parts["check"]),
                     "action": _fused_effects(out, parts["action"]), "exit": _fused_effects(out, parts["exit"]),
                     "next": _phase_fn(out, "next", item, expr(item["next"], scope, item["id"])),
                     "check_guard": _guard_fn(out, parts["check"]), "action_guard": _guard_fn(out, parts["action"])}
            if generic.kind == "tricks":
                names["winner"] = _phase_fn(out, "winner", item, expr(item["winner"], scope, item["id"]))
            if generic.kind == "calls":
                names["turn"] = _phase_fn(out, "turn", item, expr(item["turn"], scope, item["id"]))
                names["end"] = _phase_fn(out, "end", item, expr(item["end"], scope, item["id"]))
            if generic.kind == "score":   # the facts with the contract folded in (no Hokum tests in a Sun)
                names["facts_all"] = fused_facts(out, fact_texts())
        finally:
            fixed_values.clear()
        return names, compile(out.source(), f"<rules {variant.hash} {phase_name} {values!r}>", "exec")

    facts_all = fused_facts(builder, fact_sources)
    steps_all = _guarded(builder, "steps_all", "S", [f[0] for f in step_sources],
                         ["\n".join([f"i = {k}", *lazy_locals_prelude(text), f"S.{name} = {text}"]).replace("\n", "\n        ")
                          for k, (_id, name, text) in enumerate(step_sources)], "S")
    match, _ = _steps(builder, rs.lists["match"], set(MATCH_CONTEXT), base, expr)
    # The facts, then the facts and the steps, read back off the namespace as records (a dict
    # display of checked names: one instruction, where building a dict from pairs takes 3 us).
    facts_of = builder.add("V", _record_of(fact_names), prefix="facts_of")
    score_of = builder.add("V", _record_of(fact_names + score_names), prefix="score_of")

    for name, parts in fused.items():
        phase = phases[name]
        phase.narrow_over_cards = phase.kind == "tricks" and all(_reads_only_card(f[2]) for f in parts.get("filter", []))
        phase.narrow = _fused_narrow(builder, parts.get("filter", []), _candidates_of(phase), phase.narrow_over_cards)
        phase.check = _fused_check(builder, parts.get("check", []))
        phase.effects = {on: _fused_effects(builder, parts.get(on, [])) for on in ("action", "enter", "exit")}
        phase.check_guard = _guard_fn(builder, parts.get("check", []))
        phase.action_guard = _guard_fn(builder, parts.get("action", []))
    for phase in phases.values():
        if phase.narrow is None:
            phase.narrow_over_cards = phase.kind == "tricks"
            phase.narrow, phase.check = _fused_narrow(builder, []), _fused_check(builder, [])
            phase.effects = {on: _fused_effects(builder, []) for on in ("action", "enter", "exit")}
            phase.check_guard = phase.action_guard = _guard_fn(builder, [])

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
    [(id, name, Python text)] for fusing."""
    names = set(context)
    out, sources = [], []
    for step in items:
        scope = Scope(state=frozenset(names), **{**base, "engine_fields": frozenset()})   # (facts reuse engine names)
        text = expr(step["expr"], scope, step["id"])
        out.append((step["name"], step["id"], _fn(builder, "S", text)))
        sources.append((step["id"], step["name"], text))
        names.add(step["name"])
    return out, sources


def _record_of(names: list) -> str:
    """`_R({'a': V.a, ...})` of each name once, in order (names are checked identifiers)."""
    return "_R({" + ", ".join(f"{name!r}: V.{name}" for name in dict.fromkeys(names)) + "})"


def _fn(builder: _ModuleBuilder, args: str, body: str) -> str:
    return builder.add(args, body)


def _phase_fn(builder: _ModuleBuilder, what: str, phase: dict, text: str) -> str:
    """A phase's own expression (turn, end, next, leader, winner, taker) as f(S); a failure is
    a RuleRuntimeError named '<what> of <phase id>', raised by the function itself so that
    the engine calls it without a wrapper."""
    return _guarded(builder, what, "S", [f"{what} of {phase['id']}"], [*lazy_locals_prelude(text), f"R = {text}"], "R")


def _guarded(builder: _ModuleBuilder, prefix: str, args: str, ids: list, body: list[str], result: str,
             unless: str | None = None) -> str:
    """A fused function: `body` runs the rules in order, setting `i` to the index of the one
    running, so that a failing expression is still reported with its own rule id. With
    `unless`, a test that returns `result` at once when false (see _action_guard)."""
    builder.count += 1
    name = f"{prefix}{builder.count}"
    lines = [f"def {name}({args}):"]
    if unless:   # a guard that fails only falls through to the full run, which names the rule
        lines += ["    try:", f"        if not ({unless}):", f"            return {result}",
                  "    except _Exception:", "        pass"]
    lines += ["    i = 0", "    try:"]
    lines += ["        " + line for line in body] or ["        pass"]
    lines += ["    except _BalootError:", "        raise",
              "    except _Exception as exc:",
              f"        raise _RuleRuntimeError({tuple(ids)!r}[i], exc) from exc",
              f"    return {result}", ""]
    builder.lines.append("\n".join(lines))
    return name


def _candidates_of(phase) -> list | None:
    return phase.call_candidates() if phase.kind == "calls" else None


def _fused_narrow(builder: _ModuleBuilder, filters: list, candidates: list | None = None,
                  over_cards: bool = False) -> str:
    """All filter rules of a phase in order: keep the candidates `only` holds for; with
    if_possible, skip a rule that would keep nothing. Consecutive plain rules make one pass:
    a candidate must pass each of them whose `when` holds. If any expression fails, the
    function returns None and the engine re-runs the rules one by one to name the failing one.

    With `candidates` (a calls phase: the engine passes all of them, in that order), the first
    pass is written out per candidate with its fields folded in: a conjunct `A.call != 'x'` is
    true for every other call, so such a candidate is kept without testing it.

    With `over_cards` (a tricks phase whose filters read nothing of a play but its card, see
    _reads_only_card), the candidates are the cards themselves: the engine passes the hand
    as it is, without making a play of each card first."""
    if over_cards:
        filters = [(rule_id, when, _on_cards(test), if_possible) for rule_id, when, test, if_possible in filters]
    body, group = [], []
    whole = [candidates is not None]   # C is still the whole candidate list

    def flush():
        live = [(k, when, test) for k, when, test in group if when != "False"]
        group.clear()
        if not live:
            return
        tests = []
        for k, when, test in live:
            if when == "True":
                tests.append(f"({test})")
            else:
                body.append(f"w{k} = {when}")
                tests.append(f"(not w{k} or {test})")
        lifted, test = _hoisted(' and '.join(tests))
        lines = lifted + _kept_loop(test) + ["C = K"]
        if whole[0]:
            lines = lifted + _per_candidate(test, candidates)
        whole[0] = False
        if any(when == "True" for _, when, _ in live):
            body.extend(lines)
        else:   # no pass at all when no rule of the group applies
            body.extend([f"if {' or '.join(f'w{k}' for k, _, _ in live)}:", *("    " + line for line in lines)])

    for index, (_rule_id, when, test, if_possible) in enumerate(filters):
        if not if_possible:
            group.append((index, when, test))
            continue
        flush()
        if when == "False" or test == "False":   # never applies, or never keeps a card (then skipped)
            continue
        lifted, test = _hoisted(test)
        whole[0] = False
        body += [f"if {when}:", *("    " + line for line in lifted + _kept_loop(test)), "    if K:", "        C = K"]
    flush()
    lines = [f"def narrow{builder.count + 1}(S, C):", "    try:"]
    lines += ["        " + line for line in lazy_locals_prelude("\n".join(body)) + body] or ["        pass"]
    lines += ["    except _BalootError:", "        raise", "    except _Exception:",
              "        return None   # the engine names the failing rule", "    return C", ""]
    builder.count += 1
    builder.lines.append("\n".join(lines))
    return f"narrow{builder.count}"


def _kept_loop(test: str) -> list:
    """Lines that leave in K the candidates of C for which `test` holds, in order: a loop, not
    a list comprehension, which in CPython 3.11 makes a function object and a frame at every
    position (237 against 133 ns for five cards; `append` is specialised)."""
    return ["K = []", "for A in C:", f"    if {test}:", "        K.append(A)"]


def _lazy_maps(builder: _ModuleBuilder, effect_id: str, values: str, unstable: frozenset) -> str:
    """An effect's values (a tuple, as Python text) with each `map(...)` whose entries read only
    state in no way `unstable` made a LazyMap (expr/builtins.py): its entries are worked out when
    first read, from a copy of the fields they read taken now. Since nothing changes those fields
    for the rest of the hand, an entry is the same whenever it is worked out; what the entries
    read is found on the generated code, through the rule functions it calls. An entry that
    fails is reported under the effect's id, as the eager map's failure would be (only later:
    when it is first read)."""
    tree = ast.parse(values, mode="eval")
    changed = False
    for index, value in enumerate(tree.body.elts):
        comp = value.args[0] if (isinstance(value, ast.Call) and isinstance(value.func, ast.Name)
                                 and value.func.id == "_R" and len(value.args) == 1 and not value.keywords) else None
        if not (isinstance(comp, ast.DictComp) and len(comp.generators) == 1 and isinstance(comp.key, ast.Name)
                and isinstance(comp.generators[0].target, ast.Name) and comp.key.id == comp.generators[0].target.id
                and not comp.generators[0].is_async):
            continue
        reads = _state_reads(comp.value, builder.bodies)
        if reads is None or reads & unstable:
            continue
        loop = comp.generators[0]
        keys = ast.ListComp(elt=ast.Name(loop.target.id, ast.Load()), generators=[loop])
        entry_value = ast.unparse(comp.value)
        entry = _guarded(builder, "entry", f"S, {loop.target.id}", [effect_id],
                         [*lazy_locals_prelude(entry_value), f"R = {entry_value}"], "R")
        fields = tuple(sorted(reads - {"_memo"}))
        tree.body.elts[index] = ast.parse(f"_LazyMap({ast.unparse(keys)}, {entry}, S, {fields!r})", mode="eval").body
        changed = True
    return ast.unparse(tree.body) if changed else values


def _held_containers(values: str, bodies: dict) -> set:
    """Which of the containers the engine changes in place (IN_PLACE, engine/state.py) an
    effect's values (a tuple, as Python text) may keep a reference to: those whose fields they
    read, or all of them if they use the state in a way _state_reads cannot follow. A LazyMap
    reads the fields it names (a copy of those taken when it is made) and its keys."""
    tree = ast.parse(values, mode="eval").body
    reads: set = set()
    for value in (tree.elts if isinstance(tree, ast.Tuple) else [tree]):
        if (isinstance(value, ast.Call) and isinstance(value.func, ast.Name) and value.func.id == "_LazyMap"
                and len(value.args) == 4 and isinstance(value.args[3], ast.Tuple)):
            reads |= {e.value for e in value.args[3].elts if isinstance(e, ast.Constant)}
            value = value.args[0]
        found = _state_reads(value, bodies, action=True)   # (the action's fields are the event's values)
        if found is None:
            return set(IN_PLACE)
        reads |= found
    return {container for container, names in IN_PLACE.items() if reads & names}


def _state_reads(node, bodies: dict, seen: set | None = None, action: bool = False) -> set | None:
    """The state fields a generated expression reads (`S.<field>`, and through the rule functions
    it calls with S); None if it uses S, or the action (unless `action`), in any other way."""
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
                inner = None if body is None else _state_reads(ast.parse(body, mode="eval").body, bodies, seen, action)
                if inner is None:
                    return False
                reads.update(inner)
            return all(visit(arg) for arg in node.args[1:]) and all(visit(k.value) for k in node.keywords)
        if isinstance(node, ast.Name) and (node.id == "S" or (node.id == "A" and not action)):
            return False
        return all(visit(child) for child in ast.iter_child_nodes(node))

    return reads if visit(node) else None


def _written_after(effects: list, effect, phases: dict, following: dict) -> frozenset:
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


def _following(next_texts: dict) -> dict[str, set]:
    """Each phase's possible successors, transitively. A `next` that is not made of phase names
    (literals, chosen between by conditions) may lead anywhere."""
    direct = {name: _next_names(text, next_texts) for name, text in next_texts.items()}
    out = {}
    for name in next_texts:
        seen, todo = set(), [name]
        while todo:
            for successor in direct[todo.pop()]:
                if successor not in seen:
                    seen.add(successor)
                    todo.append(successor)
        out[name] = seen
    return out


def _next_names(text: str, names) -> set:
    found: set = set()

    def walk(node) -> bool:
        if isinstance(node, ast.IfExp):
            return walk(node.body) and walk(node.orelse)
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            if node.value in names:
                found.add(node.value)
            return True
        return False

    return found if walk(ast.parse(text, mode="eval").body) else set(names)


@lru_cache(maxsize=4096)   # (the same tests recur in every variant of a corpus run)
def _reads_only_card(test: str) -> bool:
    """Whether the generated test reads nothing of the candidate `A` but `A.card`."""
    tree = ast.parse(test, mode="eval")
    cards = {id(n.value) for n in ast.walk(tree) if isinstance(n, ast.Attribute) and n.attr == "card"}
    return all(id(n) in cards for n in ast.walk(tree) if isinstance(n, ast.Name) and n.id == "A")


@lru_cache(maxsize=4096)
def _on_cards(test: str) -> str:
    """The test with the candidate a card: `A.card` read as `A` (see _reads_only_card)."""
    class OnCards(ast.NodeTransformer):
        def visit_Attribute(self, node):
            if isinstance(node.value, ast.Name) and node.value.id == "A" and node.attr == "card":
                return node.value
            return self.generic_visit(node)
    return ast.unparse(OnCards().visit(ast.parse(test, mode="eval")).body)


def _per_candidate(test: str, candidates: list) -> list[str]:
    """`C = [A for A in C if test]` written out for C = `candidates` (see _fused_narrow)."""
    lines = [f"if b_len(C) != {len(candidates)}:", "    return None   # not the whole list: the rule-by-rule run", "K = []"]
    for index, (action_type, fields) in enumerate(candidates):   # (parsed again: _Fields changes the tree)
        folded = _fold(_Fields(action_type, fields).visit(ast.parse(test, mode="eval").body), boolean=True)
        if isinstance(folded, ast.Constant):
            if folded.value:
                lines.append(f"K.append(C[{index}])")
            continue
        reads_a = any(isinstance(n, ast.Name) and n.id == "A" for n in ast.walk(folded))
        lines += ([f"A = C[{index}]"] if reads_a else []) + [f"if {ast.unparse(folded)}:", f"    K.append(C[{index}])"]
    return lines + ["C = K"]


class _Fields(ast.NodeTransformer):
    """`A.<field>` replaced by the candidate's value (a field it lacks reads none, as on Action)."""

    def __init__(self, action_type: str, fields: dict):
        self.values = {"type": action_type, **fields}

    def visit_Attribute(self, node):
        if isinstance(node.value, ast.Name) and node.value.id == "A" and not node.attr.startswith("_"):
            return ast.Constant(self.values.get(node.attr))
        return self.generic_visit(node)


_FOLDABLE = {ast.Eq: operator.eq, ast.NotEq: operator.ne, ast.Lt: operator.lt, ast.LtE: operator.le,
             ast.Gt: operator.gt, ast.GtE: operator.ge, ast.In: lambda a, b: a in b, ast.NotIn: lambda a, b: a not in b,
             ast.Is: operator.is_, ast.IsNot: operator.is_not}


def _constant(node):
    """(True, value) for a literal (constants, and lists/tuples of them), else (False, None)."""
    if isinstance(node, ast.Constant):
        return True, node.value
    if isinstance(node, (ast.List, ast.Tuple)):
        items = [_constant(e) for e in node.elts]
        if all(known for known, _ in items):
            return True, [v for _, v in items]
    return False, None


def _safe(node) -> bool:
    """Evaluating it cannot fail: names, constants, state fields, and not/comparisons/and/or
    of those (so that an operand before a deciding constant may be dropped)."""
    if isinstance(node, (ast.Name, ast.Constant)):
        return True
    if isinstance(node, ast.Attribute):
        return isinstance(node.value, ast.Name) and node.value.id == "S"
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
        return _safe(node.operand)
    if isinstance(node, ast.Compare):
        return all(isinstance(op, (ast.Eq, ast.NotEq, ast.Is, ast.IsNot)) for op in node.ops) \
            and _safe(node.left) and all(_safe(c) for c in node.comparators)
    if isinstance(node, ast.BoolOp):
        return all(_safe(v) for v in node.values)
    return False


def _fold(node, boolean: bool = False):
    """Fold what the candidate's fields made constant. In a boolean context (the test, and/or
    operands there, `not`, a condition) only the truth value must be kept; elsewhere the value."""
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
        operand = _fold(node.operand, boolean=True)
        known, value = _constant(operand)
        return ast.Constant(not value) if known else ast.UnaryOp(ast.Not(), operand)
    if isinstance(node, ast.IfExp):
        test = _fold(node.test, boolean=True)
        known, value = _constant(test)
        if known:
            return _fold(node.body if value else node.orelse, boolean)
        return ast.IfExp(test, _fold(node.body, boolean), _fold(node.orelse, boolean))
    if isinstance(node, ast.Compare) and len(node.ops) == 1 and type(node.ops[0]) in _FOLDABLE:
        left, right = _fold(node.left), _fold(node.comparators[0])
        (lk, lv), (rk, rv) = _constant(left), _constant(right)
        if lk and rk:
            try:
                return ast.Constant(bool(_FOLDABLE[type(node.ops[0])](lv, rv)))
            except TypeError:
                pass
        return ast.Compare(left, node.ops, [right])
    if isinstance(node, ast.BoolOp):
        is_and = isinstance(node.op, ast.And)
        values = [_fold(v, boolean) for v in node.values]
        kept = []
        for index, value in enumerate(values):
            known, constant = _constant(value)
            if known and bool(constant) == is_and:   # `True and x`, `False or x`: x decides
                if boolean or index < len(values) - 1:
                    continue
                if not kept:
                    return value   # (its value is the last operand's)
            elif known:   # `False and ...`, `True or ...`: decides, the rest is never evaluated
                if not kept:
                    return value
                if boolean and all(_safe(k) for k in kept):
                    return ast.Constant(bool(constant))
                kept.append(value)
                break
            kept.append(value)
        if not kept:
            return ast.Constant(is_and)
        return kept[0] if len(kept) == 1 else ast.BoolOp(node.op, kept)
    return node


def _hoisted(test: str) -> tuple[list, str]:
    """The derived values a filter's test reads (lazy locals, see expr.compiler), worked out
    before the comprehension over the candidates instead of tested for in it per candidate:
    (statements, the test reading them as plain locals). Only in a fused narrow, whose failure
    falls back to the rule-by-rule run (a value worked out that the test would have skipped)."""
    try:
        tree = ast.parse(test, mode="eval")
    except SyntaxError:
        return [], test
    found: dict = {}

    class Lift(ast.NodeTransformer):
        def visit_IfExp(self, node):
            name = _lazy_local(node)
            if name is not None and not any(isinstance(n, ast.Name) and n.id == "A" for n in ast.walk(node)):
                found.setdefault(name, ast.unparse(node.orelse.value))
                return ast.Name(id=name, ctx=ast.Load())
            return self.generic_visit(node)

    lifted = Lift().visit(tree)
    if not found:
        return [], test
    return [f"if {name} is ...: {name} = {body}" for name, body in found.items()], ast.unparse(lifted.body)


def _lazy_local(node) -> str | None:
    """The name N of `(N if N is not ... else (N := body))`, the form of a lazy local."""
    test = node.test
    if not (isinstance(test, ast.Compare) and isinstance(test.left, ast.Name) and test.left.id.startswith(LAZY_LOCAL)
            and len(test.ops) == 1 and isinstance(test.ops[0], ast.IsNot)
            and isinstance(test.comparators[0], ast.Constant) and test.comparators[0].value is Ellipsis):
        return None
    name = test.left.id
    if isinstance(node.body, ast.Name) and node.body.id == name and isinstance(node.orelse, ast.NamedExpr) \
            and node.orelse.target.id == name:
        return name
    return None


def _fused_check(builder: _ModuleBuilder, checks: list) -> str:
    """All check rules of a phase in order: the index of the first that refuses, or -1."""
    body = []
    for index, (_rule_id, when, test, _) in enumerate(checks):
        body += [f"i = {index}", f"if {when} and not {test}:", f"    return {index}"]
    return _guarded(builder, "check", "S, A", [c[0] for c in checks],
                    lazy_locals_prelude("\n".join(body)) + body, "-1", _any_guard([c[1] for c in checks]))


def _fused_effects(builder: _ModuleBuilder, effects: list) -> str:
    """All effects of a phase at one moment, in order; each sees the state the earlier ones left
    (their new values, and a fresh memo of derived values)."""
    body = []
    for index, (_effect_id, when, values, names) in enumerate(effects):
        targets = "".join(f"S.{n}, " for n in names)
        # Each effect sees the state the ones before it left: its derived values start afresh.
        body += [f"i = {index}", *lazy_locals_prelude(when + values),
                 f"if {when}:", f"    {targets}= {values}", "    S._memo = {}"]
    return _guarded(builder, "effects", "S, A", [e[0] for e in effects], body, "None",
                    _any_guard([e[1] for e in effects]))


def _guard_fn(builder: _ModuleBuilder, items: list) -> str | None:
    """The name of a generated guard(A) for these checks or effects (see CompiledPhase), or None."""
    guard = _any_guard([item[1] for item in items]) if items else "False"
    return builder.add("A", guard, prefix="guard") if guard else None


def _any_guard(whens: list) -> str | None:
    """A test of the action alone that is false only when none of these rules can apply to it
    (None unless each of them has an action guard): most plays say nothing, and then the
    announcement checks and effects are not run at all."""
    guards = [_action_guard(when) for when in whens]
    if not guards or not all(guards):
        return None
    live = [g for g in dict.fromkeys(guards) if g != "False"]
    return " or ".join(f"({g})" for g in live) or "False"


def _action_guard(when: str) -> str | None:
    """The conjuncts of a generated `when` that read nothing but the action `A` (with builtins
    and constants), joined; None if there is none. Whatever the position, the rule cannot apply
    to an action for which they are false."""
    try:
        tree = ast.parse(when, mode="eval").body
    except SyntaxError:
        return None
    own = [ast.unparse(part) for part in _conjuncts(tree) if _reads_only_action(part)]
    if "False" in own:
        return "False"
    return " and ".join(f"({text})" for text in own) or None


def _conjuncts(node) -> list:
    if isinstance(node, ast.BoolOp) and isinstance(node.op, ast.And):
        return [part for value in node.values for part in _conjuncts(value)]
    return [node]


def _reads_only_action(node) -> bool:
    if isinstance(node, ast.Constant):
        return node.value is False   # `True` tells nothing; `False` says the rule never applies
    for sub in ast.walk(node):
        if isinstance(sub, (ast.NamedExpr, ast.Lambda)):
            return False
        if isinstance(sub, ast.Name) and not (sub.id == "A" or sub.id.startswith(("b_", "k_"))):
            return False
    return True


_PLACEHOLDER = re.compile(r"\{([^{}]+)\}")


def _template(builder: _ModuleBuilder, text, scope: Scope, rule_id: str) -> str:
    """An explanation template: text with {expression} holes, compiled like any expression."""
    parts = []
    position = 0
    for match in _PLACEHOLDER.finditer(str(text)):
        if match.start() > position:
            parts.append(repr(str(text)[position:match.start()]))
        source = _source_of(text)
        hole = to_python(match.group(1), scope, ExprSource(source.file, source.line, source.column + match.start(1) - 1,
                                                           source.quoted, source.block), rule_id)
        parts.append(f"b_text({hole})")
        position = match.end()
    if position < len(str(text)):
        parts.append(repr(str(text)[position:]))
    return builder.add("S, A", "''.join([" + ", ".join(parts) + "])" if parts else "''")


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
