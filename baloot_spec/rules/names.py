"""Every name a rule expression may use, per context, taken from the compiler's own scopes.

`baloot rules names` compiles the variant with an observer (rules/compile.py `observe`) that is
told the Scope of every expression it checks; grouped by where the expression is (a phase's
rules, effects and phase expressions; functions; facts; scoring steps; match steps), those scopes
are exactly what an expression there may name. Types come from declarations where there are any
(a state variable's `initial`, a constant's value, a knob's values, a function's body read from
its parse tree, a builtin's documented result) and are "unknown" otherwise. The meanings of the
engine's own fields and of the aggregates are written here once; a test keeps their keys equal to
the compiler's sets, so they cannot drift.
"""

from __future__ import annotations

from ..errors import BalootError
from ..expr.builtins import BUILTIN_DOCS
from ..expr.compiler import AGGREGATES
from ..suggest import did_you_mean
from .loader import Variant

# The fields the engine keeps (rules/scopes.py GENERIC_STATE): type and meaning.
ENGINE_FIELDS = {
    "dealer": ("seat", "the seat that dealt this hand"),
    "actor": ("seat", "the seat whose action is being judged or applied (none between actions)"),
    "phase": ("text", "the name of the current phase"),
    "public": ("card", "the public card, face up after the first deal"),
    "exposed": ("card or none", "a card exposed by accident during the deal, if the deal says so"),
    "hands": ("map seat -> list of cards", "the cards each seat holds now"),
    "hand": ("list of cards", "the cards the actor holds now (hands[actor])"),
    "initial": ("map seat -> list of cards", "the cards each seat was dealt before the bidding"),
    "dealt": ("map seat -> list of cards", "every card dealt to each seat so far"),
    "trick": ("list of plays", "the plays of the trick being played (a play has .seat, .card and its announcements)"),
    "tricks": ("list of tricks", "the finished tricks of the hand (a trick has .leader, .plays, .cards, .winner)"),
    "played": ("list of cards", "every card played in the hand so far, in order"),
    "match_scores": ("map team -> int", "the written match scores before this hand"),
    "all_cards": ("list of cards", "every card of the deck"),
    "all_seats": ("list of seats", "the seats in turn order"),
    "suits": ("list of suits", "the suits of the deck"),
}
# The names a match step sees besides the earlier steps (rules/scopes.py MATCH_CONTEXT).
MATCH_FIELDS = {
    "scores": ("map team -> int", "the match scores before the hand"),
    "hand": ("record", "the hand's scoring steps, as hand.<step name> (e.g. hand.written)"),
}
AGGREGATE_DOCS = {
    "any": ("bool", "any(cond for x in xs [if c]): some item satisfies cond"),
    "all": ("bool", "all(cond for x in xs [if c]): every item satisfies cond (true for none)"),
    "sum": ("int", "sum(e for x in xs [if c]): the total of e"),
    "count": ("int", "count(cond for x in xs [if c]): how many items satisfy cond"),
    "max": ("unknown", "max(e for x in xs [if c]): the greatest e (none when no item is left)"),
    "min": ("unknown", "min(e for x in xs [if c]): the least e (none when no item is left)"),
    "first": ("unknown", "first(x for x in xs if c): the first item that satisfies c (none if none does)"),
    "map": ("map", "map(e for x in xs [if c]): the map x -> e"),
}
# The attributes of the engine's values (rules/scopes.py GENERIC_ATTRIBUTES).
ATTRIBUTE_TYPES = {
    "suit": "suit", "rank": "rank", "seat": "seat", "card": "card", "leader": "seat",
    "plays": "list of plays", "winner": "seat", "cards": "list of cards",
}
BUILTIN_TYPES = {
    "len": "int", "abs": "int", "index": "int", "round_to": "int", "windows": "list", "flatten": "list",
    "unique": "list", "runs": "list of lists of cards", "best_split": "list of records", "text": "text",
    "seat_after": "seat", "distance": "int",
}


class NamesError(BalootError):
    """An unknown context asked for (a usage error)."""


def _type_of_value(value) -> str:
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, int):
        return "int"
    if isinstance(value, str):
        return "text"
    if value is None:
        return "unknown (none at first)"
    if isinstance(value, list):
        kinds = sorted({_type_of_value(v) for v in value})
        return f"list of {kinds[0]}" if len(kinds) == 1 else "list"
    if isinstance(value, dict):
        keys = sorted({_type_of_value(k) for k in value})
        values = sorted({_type_of_value(v) for v in value.values()})
        if len(keys) == 1 and len(values) == 1:
            return f"map {keys[0]} -> {values[0]}"
        return "map"
    return "unknown"


