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
from .engine.hand import OUT_OF_TURN, Hand, RuleRuntimeError, match_step
from .errors import BalootError, IllegalAction, RulesError
from .log.deal_forms import engine_deal, rules_reading_deal_order
from .log.reader import LogInput, parse_document
from .log.trust import log_variant
from .log.writer import CLAIMED_FROM_FACTS, CLAIMED_FROM_SCORE
from .rules import load_variant, resolve_variant
from .text import plain


@dataclass
class Violation:
    path: str
    rule: str
    message: str
    source: str | None = None
    claimed: object = None
    recomputed: object = None
    after: str | None = None      # the path of an earlier violation of the same hand this one follows
    legal: str | None = None      # the legal alternatives at a refused event, in the logs' notation

    def as_json(self, where: LogInput) -> dict:
        out = {"file": where.name, "line": where.line, "path": self.path, "rule": self.rule, "message": self.message}
        if self.source:
            out["source"] = self.source
        if self.after:
            out["after"] = self.after
        if self.legal:
            out["legal"] = self.legal
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
    rules: object = None                           # the rules the document was audited under

    def as_json(self) -> dict:
        return {"file": self.where.name, "line": self.where.line, "hands": self.hands,
                "violations": [v.as_json(self.where) for v in self.violations],
                "notes": self.notes, "errors": self.errors}


def _variant_of(document: dict, override: dict | None):
    if override:
        return load_variant(override.get("preset", "default"), override.get("set") or {}, override.get("overlays") or [])
    return load_variant(*log_variant(document["variant"]))   # (overlays by registry name only: log/trust.py)


def _same_names(logged: dict, rules) -> bool:
    """Whether the rules given to audit are, by name, the variant the log names: the same knob
    values and the same overlay names (so that a different hash means different content)."""
    if list(logged.get("overlays") or []) != list(rules.variant.overlays):
        return False
    try:
        named = resolve_variant(logged.get("preset", "default"), logged.get("set") or {}, [])
    except RulesError:
        return False
    return named.knobs == rules.variant.knobs


def audit_text(name: str, line: int | None, text: str, override: dict | None = None) -> dict:
    """Parse, check and audit one document given as text (what a worker process runs)."""
    return audit_input(parse_document(text, name, line), override).as_json()


def audit_input(item: LogInput, override: dict | None = None, watch: Watch | None = None) -> DocumentAudit:
    """The audit of one read document; `watch` (the replay) is told what happens, hand by hand."""
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
                                           source_of(rules, "log.variant-hash"), claimed=claimed_hash, recomputed=rules.hash))
    elif override and claimed_hash and claimed_hash != rules.hash and _same_names(document["variant"], rules):
        named = ", ".join(rules.variant.overlays) or "none"
        report.violations.append(Violation("$.variant.hash", "log.variant-hash",
                                           f"the log says variant {claimed_hash}; the rules given, with the same knob values "
                                           f"and overlay names ({named}), resolve to {rules.hash}: an overlay says something "
                                           f"else, or the rules are another rules_version",
                                           source_of(rules, "log.variant-hash"), claimed=claimed_hash, recomputed=rules.hash))
    report.rules = rules
    if rules.hash in _OVER_BUDGET:   # (slow rules: once is enough, not once a document)
        report.errors.append({"path": "$", "message": f"the rules failed on an earlier log: {_OVER_BUDGET[rules.hash]}"})
        return report
    try:
        with hand_budget():
            _audit_match(rules, document, report, watch)
    except RuleRuntimeError as exc:
        if isinstance(exc.__cause__, BudgetExceeded):
            _OVER_BUDGET[rules.hash] = str(exc)
        report.errors.append({"path": "$", "message": f"the rules failed on this log: {exc}"})
    except BudgetExceeded as exc:   # (raised outside any rule: the engine's own code was running)
        _OVER_BUDGET[rules.hash] = str(exc)
        report.errors.append({"path": "$", "message": f"the rules failed on this log: {exc}"})
    return report


_OVER_BUDGET: dict = {}   # variant hash -> the budget error it gave (budget.py)


