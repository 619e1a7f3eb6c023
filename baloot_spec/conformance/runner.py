"""Run conformance cases against the built-in engine.

Each case kind maps to one question the rules answer: the legal set at a position, the rule
that refuses an event, a hand's result, the scoring of given facts, the projects of given hands,
the course of a match. The answer is compared with the case's hand-computed `expect`.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field

from ..errors import BalootError, IllegalAction
from ..expr.builtins import Rec
from ..rules import load_variant
from ..engine.hand import Hand, match_step, score_facts
from ..engine.state import State
from ..text import plain
from .corpus import Case

PASS, FAIL, ERROR = "pass", "fail", "error"


@dataclass
class Outcome:
    case: Case
    status: str
    message: str = ""
    expected: object = None
    actual: object = None
    details: dict = field(default_factory=dict)
    keys: dict = field(default_factory=dict)    # expected key -> pass / fail / unsupported

    def as_json(self) -> dict:
        out = {"id": self.case.id, "status": self.status, "kind": self.case.kind, "features": self.case.features}
        if self.message:
            out["message"] = self.message
        if self.keys:
            out["keys"] = dict(self.keys)
        if self.status == FAIL:
            out["expected"], out["actual"] = self.expected, self.actual
        return out


def rules_for(case: Case):
    variant = case.data["variant"]
    return load_variant(variant.get("preset", "default"), variant.get("set") or {}, variant.get("overlays") or [])


def run_case(case: Case, rules=None) -> Outcome:
    """Run one case (under `rules` when given, already loaded for the case's variant); never
    raises for a problem in the case or the rules (status error)."""
    try:
        rules = rules if rules is not None else rules_for(case)
        runner = _KINDS[case.kind]
        expected, actual = runner(rules, case)
    except SetupRefused as exc:
        return Outcome(case, ERROR, str(exc))
    except BalootError as exc:
        return Outcome(case, ERROR, f"{type(exc).__name__}: {exc}")
    return compared_outcome(case, expected, actual)


KEY_UNSUPPORTED = "unsupported"    # (the same word as status.UNSUPPORTED: a case none of whose keys ran)


def compare_keys(expected: dict, actual, produced=None) -> dict:
    """Each expected key's outcome: pass, fail, or unsupported when the engine does not produce
    it (`produced`: the keys it declares, None for all) or leaves it out of its answer."""
    out = {}
    for key, value in expected.items():
        if (produced is not None and key not in produced) or not isinstance(actual, dict) or key not in actual:
            out[key] = KEY_UNSUPPORTED
        else:
            out[key] = PASS if matches_expected(value, actual[key]) else FAIL
    return out


def compared_outcome(case: Case, expected: dict, actual, produced=None) -> "Outcome":
    """The case's outcome from its per-key outcomes: it fails only on a key the engine produced,
    and is unsupported when no key could be compared."""
    keys = compare_keys(expected, actual, produced)
    failed = [k for k, v in keys.items() if v == FAIL]
    if failed:
        shown = {k: expected[k] for k in failed}
        got = {k: actual[k] for k in failed}
        return Outcome(case, FAIL, difference(shown, got), expected, actual, keys=keys)
    if not any(v == PASS for v in keys.values()):
        return Outcome(case, KEY_UNSUPPORTED, "the engine produced none of the expected keys: " + ", ".join(keys), keys=keys)
    return Outcome(case, PASS, keys=keys)


class SetupRefused(BalootError):
    """An event of a case's (or position's) setup that the rules refuse; `index` says which
    (None: not one event), so that two refusals can be told apart (the fingerprint)."""

    def __init__(self, message: str, index: int | None = None):
        super().__init__(message)
        self.index = index


def replay_setup(rules, setup: dict) -> Hand:
    """The position after a setup's deal and events (SetupRefused, located, if one is refused)."""
    hand = Hand(rules, setup["dealer"], setup["deal"], setup.get("match_scores"))
    for index, event in enumerate(setup.get("events", [])):
        try:
            hand.apply(event)
        except IllegalAction as refusal:
            raise SetupRefused(f"setup.events[{index}] {json.dumps(event)} was refused: {refusal}", index) from None
    return hand