class _Types:
    """Result types of rule functions, read from their parse trees where the shape says it."""

    BOOL_NODES = {"compare", "in_", "not_in", "and_", "or_", "not_", "true", "false"}

    def __init__(self, variant: Variant):
        self.bodies = {f["name"]: f for f in variant.ruleset.lists["functions"]}
        self.state = {name: _type_of_value(spec.get("initial")) for name, spec in variant.ruleset.maps["state"].items()}
        self.consts = {name: _type_of_value(_plain(value)) for name, value in variant.ruleset.maps["constants"].items()}
        self.knobs = {name: _knob_type(knob) for name, knob in variant.params.items()}
        self.memo: dict[str, str] = {}

    def function(self, name: str) -> str:
        if name not in self.memo:
            self.memo[name] = "unknown"   # (recursion: unknown)
            from ..expr.parser import parse_expression
            try:
                self.memo[name] = self.node(parse_expression(str(self.bodies[name]["expr"])))
            except Exception:
                self.memo[name] = "unknown"
        return self.memo[name]

    def node(self, tree) -> str:
        kind = getattr(tree, "data", None)
        children = getattr(tree, "children", [])
        if kind in self.BOOL_NODES:
            return "bool"
        if kind in ("number", "neg"):
            return "int"
        if kind == "string":
            return "text"
        if kind in ("list_", "listcomp"):
            return "list"
        if kind == "record":
            return "record"
        if kind == "binop":
            if str(children[1]) in ("*", "//", "%", "-"):
                return "int"
            found = {self.node(children[0]), self.node(children[2])}
            return "int" if found == {"int"} else ("list" if all(t.startswith("list") for t in found) else "unknown")
        if kind == "attr":
            target, attribute = children
            space = str(target.children[0]) if getattr(target, "data", None) == "name" else None
            if space == "const":
                return self.consts.get(str(attribute), "unknown")
            if space == "param":
                return self.knobs.get(str(attribute), "unknown")
            return ATTRIBUTE_TYPES.get(str(attribute), "unknown")
        if kind == "index":
            container = self.node(children[0])
            if container.startswith("map ") and " -> " in container:
                return container.split(" -> ", 1)[1]
            if container.startswith("list of "):
                return container[len("list of "):].removesuffix("s") if container.endswith(("cards", "seats", "suits", "plays", "tricks")) else container[len("list of "):]
            return "unknown"
        if kind == "ifexp":
            found = {self.node(children[0]), self.node(children[2])}
            return found.pop() if len(found) == 1 else "unknown"
        if kind == "aggregate":
            return AGGREGATE_DOCS.get(str(children[0]), ("unknown",))[0]
        if kind == "call":
            name = str(children[0])
            if name in self.bodies:
                return self.function(name)
            return BUILTIN_TYPES.get(name, "unknown")
        if kind == "name":
            name = str(children[0])
            if name in self.bodies:
                return self.function(name)
            if name in ENGINE_FIELDS:
                return ENGINE_FIELDS[name][0]
            return self.state.get(name, "unknown")
        return "unknown"


def _context_of(variant: Variant, item_id: str) -> str | None:
    section, item = variant.ruleset.find(item_id)
    if item is None:
        return None
    if section in ("rules", "effects"):
        return f"phase {item['phase']}"
    if section == "phases":
        return f"phase {item['name']}"
    return section   # functions, facts, scoring, match


def observed_scopes(variant: Variant) -> dict:
    """context -> {"state": set, "action": set, "scope": a Scope seen there} (compiles the variant)."""
    from .compile import compile_variant
    seen: dict = {}

    def observe(scope, item_id):
        context = _context_of(variant, item_id)
        if context is None:
            return
        entry = seen.setdefault(context, {"state": set(), "action": set(), "scope": scope})
        entry["state"] |= set(scope.state)
        entry["action"] |= set(scope.action)
    compile_variant(variant, None, observe)
    return seen


def _knob_type(knob) -> str:
    if knob.type == "bool":
        return "bool"
    if knob.type == "int":
        return f"int {knob.minimum}..{knob.maximum}"
    return "one of " + ", ".join(repr(v) for v in knob.values)


def _action_fields(variant: Variant, phase: str) -> dict:
    """field -> (type, meaning) from the phase's declaration."""
    _section, declared = variant.ruleset.find(next(p["id"] for p in variant.ruleset.lists["phases"] if p["name"] == phase))
    out = {}
    for action, params in (declared.get("actions") or {}).items():
        for field, domain in params.items():
            if domain == "suits":
                out[field] = ("suit", f"the suit named by a {action} action")
            elif isinstance(domain, list) and domain and all(isinstance(v, bool) for v in domain):
                out[field] = ("bool", f"the {field} flag of a {action} action")
            else:
                out[field] = ("one of " + ", ".join(repr(v) for v in domain), f"the {field} of a {action} action")
    if declared.get("kind") == "tricks":
        out["card"] = ("card", f"the card of the {declared.get('action', 'play')} being judged")
        for name, spec in (declared.get("annotations") or {}).items():
            out[name] = (str(spec.get("type", "unknown")), f"announced with the card (default {spec.get('default')!r})")
    return out


def _short_expr(text) -> str:
    text = "= " + " ".join(str(text).split())
    return text if len(text) <= 80 else text[:77] + "..."


def _step_meaning(item) -> str:
    return str(item.get("doc") or _short_expr(item["expr"]))