class Watch:
    """What a replay is told while the audit walks a document (every method does nothing here)."""

    def hand(self, k: int, record: dict, scores: dict | None) -> None:
        """Hand k starts from `scores` (None when an earlier hand left them unknown)."""

    def dealt(self, hand) -> None:
        """The hand is dealt (its first cards are on the table)."""

    def before(self, j: int, hand) -> None:
        """Event j is about to be applied."""

    def event(self, j: int, hand, event: dict, violation) -> None:
        """Event j was applied (as recorded, after a violation if `violation` is not None)."""

    def finished(self, k: int, hand, result: dict | None, match: dict | None) -> None:
        """Hand k is over (hand None: it could not be dealt; result None: not to its end)."""


def _audit_match(rules, document: dict, report: DocumentAudit, watch: Watch | None = None) -> None:
    watch = watch or Watch()
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
            report.violations.append(Violation(base, "match.ended", f"the match was over after hand {ended_after + 1}, yet the log goes on",
                                               "de: Spielende — Sobald eine Partei 152 Spielpunkte oder mehr hat, gewinnt die Partei mit mehr Punkten"))
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
                                               f"the hand starts from {_teams(record['match_scores'])}, the written scores so far are {_teams(scores)}",
                                               "de: Spielende", record["match_scores"], dict(scores)))
        watch.hand(k, record, dict(scores) if scores_known else None)
        hand = _replay_hand(rules, record, base, scores, report, watch)
        if hand is None or not hand.is_over():
            watch.finished(k, hand, None, None)
            # Its written scores are unknown: the next hands are still checked, from the scores
            # and dealer they state; the match totals and claims can no longer be checked.
            scores_known = False
            expected_dealer = None
            continue
        result = hand.result()
        _compare_claimed(hand, result, record.get("claimed"), base, step_ids, report)
        expected_dealer = result["next_dealer"]
        if result["thrown_in"]:
            watch.finished(k, hand, result, None)
            continue
        values = match_step(rules, scores, result)
        watch.finished(k, hand, result, values if scores_known else None)
        scores = dict(values["new_scores"])
        if values["ended"]:
            ended_after, match_winner = k, values["winner"]
    claimed = document.get("claimed")
    if claimed and not scores_known:
        report.notes.append("$.claimed: not checked, a hand could not be replayed so the match totals are unknown")
    elif claimed:
        if "scores" in claimed and dict(claimed["scores"]) != scores:
            report.violations.append(Violation("$.claimed.scores", "match.scores", f"claimed final scores {_teams(claimed['scores'])}, recomputed {_teams(scores)}",
                                               "de: Spielende", claimed["scores"], scores))
        if "winner" in claimed and claimed["winner"] != match_winner:
            report.violations.append(Violation("$.claimed.winner", "match.winner", f"claimed winner {claimed['winner']}, recomputed {match_winner}",
                                               "de: Spielende — Sobald eine Partei 152 Spielpunkte oder mehr hat, gewinnt die Partei mit mehr Punkten",
                                               claimed["winner"], match_winner))


def _teams(values: dict) -> str:
    """Team values in the logs' notation: 'NS 20, EW 0'."""
    return ", ".join(f"{team} {value}" for team, value in values.items())


def _step_ids(rules) -> dict:
    """Fact and scoring step name -> its id (what a wrong claim is reported under); per variant."""
    known = getattr(rules, "_audit_step_ids", None)
    if known is None:
        known = {name: step_id for name, step_id, _ in rules.facts}
        known.update({name: step_id for name, step_id, _ in rules.scoring})
        rules._audit_step_ids = known
    return known


# Sources of the refusals the engine's machinery makes (engine/judgement.py: OUT_OF_TURN, ...) and
# of the audit's own findings about the log, where the rules give none: the rule files' own
# sources where one applies (the turn order is the table's), else the reason as a `choice:`.
_MACHINERY_SOURCES = {
    "turn.out-of-turn": ("table", None),
    "deal.invalid": ("deal", None),
    "deal.dealer": ("deal", None),
    "phase.wrong-action": (None, "choice: each phase of rules/*.yaml lists the actions it allows"),
    "play.not-in-hand": (None, "choice: a card is played from the player's own hand, as dealt (the deal and the earlier plays say which)"),
    "hand.incomplete": (None, "choice: conformance/LOGS.md — a hand's events run to its end (the last trick, or the throw-in)"),
    "log.variant-hash": (None, "choice: conformance/LOGS.md — the hash of the variant the log names"),
    "claimed.thrown_in": ("deal", None),
}