def canonical_action(action: dict) -> str:
    """An action as comparable text: seat dropped, defaults filled, cards normalised."""
    out = {k: v for k, v in action.items() if k != "seat"}
    if out.get("type") == "play":
        card = str(out.get("card", "")).upper()
        out = {"type": "play", "card": "T" + card[2:] if card.startswith("10") else card}
    if out.get("type") == "double":
        out.setdefault("closed", False)
    return json.dumps(out, sort_keys=True)


def legal_answer(hand: Hand, case: Case):
    """(expected, actual) of a `legal` case at a hand (reached from events or from a position)."""
    expect = case.data["expect"]
    actual = {"turn": hand.turn(), "legal": sorted(canonical_action(a) for a in hand.legal())}
    expected = {"turn": expect["turn"], "legal": sorted(canonical_action(a) for a in expect["legal"])}
    if "phase" in expect:
        expected["phase"], actual["phase"] = expect["phase"], hand.phase
    return expected, actual


def reject_answer(hand: Hand, case: Case):
    """(expected, actual) of a `reject` case at a hand."""
    refusal = hand.check(case.data["action"])
    return {"reject": case.data["expect"]["reject"]}, {"reject": refusal.rule_id if refusal else None,
                                                      "message": refusal.message if refusal else "accepted"}


def hand_answer(hand: Hand, case: Case):
    """(expected, actual) of a `hand` case at a hand that must be over."""
    if not hand.is_over():
        raise SetupRefused(f"the events end before the hand does (phase {hand.phase}, {hand.turn()} to act)")
    return dict(case.data["expect"]), plain(hand.result())


# the case kinds asked of a hand: the same question whichever setup form reached it
HAND_QUESTIONS = {"legal": legal_answer, "reject": reject_answer, "hand": hand_answer}


def _legal(rules, case):
    return legal_answer(replay_setup(rules, case.data["setup"]), case)


def _reject(rules, case):
    return reject_answer(replay_setup(rules, case.data["setup"]), case)


def _hand(rules, case):
    return hand_answer(replay_setup(rules, case.data["setup"]), case)


def score_case(rules, case):
    """(expected, actual) of a score case: its facts given, the scoring steps run (also how
    conformance/difference.py finds the steps two variants score a case differently by)."""
    setup = case.data["setup"]
    teams = list(rules.table.teams)
    facts = Rec(mode=setup["mode"], buyer=setup["buyer"], doubling=list(setup.get("doubling", [])),
                card_points=Rec(setup["card_points"]), tricks=Rec(setup["tricks"]),
                projects=Rec({t: list(setup.get("projects", {}).get(t, [])) for t in teams}),
                baloot=Rec(setup.get("baloot") or {t: False for t in teams}),
                match_scores=Rec(setup.get("match_scores") or {t: 0 for t in teams}))
    return dict(case.data["expect"]), plain(score_facts(rules, facts))


def projects_position(rules, setup: dict) -> dict:
    """Projects, comparison and Baloot for dealt hands (the `projects` case kind)."""
    S = State(rules, setup["dealer"], {t: 0 for t in rules.table.teams})
    S.mode, S.trump = setup["mode"], setup.get("trump")
    S.dealt = dict(S.dealt)   # (its own to write: a fresh state holds the variant's, shared)
    for seat, cards in setup["hands"].items():
        S.dealt[seat] = [rules.deck.parse(c) for c in cards]
    fn = rules.functions
    S.projects = Rec({seat: fn["best_projects"](S, S.dealt[seat]) for seat in S.all_seats})
    leader = fn["at"](S, 1)
    order = [rules.table.after(leader, i) for i in range(len(S.all_seats))]
    declared = setup.get("declared")
    S.declared = []
    for seat in order:
        names = declared.get(seat, []) if declared is not None else [p.name for p in S.projects[seat]]
        S.declared += [Rec(seat=seat, name=name) for name in names]
    S._kept = {}   # (rule fields set here, not by effects: the kept derived values afresh, rules/passes/kept.py)
    holder = fn["baloot_holder"](S)
    S.baloot_said = [holder] if holder else []
    S._kept = {}
    credited = fn["credited_projects"](S)
    team_of = rules.table.team_of
    return {
        "projects": {seat: [{"name": p.name, "cards": sorted(c.text for c in p.cards)} for p in S.projects[seat]]
                     for seat in S.all_seats},
        "credited_team": fn["project_winner_team"](S),
        "credited": {t: sum(c.project.value for c in credited if team_of[c.seat] == t) for t in rules.table.teams},
        "baloot": holder if fn["baloot_team"](S) is not None else None,
    }


