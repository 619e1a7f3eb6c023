"""Compiled rules as the engine uses them, and how they are made from a cached plan.

`compile.py` checks a variant's expressions and generates one Python module for it; what the
engine needs besides that module's functions (tables, phases, rules with their ids, sources and
explanations, the generated source itself) is a *plan* in which each generated function is only
named. `instantiate` executes the module and binds the names. A plan is kept in the disk cache,
so that a process whose variant was compiled before neither imports Lark nor re-emits anything:
it reads the plan and the module's marshalled code back (about 80 ms less per variant, in
every process and every `--jobs` worker, and for each of a corpus run's variants).
"""

from __future__ import annotations

import hashlib
import marshal
import sys
from dataclasses import dataclass, field, replace
from itertools import product
from operator import attrgetter

from ..cards import Deck, Table
from ..errors import BalootError, RuleRuntimeError
from ..expr.builtins import LazyMap, Rec, card_table, flatten, keyed_card_table, keyed_fill, make_builtins, scoring_namespace
from ..expr.first_of_max import greatest_key_item
from ..expr.scope import KNOBS
from . import cache as disk_cache
from .loader import Variant
from .passes.rule_lines import rule_at

SAFE_PY_BUILTINS = {"any": any, "all": all, "sum": sum, "max": max, "min": min, "next": next,
                    "_isum": sum,   # (expr/emit.py SUM_OF_INTS: sum of ints, where not written as a loop)
                    "_fromkeys": dict.fromkeys,   # (expr/builtin_forms.py: unique of hashed items)
                    "_flat": flatten,   # (expr/builtin_forms.py FLAT: flatten of lists, where not written as a loop)
                    "_first_of_max": greatest_key_item}   # (expr/first_of_max.py)
PLAN_KEYS = ("deal", "state_init", "phases", "first_phase", "facts", "scoring", "match",
             "functions", "constants", "indexable", "rules_by_id", "source", "facts_all", "steps_all",
             "facts_of", "score_of", "scored", "held_by_effects")
# The attributes of phases, rules and effects that name a generated function in a plan.
_BOUND = ("when", "test", "keep", "explain", "values", "next", "turn", "end", "leader", "winner", "taker",
          "narrow", "check", "check_guard", "action_guard", "refusal_guard")


@dataclass
class CompiledRule:
    id: str
    phase: str
    kind: str                   # 'filter' or 'check'
    when: object
    test: object                # only (filter) or require (check): f(S, A) -> bool
    if_possible: bool
    explain: object             # f(S, A) -> str
    source: object
    keep: object = None         # filters: f(S, candidates) -> the candidates for which `only` holds
    reads: frozenset = frozenset()  # checks: the announcement fields its `when` looks at


@dataclass
class CompiledEffect:
    id: str
    when: object
    names: tuple
    values: object              # f(S, A) -> tuple of new values
    source: object


@dataclass
class CompiledPhase:
    name: str
    kind: str
    id: str
    next: object
    actions: dict = field(default_factory=dict)       # calls: action -> {param: [values]}
    action: str | None = None                         # tricks: the play action
    annotations: dict = field(default_factory=dict)   # tricks: name -> default
    turn: object = None
    end: object = None
    leader: object = None
    winner: object = None
    taker: object = None
    filters: list = field(default_factory=list)
    checks: list = field(default_factory=list)
    on_action: list = field(default_factory=list)
    on_enter: list = field(default_factory=list)
    on_exit: list = field(default_factory=list)
    source: object = None
    # The same rules fused into one generated function each (the engine's fast path; the lists
    # above stay for explaining a refusal): narrow(S, C) -> kept candidates; check(S, A) -> the
    # index in `checks` of the first refusing check, or -1; effects[at](S, A) applies them all.
    narrow: object = None
    narrow_over_cards: bool = False   # tricks: narrow(S, cards) -> the cards kept (see compile._fused_narrow)
    # tricks: the narrow for each length of the current trick (the engine takes narrows[len(trick)]):
    # in a specialised phase each compiled for that length (expr/lengths.py), else `narrow` each.
    narrows: tuple = ()
    check: object = None
    effects: dict = field(default_factory=dict)
    fixed: tuple = ()            # state the phase never changes (CompiledRules.specialized)
    # guard(A) -> False when no check (no action effect) can apply to action A, whatever the
    # position (see _action_guard); None when some rule has no such test. The engine skips
    # `check` and `effects["action"]` for the candidates whose guard is false.
    check_guard: object = None
    action_guard: object = None
    # refuses(A) -> True when some check refuses action A whatever the position (passes/guards.py
    # refusal_guard); None when no check can be judged by the action alone.
    refusal_guard: object = None
    facts_all: object = None     # score, specialised: the facts for its fixed state (else CompiledRules.facts_all)
    scored: object = None        # score, specialised: the steps over those facts (else CompiledRules.scored)
    facts_scored: object = None  # score, specialised: facts and steps from the state, no namespace (scored.py)
    # `next` when it is a literal (passes/flow.py always_next): the name the engine reads instead of
    # calling `next`, which cannot fail; None: `next` is called. A specialised phase keeps the generic's.
    goes_to: str | None = None
    # f(S) -> the values of `fixed` in S, the tuple specialized() is keyed by (fixed_getter; made
    # with the rules, not kept in a plan): one C call where tuple(map(S.__getattribute__, fixed)) made five
    fixed_of: object = None

    def call_candidates(self) -> list:
        """Every call a `calls` phase offers, as (type, {parameter: value}), in the order the
        engine lists its candidates (and the fused narrow tests them)."""
        out = []
        for action_type, params in self.actions.items():
            names = list(params)
            for combo in product(*params.values()):
                out.append((action_type, dict(zip(names, combo))))
        return out