def source_of(rules, rule_id: str) -> str | None:
    """The source of a finding's rule id: the rule's own, a fact's or scoring step's, or the
    machinery's (above)."""
    rule = rules.rules_by_id.get(rule_id)
    if rule is not None and getattr(rule, "source", None):
        return _source_text(rule.source)
    _section, item = rules.variant.ruleset.find(rule_id)
    if item is not None and item.get("source"):
        return _source_text(item["source"])
    where, text = _MACHINERY_SOURCES.get(rule_id) or _MACHINERY_SOURCES.get(
        "play.not-in-hand" if rule_id.endswith(".not-in-hand") else "", (None, None))
    if where is not None:
        return _source_text(rules.variant.ruleset.single.get(where, {}).get("source"))
    return text


def _source_text(source) -> str | None:
    if source is None or isinstance(source, str):
        return source
    if isinstance(source, list):
        return "; ".join(map(str, source))
    return str(source)


def _replay_hand(rules, record: dict, base: str, scores: dict, report: DocumentAudit, watch: Watch | None = None):
    """Replay one recorded hand, reporting every refusal; the Hand (None if it could not be dealt).

    After a refused event the hand goes on from what the log records (the log is what happened):
    a refused card or call is applied as played, one out of turn from the seat that acted, a
    card the deal gave another seat is first taken from it. Each later violation names the
    first one it follows. `watch` is told of the deal and of each event."""
    watch = watch or Watch()
    deal, unordered = engine_deal(rules, record["deal"])
    order_rules = rules_reading_deal_order(rules) if unordered else {}
    try:
        hand = Hand(rules, record["dealer"], deal, scores)
    except DealError as exc:   # a deal a rule refuses (a cut) names that rule, like a refused event
        rule = exc.rule or "deal.invalid"
        report.violations.append(Violation(f"{base}.{exc.path}", rule, str(exc), exc.source or source_of(rules, rule)))
        return None
    watch.dealt(hand)
    if unordered:
        report.notes.append(f"{base}.deal: recorded without its deal order: every play and claim is checked; "
                            f"not checked: which cards were dealt before the bidding"
                            + (f" ({', '.join(sorted(order_rules))} read them)" if order_rules else ""))
    first = None   # the path of the hand's first violation
    irregular = False   # a card was played out of turn in the current trick
    events = record["events"]
    for j, event in enumerate(events):
        path = f"{base}.events[{j}]"
        watch.before(j, hand)
        try:
            refusal = hand.apply_unless_refused(event)
        except DealError as exc:
            report.violations.append(Violation(f"{base}.{exc.path}", "deal.invalid", str(exc), source_of(rules, "deal.invalid"), after=first))
            return None
        if refusal is None:
            irregular = _after_irregular(hand, irregular)
            watch.event(j, hand, event, None)
            continue
        shown = None   # the violation the replay shows at this event (the first)
        try:
            # A refusal that says the event could not have happened as recorded (out of turn, a
            # card not held) is reported, the event made possible, and judged again: a card out
            # of turn may break an obligation too.
            for _ in range(4):   # (out of turn, then not held, then an obligation: at most three)
                if refusal is None:
                    break
                violation = _violation(rules, hand, path, event, refusal, first, order_rules, report)
                shown = shown or violation
                if violation is not None:
                    first = first or path
                if refusal.rule_id != OUT_OF_TURN and not refusal.rule_id.endswith(".not-in-hand"):
                    hand.apply(as_played(rules, hand, event, refusal), force=True)
                    break
                _make_possible(rules, hand, event, refusal, events[j + 1:])
                irregular = irregular or refusal.rule_id == OUT_OF_TURN
                refusal = hand.apply_unless_refused(event)
            irregular = _after_irregular(hand, irregular)
        except IllegalAction as exc:
            report.notes.append(f"{path}: the hand cannot be replayed past this event ({exc.message}); "
                                f"the rest of hand {base} is not checked")
            return None
        except DealError as exc:
            report.violations.append(Violation(f"{base}.{exc.path}", "deal.invalid", str(exc), source_of(rules, "deal.invalid"), after=first))
            return None
        watch.event(j, hand, event, shown)
    if not hand.is_over():
        report.violations.append(Violation(f"{base}.events", "hand.incomplete",
                                           f"the events end in the {hand.phase} phase with {hand.turn()} to act",
                                           source_of(rules, "hand.incomplete"), after=first))
    return hand


