"""The referee: replay recorded games, find every illegal action and every wrong score.

For each hand of a `baloot-log/1` document the auditor checks the dealer and the match scores
it starts from, asks the engine about every event (the refusing rule, its source, the legal
alternatives), forces a refused event that was physically possible (the card was held, it was
that player's turn) so the rest of the hand is still checked, and compares every `claimed`
result with the recomputed one, naming the scoring step where they part. It never raises on
bad input: an unreadable document is reported as an input error.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field

from .budget import BudgetExceeded, hand_budget, rearm
from .engine.deal import DealError
from .engine.hand import Hand, RuleRuntimeError, match_step
from .errors import BalootError, IllegalAction, RulesError
from .log.reader import LogInput, _parse
from .log.trust import log_variant
from .log.writer import CLAIMED_FROM_FACTS, CLAIMED_FROM_SCORE
from .rules import load_variant
from .text import plain


@dataclass
class Violation:
    path: str
    rule: str
    message: str
    source: str | None = None
    claimed: object = None
    recomputed: object = None

    def as_json(self, where: LogInput) -> dict:
        out = {"file": where.name, "line": where.line, "path": self.path, "rule": self.rule, "message": self.message}
        if self.source:
            out["source"] = self.source
        if self.claimed is not None or self.recomputed is not None:
            out["claimed"], out["recomputed"] = self.claimed, self.recomputed
        return out


@dataclass
class DocumentAudit:
    where: LogInput
    hands: int = 0
    violations: list = field(default_factory=list)
    notes: list = field(default_factory=list)
    errors: list = field(default_factory=list)     # unreadable input

    def as_json(self) -> dict:
        return {"file": self.where.name, "line": self.where.line, "hands": self.hands,
                "violations": [v.as_json(self.where) for v in self.violations],
                "notes": self.notes, "errors": self.errors}


def _variant_of(document: dict, override: dict | None):
    if override:
        return load_variant(override.get("preset", "default"), override.get("set") or {}, override.get("overlays") or [])
    return load_variant(*log_variant(document["variant"]))   # (overlays by registry name only: log/trust.py)


def audit_text(name: str, line: int | None, text: str, override: dict | None = None) -> dict:
    """Parse, check and audit one document given as text (what a worker process runs)."""
    return audit_input(_parse(text, name, line), override).as_json()


def audit_input(item: LogInput, override: dict | None = None) -> DocumentAudit:
    report = DocumentAudit(item)
    if item.errors or item.document is None:
        report.errors.extend(item.errors)
        return report
    document = item.document
    try:
        rules = _variant_of(document, override)
    except RulesError as exc:
        report.errors.append({"path": "$.variant", "message": f"the log's variant cannot be loaded: {exc.render()}"})
        return report
    claimed_hash = document["variant"].get("hash")
    if not override and claimed_hash and claimed_hash != rules.hash:
        report.violations.append(Violation("$.variant.hash", "log.variant-hash",
                                           f"the log says variant {claimed_hash}, its preset and settings resolve to {rules.hash}",
                                           claimed=claimed_hash, recomputed=rules.hash))
    if rules.hash in _OVER_BUDGET:   # (slow rules: once is enough, not once a document)
        report.errors.append({"path": "$", "message": f"the rules failed on an earlier log: {_OVER_BUDGET[rules.hash]}"})
        return report
    try:
        with hand_budget():
            _audit_match(rules, document, report)
    except RuleRuntimeError as exc:
        if isinstance(exc.__cause__, BudgetExceeded):
            _OVER_BUDGET[rules.hash] = str(exc)
        report.errors.append({"path": "$", "message": f"the rules failed on this log: {exc}"})
    except BudgetExceeded as exc:   # (raised outside any rule: the engine's own code was running)
        _OVER_BUDGET[rules.hash] = str(exc)
        report.errors.append({"path": "$", "message": f"the rules failed on this log: {exc}"})
    return report


_OVER_BUDGET: dict = {}   # variant hash -> the budget error it gave (budget.py)


def _audit_match(rules, document: dict, report: DocumentAudit) -> None:
    teams = list(rules.table.teams)
    scores = dict(document["match"].get("start") or {t: 0 for t in teams})
    expected_dealer = document["match"]["first_dealer"]
    ended_after = None
    match_winner = None
    scores_known = True
    step_ids = _step_ids(rules)
    for k, record in enumerate(document["hands"]):
        rearm()   # (the time budget per hand: budget.py)
        base = f"$.hands[{k}]"
        report.hands += 1
        if ended_after is not None:
            report.violations.append(Violation(base, "match.ended", f"the match was over after hand {ended_after + 1}, yet the log goes on"))
            return
        if not scores_known and "match_scores" in record:
            scores, scores_known = dict(record["match_scores"]), True
        if expected_dealer is not None and record["dealer"] != expected_dealer:
            report.violations.append(Violation(f"{base}.dealer", "deal.dealer",
                                               f"{record['dealer']} deals, but the deal passes to {expected_dealer}",
                                               "de: Vorbereitung 1 — Danach gibt jeweils der rechte Nachbar.",
                                               record["dealer"], expected_dealer))
        if scores_known and "match_scores" in record and dict(record["match_scores"]) != scores:
            report.violations.append(Violation(f"{base}.match_scores", "match.scores",
                                               f"the hand starts from {record['match_scores']}, the written scores so far are {scores}",
                                               "de: Spielende", record["match_scores"], dict(scores)))
        hand = _replay_hand(rules, record, base, scores, report)
        if hand is None or not hand.is_over():
            # Its written scores are unknown: the next hands are still checked, from the scores
            # and dealer they state; the match totals and claims can no longer be checked.
            scores_known = False
            expected_dealer = None
            continue
        result = hand.result()
        _compare_claimed(hand, result, record.get("claimed"), base, step_ids, report)
        expected_dealer = result["next_dealer"]
        if result["thrown_in"]:
            continue
        values = match_step(rules, scores, result)
        scores = dict(values["new_scores"])
        if values["ended"]:
            ended_after, match_winner = k, values["winner"]
    claimed = document.get("claimed")
    if claimed and not scores_known:
        report.notes.append("$.claimed: not checked, a hand could not be replayed so the match totals are unknown")
    elif claimed:
        if "scores" in claimed and dict(claimed["scores"]) != scores:
            report.violations.append(Violation("$.claimed.scores", "match.scores", f"claimed final scores {claimed['scores']}, recomputed {scores}",
                                               "de: Spielende", claimed["scores"], scores))
        if "winner" in claimed and claimed["winner"] != match_winner:
            report.violations.append(Violation("$.claimed.winner", "match.winner", f"claimed winner {claimed['winner']}, recomputed {match_winner}",
                                               "de: Spielende — Sobald eine Partei 152 Spielpunkte oder mehr hat, gewinnt die Partei mit mehr Punkten",
                                               claimed["winner"], match_winner))


def _step_ids(rules) -> dict:
    """Fact and scoring step name -> its id (what a wrong claim is reported under); per variant."""
    known = getattr(rules, "_audit_step_ids", None)
    if known is None:
        known = {name: step_id for name, step_id, _ in rules.facts}
        known.update({name: step_id for name, step_id, _ in rules.scoring})
        rules._audit_step_ids = known
    return known


def _replay_hand(rules, record: dict, base: str, scores: dict, report: DocumentAudit):
    try:
        hand = Hand(rules, record["dealer"], record["deal"], scores)
    except DealError as exc:   # a deal a rule refuses (a cut) names that rule, like a refused event
        report.violations.append(Violation(f"{base}.{exc.path}", exc.rule or "deal.invalid", str(exc), exc.source))
        return None
    for j, event in enumerate(record["events"]):
        try:
            refusal = hand.apply_unless_refused(event)
            if refusal is None:
                continue
        except DealError as exc:
            report.violations.append(Violation(f"{base}.{exc.path}", "deal.invalid", str(exc)))
            return None
        path = f"{base}.events[{j}]"
        legal = _legal_summary(hand)
        message = f"{_describe(event)}: {refusal.message}" + (f" (legal: {legal})" if legal else "")
        report.violations.append(Violation(path, refusal.rule_id, message, refusal.source))
        try:
            hand.apply(as_played(rules, hand, event, refusal), force=True)
        except IllegalAction:
            report.notes.append(f"{path}: the hand cannot be replayed past this event; the rest of hand {base} is not checked")
            return None
        except DealError as exc:
            report.violations.append(Violation(f"{base}.{exc.path}", "deal.invalid", str(exc)))
            return None
    if not hand.is_over():
        report.violations.append(Violation(f"{base}.events", "hand.incomplete",
                                           f"the events end in the {hand.phase} phase with {hand.turn()} to act"))
    return hand


def as_played(rules, hand, event: dict, refusal) -> dict:
    """What a refused event did at the table: a refused announcement (a `require` rule) was not
    validly said, so the fields it is about are dropped (an invalid Ekka excuses nobody); repeated
    while another announcement is refused. A refused card or call was really played: kept."""
    event = dict(event)
    while refusal is not None:
        rule = rules.rules_by_id.get(refusal.rule_id)
        if rule is None or rule.kind != "check" or not (rule.reads & set(event)):
            break
        for name in rule.reads:
            event.pop(name, None)
        refusal = hand.check(event)
    return event


def _compare_claimed(hand, result: dict, claimed: dict | None, base: str, step_ids: dict, report: DocumentAudit) -> None:
    if not claimed:
        return
    if "thrown_in" in claimed and claimed["thrown_in"] != result["thrown_in"]:
        report.violations.append(Violation(f"{base}.claimed.thrown_in", "claimed.thrown_in",
                                           f"claimed thrown_in {claimed['thrown_in']}, recomputed {result['thrown_in']}",
                                           claimed=claimed["thrown_in"], recomputed=result["thrown_in"]))
        return
    if result["thrown_in"]:
        return
    recomputed = {key: plain(hand.facts[key]) for key in CLAIMED_FROM_FACTS}
    recomputed["trump"] = getattr(hand.state, "trump", None)
    recomputed.update({key: plain(result[key]) for key in CLAIMED_FROM_SCORE})
    for key in ("buyer", "mode", "trump") + CLAIMED_FROM_FACTS[2:] + CLAIMED_FROM_SCORE:
        if key not in claimed:
            continue
        mine, theirs = recomputed[key], claimed[key]
        if key == "projects":
            mine = {t: sorted(v) for t, v in mine.items()}
            theirs = {t: sorted(v) for t, v in theirs.items()}
        if mine != theirs:
            step = step_ids.get(key, f"claimed.{key}")
            report.violations.append(Violation(f"{base}.claimed.{key}", step,
                                               f"claimed {key} {json.dumps(theirs)}, recomputed {json.dumps(mine)} (step {step})",
                                               claimed=theirs, recomputed=mine))


def _legal_summary(hand) -> str:
    try:
        legal = hand.legal()
    except BalootError:
        return ""
    if not legal:
        return ""
    if legal[0]["type"] == "play":
        return " ".join(a["card"] for a in legal)
    return ", ".join(" ".join(str(v) for k, v in a.items() if k != "type" and v is not False) for a in legal)


def _describe(event: dict) -> str:
    details = " ".join(str(v) for k, v in event.items() if k not in ("seat", "type") and v not in (False, [], None))
    return f"{event.get('seat')} {event.get('type')} {details}".strip()
