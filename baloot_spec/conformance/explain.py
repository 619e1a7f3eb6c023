"""Failures that explain themselves: for a failing case, what it is about and which rule decides it.

A report must say more than "not legal but offered play 8S": the case's title, its source
(ref and quoted sentence), its note, where it is written (as the repository names the file),
the knobs it depends on and, for a legal-set or refusal difference, the rule of the reference
engine that decides each differing action:

- an action the engine offers or accepts but our rules refuse: the rule that refuses it
  (`Hand.check`, the engine's own refusal, so the id is exactly the refusal id);
- an action the engine leaves out or refuses but our rules allow: the filter rules of the phase
  that applied at that position and kept it (none: nothing restricts that action there);
- another player to act (or another phase): the phase that gives the turn (in a trick phase,
  who won the last trick leads);
- a differing score, hand result, match or projects key: the scoring step, match step or
  function of that name;
- a setup event the engine refuses (the case errors): the rules that keep that event, as for
  an action wrongly refused.

Nothing here decides a rule: it asks the engine and reads the rules' own ids, explain texts and
sources.
"""

from __future__ import annotations

import json

from ..errors import BalootError, IllegalAction
from .runner import ERROR, FAIL, replay_setup, rules_for

NO_RULE = "(no rule)"
PROJECT_FUNCTIONS = {"projects": "best_projects", "credited_team": "project_winner_team",
                     "credited": "credited_projects", "baloot": "baloot_team"}


def repo_path(case) -> str:
    """The case's place as the repository names it (`conformance/cases/...#/cases/N`), also when
    it was read from the installed package (`_conformance/...`)."""
    path = case.path
    return "conformance/" + path[len("_conformance/"):] if path.startswith("_conformance/") else path


def case_knobs(case) -> dict:
    """The knobs of a case: those its expectation depends on (None: not computed for this case)
    and those its variant sets, with the values its variant gives them."""
    variant = case.data["variant"]
    depends = case.depends_on
    sets = dict(variant.get("set") or {})
    names = sorted(set(depends or ()) | set(sets))
    values = {}
    if names:
        try:
            knobs = rules_for(case).variant.knobs
        except BalootError:
            knobs = sets
        values = {name: knobs.get(name, sets.get(name)) for name in names}
    return {"depends_on": None if depends is None else list(depends), "set": sets,
            "preset": variant.get("preset", "default"), "values": values}


def knob_labels(knobs: dict) -> list[str]:
    """`knob=value` for each knob of case_knobs(): what a failure is grouped by."""
    return [f"{name}={json.dumps(value) if not isinstance(value, str) else value}" for name, value in knobs["values"].items()]


def explanation(outcome) -> dict:
    """Everything a person needs to judge a failing (or erroring) case."""
    case = outcome.case
    data = case.data
    out = {"title": data.get("title", ""), "source": dict(data.get("source") or {}), "note": data.get("note", ""),
           "path": repo_path(case), "knobs": case_knobs(case)}
    out["knob_labels"] = knob_labels(out["knobs"])
    out["rules"] = deciding_rules(outcome) if outcome.status == FAIL else refused_setup_rules(outcome)
    return out


def refused_setup_rules(outcome) -> list[dict]:
    """For a case that errored because the engine refused a setup event our rules accept: the
    rules of the phase that kept that event (its departure, as a wrongly refused action)."""
    index = outcome.details.get("refused_event")
    if outcome.status != ERROR or index is None:
        return []
    case = outcome.case
    try:
        rules = rules_for(case)
        setup = dict(case.data["setup"])
        events = setup.get("events", [])
        hand = replay_setup(rules, dict(setup, events=events[:index]))
        event = events[index]
        found: dict = {}
        shown = json.dumps({k: v for k, v in event.items() if k != "seat"}, sort_keys=True)
        for rule in keeping_rules(hand, event) or [NO_RULE]:
            _add(found, rules, rule, "keeps", shown, None)
        return list(found.values())
    except BalootError:
        return []


def explain_outcomes(outcomes) -> None:
    """Attach explanation() to every failing or erroring outcome (details["explain"])."""
    for outcome in outcomes:
        if outcome.status in (FAIL, ERROR) and "explain" not in outcome.details:
            try:
                outcome.details["explain"] = explanation(outcome)
            except Exception as exc:   # an explanation must never cost the run its verdicts
                outcome.details["explain"] = {"title": outcome.case.data.get("title", ""), "path": repo_path(outcome.case),
                                              "rules": [], "knob_labels": [], "problem": f"{type(exc).__name__}: {exc}"}


def rule_ids(outcome) -> list[str]:
    """The rule ids a failing outcome is grouped under (NO_RULE when none decides it)."""
    rules = (outcome.details.get("explain") or {}).get("rules") or []
    return sorted({r["rule"] for r in rules}) or [NO_RULE]


# ---- which rule decides ---------------------------------------------------------------------------
def deciding_rules(outcome) -> list[dict]:
    """[{rule, why, actions|keys, explain?, source?}] for a failing outcome, from the reference engine."""
    case = outcome.case
    try:
        rules = rules_for(case)
        if case.kind == "legal":
            return _legal_rules(rules, case, outcome)
        if case.kind == "reject":
            return _reject_rules(rules, case, outcome)
        if case.kind == "audit":
            return _audit_rules(rules, outcome)
        return _key_rules(rules, case, outcome)
    except BalootError:
        return []