@dataclass
class CompiledRules:
    variant: Variant
    table: Table
    deck: Deck
    deal: dict
    state_init: dict
    phases: dict
    first_phase: str
    facts: list
    scoring: list
    match: list
    functions: dict
    constants: dict
    rules_by_id: dict
    python_source: str
    # The facts and the scoring steps fused (the engine's path): facts_all(state) -> a
    # namespace of the facts; steps_all(namespace) adds every scoring step to it, in order.
    facts_all: object = None
    steps_all: object = None
    # facts_of(namespace) / score_of(namespace): the facts / the facts and the steps, as a Rec
    facts_of: object = None
    score_of: object = None
    # scored(namespace) -> (facts_of, score_of) with the steps run in between, in one function
    # (rules/scored.py); None where it could not be made (the engine makes the three calls)
    scored: object = None
    # The containers the engine changes in place (IN_PLACE, engine/state.py) that an effect may
    # keep a reference to: the engine changes a copy of those instead.
    held_by_effects: frozenset = frozenset()
    specializer: object = None    # (phase name, values of its `fixed` state) -> CompiledPhase
    _specialized: dict = field(default_factory=dict)
    # (name, id(phases map), id(phase)) -> (that map, that phase, the map with `name` as that phase):
    # the maps of phases a hand runs, shared by the hands that specialise the same phases alike
    # (engine/phases.py, phases_with); each map is kept here, so no id is reused while it is a key
    _phase_maps: dict = field(default_factory=dict, init=False, repr=False, compare=False)

    def specialized(self, phase: str, values: tuple) -> "CompiledPhase":
        """The phase compiled with the values of its `fixed` state folded in: the Hokum rules
        vanish from a Sun hand, is_trump(c) becomes c.suit == 'H'. Made once per variant and
        combination of values; same rules, same ids, same explanations (from the generic code)."""
        key = (phase, values)
        compiled = self._specialized.get(key)
        if compiled is None:
            from ..budget import paused
            with paused():   # (made once per contract: its compile time is not the hand's budget)
                compiled = self._specialized[key] = self.specializer(phase, values)
        return compiled

    @property
    def hash(self) -> str:
        """The hash of the variant these rules were compiled from (worked out once)."""
        known = getattr(self, "_hash", None)
        if known is None:
            known = self._hash = self.variant.hash
        return known