def names_listing(variant: Variant, phase: str | None = None) -> dict:
    """Every name per context, with kind, type and meaning (JSON-ready)."""
    scopes = observed_scopes(variant)
    if phase is not None:
        wanted = phase if phase in scopes else f"phase {phase}"
        if wanted not in scopes:
            choices = [c.removeprefix("phase ") for c in scopes]
            raise NamesError(f"unknown phase or context {phase!r}{did_you_mean(phase, choices)} (one of: {', '.join(choices)})")
        scopes = {wanted: scopes[wanted]}
    types = _Types(variant)
    rules_state = variant.ruleset.maps["state"]
    steps = {item["name"]: (section, item) for section in ("facts", "scoring", "match")
             for item in variant.ruleset.lists[section]}
    contexts = {}
    for context, seen in scopes.items():
        entries = []
        for name in sorted(seen["state"]):
            if context == "match" and name in MATCH_FIELDS:
                kind, (type_, meaning) = "match context", MATCH_FIELDS[name]
            elif context in ("scoring", "match") and name in steps:   # (a fact may share a state's name)
                section, item = steps[name]
                kind, type_, meaning = {"facts": "fact", "scoring": "scoring step", "match": "match step"}[section], \
                    types.node(_parsed(item["expr"])), _step_meaning(item)
            elif name in ENGINE_FIELDS:
                kind, (type_, meaning) = "engine state", ENGINE_FIELDS[name]
            elif name in rules_state:
                kind, type_, meaning = "state", types.state[name], str(rules_state[name].get("doc", ""))
            elif name in steps:
                section, item = steps[name]
                kind, type_, meaning = {"facts": "fact", "scoring": "scoring step", "match": "match step"}[section], \
                    types.node(_parsed(item["expr"])), _step_meaning(item)
            else:
                kind, type_, meaning = "state", "unknown", ""
            entries.append({"name": name, "kind": kind, "type": type_, "meaning": meaning})
        if seen["action"]:
            fields = _action_fields(variant, context.removeprefix("phase "))
            for name in sorted(seen["action"]):
                type_, meaning = fields.get(name, ("unknown", ""))
                entries.append({"name": name, "kind": "action field", "type": type_,
                                "meaning": meaning + " (not in a rule's `when`)"})
        contexts[context] = entries
    scope = next(iter(scopes.values()))["scope"] if scopes else None
    functions = []
    for item in variant.ruleset.lists["functions"]:
        params = list(item.get("params") or [])
        call = f"{item['name']}({', '.join(params)})" if params else item["name"]
        type_ = types.function(item["name"])
        if type_ == "unknown" and str(item.get("doc") or "").startswith("Whether "):
            type_ = "bool (from its doc)"
        functions.append({"name": call, "kind": "function", "type": type_,
                          "meaning": str(item.get("doc") or "") or _short_expr(item["expr"])})
    builtins = [{"name": name, "kind": "builtin", "type": BUILTIN_TYPES.get(name, "unknown"), "meaning": doc}
                for name, (_low, _high, doc) in sorted(BUILTIN_DOCS.items()) if scope is None or name in scope.builtins]
    aggregates = [{"name": name, "kind": "aggregate", "type": AGGREGATE_DOCS[name][0], "meaning": AGGREGATE_DOCS[name][1]}
                  for name in sorted(AGGREGATES)]
    constants = [{"name": f"const.{name}", "kind": "constant", "type": _type_of_value(_plain(value)), "meaning": _short(value)}
                 for name, value in variant.ruleset.maps["constants"].items()]
    knobs = [{"name": f"param.{name}", "kind": "knob", "type": _knob_type(knob),
              "meaning": (knob.doc or "; ".join(f"{_text(v)}: {d['doc']}" for v, d in knob.values.items()))
              + f" (this variant: {_text(variant.knobs[name])})", "value": variant.knobs[name]}
             for name, knob in variant.params.items()]
    return {"variant": variant.describe(), "contexts": contexts,
            "everywhere": {"functions": functions, "builtins": builtins, "aggregates": aggregates,
                           "constants": constants, "knobs": knobs}}


def _text(value) -> str:
    from ..text import show
    return show(value)


def _parsed(text):
    from ..expr.parser import parse_expression
    try:
        return parse_expression(str(text))
    except Exception:
        return None


def _plain(value):
    from .identity import plain
    return plain(value)


def _short(value) -> str:
    from .identity import canonical
    text = canonical(value)
    return "= " + (text if len(text) <= 60 else text[:57] + "...")


def names_text(listing: dict) -> str:
    """The listing for people: one line per name."""
    lines = [f"variant {listing['variant']['preset']} ({listing['variant']['hash']})"]

    def block(title, entries):
        lines.append("")
        lines.append(title)
        width = max((len(e["name"]) for e in entries), default=0)
        type_width = min(max((len(e["type"]) for e in entries), default=0), 28)
        for e in entries:
            lines.append(f"  {e['name']:<{width}}  {e['type']:<{type_width}}  {e['kind']}: {e['meaning']}".rstrip())
    for context, entries in listing["contexts"].items():
        block(f"{context}: state and action names", entries)
    for title, entries in listing["everywhere"].items():
        block(f"{title} (everywhere)", entries)
    return "\n".join(lines) + "\n"
