"""The names each expression of a variant may use: the first stage of compiling a variant.

From the resolved rules: the constants and declared state, the action fields of each phase,
every attribute a value may have (and which of them are record fields), and the facts, steps
and match context; then one Scope (expr/scope.py) per place in the rules, made by the methods
of VariantScopes. A declared state field that takes an engine field's name, or a rule function
that takes a builtin's, is a located load error here.
"""

from __future__ import annotations

from keyword import iskeyword

from ..cards import Card
from ..engine.state import ENGINE_LISTS, PER_SEAT_LISTS, Play, Trick
from ..errors import RulesError
from ..expr.builtins import Rec, builtin_arity
from ..expr.parser import parse_expression
from ..expr.scope import AGGREGATES, Scope

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
PYTHON_ATTRIBUTES = frozenset([name for kind in (str, int, float, bool, list, tuple, dict, type(None), Rec,
                                                 Card, Play, Trick)
                                for name in dir(kind)] + list(Play._own))   # (a play's slots are its subclass's)
MATCH_CONTEXT = frozenset({"scores", "hand"})


def names_in(text: str) -> set[str]:
    """The bare names an expression uses (e.g. the announcement a check rule is about)."""
    return {str(node.children[0]) for node in parse_expression(text).iter_subtrees() if node.data == "name"}


def record_fields_in(text: str) -> set[str]:
    found = set()
    for node in parse_expression(text).iter_subtrees():
        if node.data == "record":
            found.update(str(f.children[0]) for f in node.children if f is not None)
    return found


def plain(value):
    """YAML values as plain Python (lists, dicts with str keys where YAML gave ints for names).
    (The rules' strings are interned when the plan is instantiated: compiled.interned.)"""
    if isinstance(value, dict):
        return {(k if isinstance(k, (int, bool)) else str(k)): plain(v) for k, v in value.items()}
    if isinstance(value, list):
        return [plain(v) for v in value]
    if isinstance(value, str):
        return str(value)
    return value