def _violation(rules, hand, path, event, refusal, first, order_rules, report):
    """Report a refusal at an event (a note instead for a rule an unordered deal cannot check)."""
    if refusal.rule_id in order_rules:
        report.notes.append(f"{path}: {refusal.rule_id} not checked: it reads the cards dealt before the bidding, "
                            f"which this deal does not record")
        return None
    legal = _legal_summary(hand)
    message = f"{_describe(event)}: {refusal.message}" + (f" (legal: {legal})" if legal else "")
    violation = Violation(path, refusal.rule_id, message, refusal.source or source_of(rules, refusal.rule_id),
                          after=first, legal=legal or None)
    report.violations.append(violation)
    return violation


def _after_irregular(hand, irregular: bool) -> bool:
    """Keep the turn right in a trick with a card played out of turn (Hand.resume_turn); whether
    the current trick still is such a trick."""
    if irregular:
        hand.resume_turn()
    return irregular and bool(hand.state.trick)


def _make_possible(rules, hand, event: dict, refusal, later: list) -> None:
    """Make a refused event possible as the log records it (see _replay_hand): a card out of turn
    gets the turn, a card the deal gave another seat is taken from it. IllegalAction if the log
    cannot tell what happened: a call out of turn (which call it answered), an action of
    another phase, a card nobody holds or that its holder plays later (which card was played)."""
    phase = rules.phases.get(hand.phase)
    if refusal.rule_id == OUT_OF_TURN:
        if phase is None or phase.kind != "tricks" or event.get("seat") not in hand.state.hands:
            raise IllegalAction(refusal.rule_id, "a call out of turn: which call it answered cannot be told")
        hand.pass_turn(event["seat"])
        return
    seat, card = event.get("seat"), rules.deck.exact.get(event.get("card"))
    S = hand.state
    holder = next((s for s, cards in S.hands.items() if card in cards and s != seat), None)
    mine = S.hands.get(seat) or []
    if card is None or holder is None or not mine:
        raise IllegalAction(refusal.rule_id, f"nobody holds {event.get('card')}: it was dealt to nobody or played already")
    later_cards = [(e.get("seat"), rules.deck.exact.get(e.get("card"))) for e in later if isinstance(e, dict) and e.get("type") == event.get("type")]
    if (holder, card) in later_cards:
        raise IllegalAction(refusal.rule_id, f"{holder} holds {card} and plays it later: which card {seat} played cannot be told")
    # What the holder had instead: a card of `seat` the log later shows it playing, else one
    # `seat` is never seen playing, else any.
    by_holder = [c for s, c in later_cards if s == holder and c in mine]
    by_seat = {c for s, c in later_cards if s == seat}
    given = next(iter(by_holder), None) or next((c for c in mine if c not in by_seat), None) or mine[0]
    hand.exchange(seat, card, holder, given)


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
                                           source_of(hand.rules, "claimed.thrown_in"), claimed=claimed["thrown_in"], recomputed=result["thrown_in"]))
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
                                               source_of(hand.rules, step), claimed=theirs, recomputed=mine))


def _legal_summary(hand) -> str:
    try:
        legal = hand.legal()
    except BalootError:
        return ""
    if not legal:
        return ""
    if legal[0]["type"] == "play":
        return " ".join(a["card"] for a in legal)
    return ", ".join(" ".join(_word(k, v) for k, v in a.items() if k != "type" and v not in (False, None, [])) for a in legal)


def _describe(event: dict) -> str:
    """An event in the logs' notation: 'N play KD ekka declare sira,hundred'."""
    details = " ".join(_word(k, v) for k, v in event.items() if k not in ("seat", "type") and v not in (False, [], None))
    return f"{event.get('seat')} {event.get('type')} {details}".strip()


def _word(key: str, value) -> str:
    if value is True:
        return key
    if isinstance(value, list):
        return f"{key} {','.join(map(str, value))}"
    return str(value)