def _legal_rules(rules, case, outcome) -> list[dict]:
    expected, actual = outcome.expected or {}, outcome.actual or {}
    hand = replay_setup(rules, case.data["setup"])
    found: dict = {}
    if FAIL in (outcome.keys.get("turn"), outcome.keys.get("phase")):
        # another player (or phase) than ours: the legal sets are not comparable; what decides
        # is the phase's turn (in a trick phase: who won the last trick leads)
        rule = hand.phase_rule_id() or NO_RULE
        _add(found, rules, rule, "gives the turn to", str(expected.get("turn")), None)
        return list(found.values())
    if "legal" not in actual or outcome.keys.get("legal") != FAIL:
        return []
    wanted, got = set(expected["legal"]), set(actual["legal"])
    for text in sorted(got - wanted):
        refusal = _refusal(hand, json.loads(text))
        rule = refusal.rule_id if refusal else NO_RULE
        _add(found, rules, rule, "refuses", text, refusal.message if refusal else "our engine accepts it too")
    for text in sorted(wanted - got):
        keeping = keeping_rules(hand, json.loads(text))
        for rule in keeping or [NO_RULE]:
            _add(found, rules, rule, "keeps", text, None)
    return list(found.values())


def _reject_rules(rules, case, outcome) -> list[dict]:
    rule = case.data["expect"]["reject"]
    action = dict(case.data["action"])
    message = None
    try:
        refusal = _refusal(replay_setup(rules, case.data["setup"]), action)
        message = refusal.message if refusal else None
    except BalootError:
        pass
    found: dict = {}
    _add(found, rules, rule, "refuses", json.dumps({k: v for k, v in action.items() if k != "seat"}, sort_keys=True), message)
    return list(found.values())


def _audit_rules(rules, outcome) -> list[dict]:
    expected = {(v["path"], v["rule"]) for v in (outcome.expected or {}).get("violations", [])}
    actual = {(v["path"], v["rule"]) for v in (outcome.actual or {}).get("violations", [])}
    found: dict = {}
    for path, rule in sorted(expected ^ actual):
        _add(found, rules, rule, "missed" if (path, rule) in expected else "reported", path, None)
    return list(found.values())


def _key_rules(rules, case, outcome) -> list[dict]:
    """A differing key of a score, hand, match or projects answer: the step or function named so."""
    steps = {name: rid for name, rid, _ in list(rules.scoring) + list(rules.match)}
    functions = {f["name"]: f["id"] for f in rules.variant.ruleset.lists["functions"]}
    found: dict = {}
    for key, status in outcome.keys.items():
        if status != FAIL:
            continue
        name = PROJECT_FUNCTIONS.get(key, key) if case.kind == "projects" else key
        if case.kind == "hand" and key == "next_dealer":
            name = "next_dealer"
        rule = steps.get(name) if case.kind != "projects" else None
        rule = rule or functions.get(name) or NO_RULE
        _add(found, rules, rule, "computes", key, None)
    return list(found.values())


def _refusal(hand, action: dict):
    """The IllegalAction our engine gives `action` by the player to act (None: it is legal)."""
    seat = hand.turn()
    try:
        return hand.check(dict(action, seat=seat))
    except IllegalAction as refusal:
        return refusal


def keeping_rules(hand, action: dict) -> list[str]:
    """The filter rules of the current phase that decided something about `action` at this
    position and kept it: each applied (its `when` held, and it was not skipped as
    `if_possible`), excluded some candidate of the same kind (any card in a trick phase; a call
    with the same word, or a trump with the same suit, in a calls phase) and kept this one. Empty
    when nothing restricts the action there.

    The walk of the engine's own narrowing (Hand.narrowing)."""
    family = None
    kept_by = []
    for rule_id, dropped, kept, tricks in hand.narrowing(action):
        if kept and dropped:
            family = family or (action.get("type"), action.get("call"), action.get("suit"))
            if tricks or any(_family(a) == family for a in dropped):
                kept_by.append(rule_id)
    return kept_by


def _family(action) -> tuple:
    """What makes two calls the same kind of call: the type and its word or suit."""
    return (action.type, getattr(action, "call", None), getattr(action, "suit", None))


def _add(found: dict, rules, rule: str, why: str, item: str, message: str | None) -> None:
    entry = found.get((rule, why))
    if entry is None:
        info = rule_info(rules.variant.ruleset, rule)
        entry = found[(rule, why)] = {"rule": rule, "why": why, "items": [], **info}
        if message:
            entry["message"] = message
    entry["items"].append(json.loads(item) if item.startswith("{") else item)


def rule_info(ruleset, rule: str) -> dict:
    """The explain text and source of a rule, scoring step, match step or function, by id."""
    held = _INDEXES.get(id(ruleset))
    if held is None or held[0] is not ruleset:
        held = _INDEXES[id(ruleset)] = (ruleset, _rule_index(ruleset))
    return dict(held[1].get(rule, {}))


_INDEXES: dict = {}   # id(ruleset) -> (ruleset, index); rulesets live as long as their cached variant


def _rule_index(ruleset) -> dict:
    index = {}
    for section in ("rules", "phases", "scoring", "match", "functions"):
        for item in ruleset.lists.get(section, []):
            if isinstance(item, dict) and "id" in item:
                index[item["id"]] = {k: item[k] for k in ("explain", "source") if k in item}
    return index