def instantiate(variant: Variant, plan: dict, filename: str | None = None) -> tuple[CompiledRules, dict]:
    """Execute the plan's generated module and bind every name in the plan to its function
    (the plan's objects are bound in place). Returns the rules and the module's namespace.
    The module's KNOBS (`_K`, expr/scope.py) holds the variant's knobs: code compiled with knobs
    as data reads them there (rules/open_variants.py: one module, named `filename`, for every
    knob assignment)."""
    table, deck = table_and_deck(variant)   # (made again: a plan holds no engine objects)
    constants = plan["constants"] = interned(plan["constants"])
    plan["state_init"] = interned(plan["state_init"])
    namespace = {"__builtins__": SAFE_PY_BUILTINS, "_R": Rec, "_LazyMap": LazyMap, "_MISSING": object(),
                 "_BalootError": BalootError, "_RuleRuntimeError": RuleRuntimeError, "_Exception": Exception,
                 "_AttributeError": AttributeError, "_rule_at": rule_at,
                 "_Namespace": scoring_namespace([name for part in ("facts", "scoring") for name, _, _ in plan[part]]),
                 **make_builtins(table)}
    namespace.update({f"k_{name}": value for name, value in constants.items()})
    namespace.update({f"k__ix_{name}": _positions(constants[name]) for name in plan["indexable"]})
    namespace["k__deck"] = tuple(deck.cards)   # what a per-card table covers (passes/card_tables.py)
    namespace["_card_table"] = card_table
    namespace["_keyed_card_table"] = keyed_card_table
    namespace["_keyed_fill"] = keyed_fill   # (derived values keyed by state fields: passes/keyed.py)
    namespace["_KeyMiss"] = (KeyError, TypeError, AttributeError)
    namespace["k__after"] = {steps: {seat: table.after(seat, steps) for seat in table.seats} for steps in range(len(table.seats))}
    namespace[KNOBS] = interned(dict(variant.knobs))
    exec(_compiled(plan["source"], filename or f"<rules {variant.hash}>"), namespace)  # generated source only

    def bind(obj):
        for attr in _BOUND:
            ref = getattr(obj, attr, None)
            if isinstance(ref, str):
                setattr(obj, attr, namespace[ref])
        if isinstance(getattr(obj, "effects", None), dict):
            obj.effects = {on: namespace[ref] for on, ref in obj.effects.items()}
        if getattr(obj, "narrows", None) and isinstance(obj.narrows[0], str):
            obj.narrows = tuple(namespace[ref] for ref in obj.narrows)

    phases = plan["phases"]
    for phase in phases.values():
        bind(phase)
        for item in phase.filters + phase.checks + phase.on_action + phase.on_enter + phase.on_exit:
            bind(item)
    # The engine reads a phase's attributes on every action. An object that went through pickle
    # (storing the plan reads its __dict__, loading it writes it) keeps them in a real dict, and
    # on CPython 3.11 each read takes about 2.5 times as long: the rules get copies made by the
    # constructor (the plan's own phases stay as they are, bound: the specialiser copies them).
    phases = {sys.intern(name): replace(phase, name=sys.intern(phase.name), kind=sys.intern(phase.kind),
                                        action=phase.action and sys.intern(phase.action),
                                        actions=interned(phase.actions), annotations=interned(phase.annotations),
                                        fixed=interned(phase.fixed), goes_to=phase.goes_to and sys.intern(phase.goes_to),
                                        fixed_of=fixed_getter(phase.fixed))
              for name, phase in phases.items()}
    steps = {part: [(name, step_id, namespace[ref]) for name, step_id, ref in plan[part]] for part in ("facts", "scoring", "match")}
    rules = CompiledRules(variant, table, deck, plan["deal"], plan["state_init"], phases, plan["first_phase"],
                          steps["facts"], steps["scoring"], steps["match"],
                          {name: namespace[f"f_{name}"] for name in plan["functions"]}, constants, plan["rules_by_id"],
                          plan["source"], namespace[plan["facts_all"]], namespace[plan["steps_all"]],
                          namespace[plan["facts_of"]], namespace[plan["score_of"]],
                          namespace[plan["scored"]] if plan["scored"] else None, frozenset(plan["held_by_effects"]))
    return rules, namespace


def fixed_getter(names: tuple):
    """f(S) -> the tuple of S's values of `names`, in order (None for no names): `attrgetter` of
    two names or more gives that tuple itself; of one, its value, made a 1-tuple."""
    if len(names) > 1:
        return attrgetter(*names)
    if names:
        one = attrgetter(names[0])
        return lambda S: (one(S),)
    return None


def interned(value):
    """`value` with every string in it (keys included) interned. The generated code compares the
    rules' strings (team names, modes, calls, phase names) with its own literals, which Python
    interns; two identical strings compare at once, two equal ones by their characters. Done
    here, for a plan just compiled and one read back from the disk cache alike (pickle makes new
    strings); the deck and table intern their own (cards.py)."""
    if isinstance(value, str):
        return sys.intern(str(value))
    if isinstance(value, list):
        return [interned(v) for v in value]
    if isinstance(value, tuple):
        return tuple(interned(v) for v in value)
    if isinstance(value, dict):
        return {interned(k): interned(v) for k, v in value.items()}
    return value


def table_and_deck(variant: Variant) -> tuple[Table, Deck]:
    """The seats and the deck the variant's rules declare (rules/game.yaml)."""
    table_def, deck_def = variant.ruleset.single["table"], variant.ruleset.single["deck"]
    return (Table(table_def["seats"], table_def["teams"]),
            Deck(deck_def["ranks"], deck_def["suits"], deck_def.get("aliases")))


def store_plan(key: str, plan: dict) -> None:
    disk_cache.store("plan", key, plan)