class VariantScopes:
    """What the names of a variant's expressions refer to, and one Scope per kind of place.
    `inline` and `derived` (rule functions' checked bodies) are filled as the functions are
    checked (compile.py), and shared by every scope made here."""

    def __init__(self, variant, seats: int, knobs_as_data: bool = False):
        rs = variant.ruleset
        self.constants = {name: plain(value) for name, value in rs.maps["constants"].items()}
        for name, spec in rs.maps["state"].items():
            if iskeyword(name) or name in GENERIC_STATE:
                where = spec.location() if hasattr(spec, "location") else None
                raise RulesError(f"state {name!r} cannot be declared: "
                                 + ("it is a field the engine keeps" if name in GENERIC_STATE else "it is a reserved word"),
                                 where)
        self.state_init = {name: plain(spec["initial"]) for name, spec in rs.maps["state"].items()}
        attributes, annotations = self._attributes(rs)
        self.fact_names = [step["name"] for step in rs.lists["facts"]]
        self.score_names = [step["name"] for step in rs.lists["scoring"]]
        attributes.update(self.score_names)  # a match step reads the hand's result as hand.<step name>
        self.match_names = [step["name"] for step in rs.lists["match"]]
        self.hand_state = GENERIC_STATE | set(self.state_init)
        self.functions = {f["name"]: len(f.get("params") or []) for f in rs.lists["functions"]}
        _refuse_shadowing(rs.lists["functions"])
        self.indexable = frozenset(name for name, value in self.constants.items()
                                   if isinstance(value, list) and all(isinstance(v, (str, int)) for v in value))
        self.inline: dict = {}    # rule function -> (params, checked body, scope), once checked
        self.derived: dict = {}   # the same for zero-argument functions (used by specialised phases only)
        self.literal_derived: dict = {}   # a derived value whose body folds to a literal -> that value
        self.state_types: dict = {}   # declared state field -> its type, where known (passes/state_types.py)
        record_fields = frozenset(a for a in attributes if a not in GENERIC_ATTRIBUTES and a not in annotations
                                  and a not in PYTHON_ATTRIBUTES)
        self.base = dict(functions=self.functions, builtins=builtin_arity(), params=dict(variant.knobs),
                         consts=frozenset(self.constants), attributes=frozenset(attributes),
                         record_fields=record_fields, engine_lists=ENGINE_LISTS, per_seat_lists=PER_SEAT_LISTS,
                         inline=self.inline, state_types=self.state_types,
                         indexable=self.indexable, seats=seats, derived=self.derived, literal_derived=self.literal_derived, const_values=self.constants,
                         engine_fields=GENERIC_STATE, knobs_as_data=knobs_as_data)

    def _attributes(self, rs) -> tuple[set, set]:
        """Everything a value may have as an attribute (generic ones, record fields, annotations),
        and the annotations; each phase's action fields on the way (self.action_fields)."""
        attributes = set(GENERIC_ATTRIBUTES)
        annotations: set = set()   # (a play's own fields: never read as a record's)
        self.action_fields: dict[str, set] = {}
        for phase in rs.lists["phases"]:
            fields = set()
            for params in (phase.get("actions") or {}).values():
                fields.update(params)
            if phase.get("kind") == "tricks":
                fields.add("card")
                fields.update(phase.get("annotations", {}))
            self.action_fields[phase["name"]] = fields
            annotations.update(phase.get("annotations", {}))
        attributes |= annotations
        for _section, item in rs.items():
            texts = [item.get(key) for key in ("expr", "when", "only", "require")] + list((item.get("set") or {}).values())
            for text in texts:
                if isinstance(text, str):
                    try:
                        attributes |= record_fields_in(text)
                    except Exception:
                        pass  # syntax errors are reported, located, when the expression compiles
        return attributes, annotations

    # one scope per kind of place ------------------------------------------------------------
    def hand(self) -> Scope:
        """A phase's own expressions, the facts: the hand's state."""
        return Scope(state=frozenset(self.hand_state), **self.base)

    def function(self, params: tuple) -> Scope:
        """A rule function's body: any state a caller may have, and its parameters. (A function
        may be called where a fact, a step or the match context reuses an engine name.)"""
        steps = set(self.fact_names) | set(self.score_names) | set(self.match_names) | MATCH_CONTEXT
        return Scope(state=frozenset(self.hand_state | steps) - set(params), locals=frozenset(params),
                     **{**self.base, "engine_fields": GENERIC_STATE - steps})

    def rule(self, phase: str) -> Scope:
        """A filter's `only` or a check's `require` and `when`: the state and the action."""
        fields = self.action_fields[phase]
        return Scope(state=frozenset(self.hand_state - fields), action=frozenset(fields), **self.base)

    def filter_when(self, phase: str) -> Scope:
        """A filter's `when`: evaluated once per position, before looking at candidates."""
        return Scope(state=self.rule(phase).state, **self.base)

    def effect(self, phase: str, on: str) -> Scope:
        fields = self.action_fields[phase] if on == "action" else set()
        return Scope(state=frozenset(self.hand_state - fields), action=frozenset(fields), **self.base)

    def step(self, names: set) -> Scope:
        """A scoring or match step: the context and the steps before it (facts reuse engine names)."""
        return Scope(state=frozenset(names), **{**self.base, "engine_fields": frozenset()})


def _refuse_shadowing(functions) -> None:
    """A function the rules define may not take the name of a builtin or an aggregate: `len(x)`
    would silently mean the rules' function in one place and the builtin in every reader's mind."""
    reserved = set(builtin_arity()) | AGGREGATES
    for fn in functions:
        if fn["name"] in reserved:
            location = fn["name"].location() if hasattr(fn["name"], "location") else None
            raise RulesError(f"function {fn['name']!r} has the name of a builtin: choose another name", location, fn["id"])
