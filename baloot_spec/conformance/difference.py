"""The rule ids that make a case's answer differ between two variants (for `derived.rules`).

legal: for every action offered under one variant and not the other, the rule refusing it where
it is refused; reject: the refusal ids of both; hand and score: the facts and scoring steps whose
values differ; match: the match steps whose values differ at some hand. Where none of these
names a rule (a different turn, projects), the rules that read a knob on which the variants
differ, and the rules an overlay replaced, added or removed.
"""

from __future__ import annotations

import json

from ..errors import BalootError
from ..expr.builtins import Rec
from ..engine.hand import match_step
from ..text import plain
from .corpus import Case
from .runner import canonical_action, replay_setup, rules_for


def difference_rules(case: Case, old_rules, new_rules) -> list[str]:
    """Rule ids explaining why the case's answer differs under `new_rules` (sorted, unique)."""
    try:
        found = _SPECIFIC.get(case.kind, lambda *a: set())(case, old_rules, new_rules)
    except (BalootError, KeyError, TypeError, ValueError):
        found = set()
    return sorted(found or knob_and_overlay_rules(old_rules, new_rules))


def knob_and_overlay_rules(old_rules, new_rules) -> set:
    """Rules reading a knob whose value differs, and rules that differ between the rule sets."""
    old, new = old_rules.variant, new_rules.variant
    knobs = [k for k in new.knobs if old.knobs.get(k) != new.knobs[k]]
    items_old = {item["id"]: item for _, item in old.ruleset.items()}
    items_new = {item["id"]: item for _, item in new.ruleset.items()}
    out = set()
    for item_id in set(items_old) | set(items_new):
        a, b = items_old.get(item_id), items_new.get(item_id)
        text = json.dumps(b if b is not None else a, sort_keys=True, default=str)
        if a is None or b is None or json.dumps(a, sort_keys=True, default=str) != text:
            out.add(item_id)
        elif any(f"param.{k}" in text for k in knobs):
            out.add(item_id)
    return out


def _legal(case, old_rules, new_rules):
    hands = {which: replay_setup(rules, case.data["setup"]) for which, rules in (("old", old_rules), ("new", new_rules))}
    offered = {which: {canonical_action(a): a for a in hand.legal()} for which, hand in hands.items()}
    out = set()
    for here, there in (("old", "new"), ("new", "old")):
        for key in set(offered[here]) - set(offered[there]):
            refusal = hands[there].check(dict(offered[here][key], seat=hands[there].turn()))
            if refusal is not None and refusal.rule_id:
                out.add(refusal.rule_id)
    return out


def _reject(case, old_rules, new_rules):
    out = set()
    for rules in (old_rules, new_rules):
        refusal = replay_setup(rules, case.data["setup"]).check(case.data["action"])
        if refusal is not None and refusal.rule_id:
            out.add(refusal.rule_id)
    return out


def _named_ids(rules, sections) -> dict:
    return {item["name"]: item["id"] for section in sections for item in rules.variant.ruleset.lists.get(section, [])
            if "name" in item}


def _changed(old_values: dict, new_values: dict, ids: dict) -> set:
    return {ids[name] for name in ids if name in old_values and plain(old_values.get(name)) != plain(new_values.get(name))}


def _hand(case, old_rules, new_rules):
    old = replay_setup(old_rules, case.data["setup"])
    new = replay_setup(new_rules, case.data["setup"])
    ids = _named_ids(new_rules, ("facts", "scoring"))
    return _changed(dict(old.score or {}), dict(new.score or {}), ids)


def _score(case, old_rules, new_rules):
    from .runner import score_case as score_of_case
    old, new = score_of_case(old_rules, case)[1], score_of_case(new_rules, case)[1]
    return _changed(old, new, _named_ids(new_rules, ("scoring",)))


def _match(case, old_rules, new_rules):
    setup = case.data["setup"]
    ids = _named_ids(new_rules, ("match",))
    out = set()
    scores = {"old": Rec(setup.get("start") or {t: 0 for t in new_rules.table.teams})}
    scores["new"] = Rec(scores["old"])
    for hand in setup["hands"]:
        gahwa = hand.get("gahwa")
        step = {"written": Rec(hand["written"]), "winner": gahwa, "gahwa": gahwa is not None}
        values = {which: match_step(rules, scores[which], dict(step))
                  for which, rules in (("old", old_rules), ("new", new_rules))}
        out |= _changed(dict(values["old"]), dict(values["new"]), ids)
        if values["old"].ended or values["new"].ended:
            break
        scores = {which: v.new_scores for which, v in values.items()}
    return out


_SPECIFIC = {"legal": _legal, "reject": _reject, "hand": _hand, "score": _score, "match": _match}


def old_rules_of(case: Case):
    return rules_for(case)