def from_plan(variant: Variant, key: str, rebuild) -> CompiledRules | None:
    """The rules from the plan cached under `key`, or None (no entry, or a damaged one).
    `rebuild()` compiles the variant in full: called only if a specialised phase is not in the
    disk cache either (its code is generated from the checked expressions)."""
    plan = disk_cache.load("plan", key)
    if not (isinstance(plan, dict) and set(plan) == set(PLAN_KEYS)):
        return None
    try:
        rules, namespace = instantiate(variant, plan)
    except Exception:   # a damaged entry is only a miss
        return None
    full = []

    def specializer(phase_name: str, values: tuple) -> CompiledPhase:
        found = cached_phase(rules, namespace, phase_name, values)
        if found is None:
            if not full:
                full.append(rebuild())
            made = full[0].specialized(phase_name, values)   # (generates it, and stores its code)
            # bound to this namespace when the cache took it; else the full compile's own
            found = cached_phase(rules, namespace, phase_name, values) or made
        return found

    rules.specializer = specializer
    return rules


def _phase_code_key(source: str, phase_name: str, values: tuple) -> str:
    # Generating a specialised phase takes ~10 ms a contract, in every process: its code is kept,
    # keyed by the generic module's source (which the rules and knobs shape), the phase, the
    # values and the Python version (stored marshalled, as in a .pyc).
    return repr((hashlib.sha256(source.encode()).hexdigest(), phase_name, values, sys.version))


def store_phase_code(source: str, phase_name: str, values: tuple, names: dict, code) -> None:
    disk_cache.store("phase", _phase_code_key(source, phase_name, values), (names, marshal.dumps(code)))


def cached_phase(rules: CompiledRules, namespace: dict, phase_name: str, values: tuple) -> CompiledPhase | None:
    """The specialised phase from the disk cache, bound to `namespace`; None if not there."""
    try:
        names, code = disk_cache.load("phase", _phase_code_key(rules.python_source, phase_name, values))
        code = marshal.loads(code)
        if not (isinstance(names, dict) and all(v is None or v in code.co_names for v in _named(names.values()))):
            return None
    except Exception:   # no entry, or a damaged one
        return None
    return bind_phase(rules.phases[phase_name], names, code, namespace)


def bind_phase(generic: CompiledPhase, names: dict, code, namespace: dict) -> CompiledPhase:
    """The generic phase with its fused functions replaced by the specialised code's."""
    space = dict(namespace)
    exec(code, space)  # generated source only
    fns = {k: (space[v] if v else None) for k, v in names.items() if k != "narrows"}
    narrows = tuple(space[v] for v in names["narrows"]) if names.get("narrows") else (fns["narrow"],) * len(generic.narrows)
    # (the generic may be the compiler's own, not the rules': its getter and goes_to made here too)
    return replace(generic, narrow=fns["narrow"], narrows=narrows, check=fns["check"], next=fns["next"],
                   fixed_of=fixed_getter(generic.fixed), goes_to=generic.goes_to and sys.intern(generic.goes_to),
                   check_guard=fns["check_guard"], action_guard=fns["action_guard"],
                   refusal_guard=fns.get("refusal_guard"),
                   effects={"enter": generic.effects["enter"], "action": fns["action"], "exit": fns["exit"]},
                   **{k: fns[k] for k in ("winner", "turn", "end", "facts_all", "scored", "facts_scored") if k in fns})


def _named(values):
    """The function names a specialised phase's names give (a tuple of them: `narrows`)."""
    for value in values:
        yield from (value if isinstance(value, tuple) else (value,))


def _compiled(source: str, filename: str):
    """`compile(source)`, kept in the disk cache by the source's digest and the Python version:
    compiling a variant's generated module takes ~30 ms, in every process and for every variant
    of a corpus run (the code is stored marshalled, as in a .pyc; a damaged entry is a miss).
    Without a disk entry, the code this process compiled already (code_of) is used, and stored."""
    key = repr((hashlib.sha256(source.encode()).hexdigest(), filename, sys.version))
    try:
        code = marshal.loads(disk_cache.load("module", key))
        if type(code) is type(_compiled.__code__) and code.co_filename == filename:
            return code
    except Exception:
        pass
    code = code_of(source, filename)
    if disk_cache.cache_dir() is not None:
        disk_cache.store("module", key, marshal.dumps(code))
    return code


def code_of(source: str, filename: str):
    """`compile(source)`, memoised in this process by the source and file name (a variant's
    module, and a specialised phase's code, which store_phase_code keeps on disk itself)."""
    code = _CODE.get((source, filename))
    if code is None:
        code = compile(source, filename, "exec")
        if len(_CODE) >= 64:
            _CODE.clear()
        _CODE[source, filename] = code
    return code


# The code of modules compiled in this process, by their source and file name (a code object
# is immutable: each exec of it gets its own namespace). A variant compiled again (a test module,
# a corpus run, a specialised phase) then skips `compile`, also when there is no disk cache.
_CODE: dict = {}


def _positions(values: list) -> dict:
    """value -> its first index in `values` (what index(const.x, v) answers, as one lookup)."""
    table: dict = {}
    for position, value in enumerate(values):
        table.setdefault(value, position)
    return table