def _projects(rules, case):
    actual = projects_position(rules, case.data["setup"])
    expected = dict(case.data["expect"])
    if "projects" in expected:
        expected["projects"] = {seat: [{"name": p["name"], "cards": sorted(norm_card(c) for c in p["cards"])}
                                       for p in projects] for seat, projects in expected["projects"].items()}
        actual["projects"] = {seat: actual["projects"].get(seat, []) for seat in expected["projects"]}
        for side in (expected, actual):
            side["projects"] = {s: sorted(ps, key=lambda p: json.dumps(p, sort_keys=True)) for s, ps in side["projects"].items()}
    return expected, {k: actual[k] for k in expected}


def run_match(rules, start: dict, hands: list) -> dict:
    """A match from written scores: each hand as the case gives it ({written, gahwa: team})."""
    scores = Rec(start)
    ended_after, winner = None, None
    for number, hand in enumerate(hands, 1):
        gahwa_team = hand.get("gahwa")
        values = match_step(rules, scores, {"written": Rec(hand["written"]), "winner": gahwa_team,
                                            "gahwa": gahwa_team is not None})
        scores = values.new_scores
        if values.ended:
            ended_after, winner = number, values.winner
            break
    return {"winner": winner, "scores": dict(scores), "ended_after": ended_after}


def _match(rules, case):
    setup = case.data["setup"]
    actual = run_match(rules, setup.get("start") or {t: 0 for t in rules.table.teams}, setup["hands"])
    return dict(case.data["expect"]), actual


def _audit(rules, case):
    from ..audit import audit_input
    from ..log.reader import LogInput, check_document
    document = case.data["setup"]["log"]
    problems = check_document(document)
    if problems:
        raise SetupRefused(f"setup.log is not a valid baloot-log/1 document: {problems[0]['path']}: {problems[0]['message']}")
    report = audit_input(LogInput(case.path, None, document))
    if report.errors:
        raise SetupRefused(f"setup.log cannot be audited: {report.errors[0]}")
    key = lambda v: (v["path"], v["rule"])
    expected = sorted(({"path": v["path"], "rule": v["rule"]} for v in case.data["expect"]["violations"]), key=key)
    actual = sorted(({"path": v.path, "rule": v.rule} for v in report.violations), key=key)
    return {"violations": expected}, {"violations": actual}


_KINDS = {"legal": _legal, "reject": _reject, "hand": _hand, "score": score_case, "projects": _projects, "match": _match,
          "audit": _audit}


def reference_pair(rules, case: Case):
    """(expected, actual) of the case under `rules` (the reference engine's answer, uncompared);
    SetupRefused / BalootError as run_case meets them."""
    return _KINDS[case.kind](rules, case)


def norm_card(text: str) -> str:
    text = text.upper()
    return "T" + text[2:] if text.startswith("10") else text


def matches_expected(expected, actual) -> bool:
    """Every key of `expected` has the same value in `actual` (extra actual keys are ignored)."""
    if isinstance(expected, dict):
        return isinstance(actual, dict) and all(k in actual and matches_expected(v, actual[k]) for k, v in expected.items())
    return expected == actual


def difference(expected, actual) -> str:
    parts = []
    for key, value in expected.items():
        got = actual.get(key, "(missing)") if isinstance(actual, dict) else actual
        if not matches_expected(value, got):
            parts.append(f"{key}: expected {json.dumps(value)}, got {json.dumps(got, default=str)}")
    return "; ".join(parts)
