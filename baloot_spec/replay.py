"""Tell a recorded game hand by hand, as a person reads a score sheet.

The replay is the audit's walk through the log (audit.py), watched: the same continuation past
an illegal action, the same violations, the same match scores. Each hand's story holds the deal,
the bidding, the doubling, each trick with its winner and points, the projects and Baloot, every
scoring step in order and the running match score; with `frames` also the table after every
event (for the HTML replay). A hand that cannot be replayed says why, and the next hands go on.
"""

from __future__ import annotations

from .audit import Watch, audit_input
from .explain import explained_steps
from .text import plain, show


def replay_document(item, override: dict | None = None, frames: bool = False) -> tuple[list[dict], object]:
    """(one story per hand, the audit report) for a read, schema-checked log document."""
    watcher = _Stories(frames)
    report = audit_input(item, override, watcher)
    rules = report.rules
    if rules is not None:
        watcher.finish(rules, report)
    return watcher.stories, report


def replay_hands(rules, document: dict) -> list[dict]:
    """One story per hand of a log document under `rules` (kept for callers with rules at hand)."""
    from .log.reader import LogInput
    override = {"preset": rules.variant.preset, "set": dict(rules.variant.sets), "overlays": list(rules.variant.overlays)}
    return replay_document(LogInput("-", None, document), override)[0]


class _Stories(Watch):
    """Builds the stories while the audit walks the document."""

    def __init__(self, frames: bool):
        self.stories: list[dict] = []
        self.frames = frames
        self._legal = None
        self._turn = None
        self._tricks = 0

    def hand(self, k, record, scores):
        self.stories.append({"hand": k + 1, "dealer": record["dealer"], "match_before": scores,
                             "calls": [], "tricks": [], "refused": []})

    def dealt(self, hand):
        story = self.stories[-1]
        S = hand.state
        story["deal"] = {"initial": {s: [c.text for c in cards] for s, cards in S.initial.items()},
                         "public": S.public.text if S.public else None}
        if self.frames:
            story["frames"] = [_frame(hand, None, None, None, None, None)]

    def before(self, j, hand):
        self._tricks = len(hand.state.tricks)
        if self.frames:
            try:
                self._legal = [_legal_text(a) for a in hand.legal()]
            except Exception:   # a position the rules cannot judge: shown without alternatives
                self._legal = []
            self._turn = hand.turn()

    def event(self, j, hand, event, violation):
        story = self.stories[-1]
        S = hand.state
        if violation is not None:
            story["refused"].append({"event": j, "rule": violation.rule, "message": violation.message,
                                     "source": violation.source, "legal": violation.legal, "after": violation.after})
        if event.get("type") != _play_type(hand):
            story["calls"].append(dict(event))
        finished = None
        if len(S.tricks) > self._tricks:
            trick = S.tricks[-1]
            finished = {"number": len(S.tricks), "leader": trick.leader, "winner": trick.winner,
                        "points": _trick_points(hand.rules, hand, trick),
                        "plays": [{"seat": p.seat, "card": p.card.text,
                                   **{a: getattr(p, a) for a in _announcements(hand.rules) if getattr(p, a, None)}}
                                  for p in trick.plays]}
            story["tricks"].append(finished)
        if self.frames:
            story["frames"].append(_frame(hand, j, event, violation, self._legal, self._turn, finished))

    def finished(self, k, hand, result, match):
        story = self.stories[-1]
        if hand is None:
            return
        S = hand.state
        story["contract"] = {"mode": getattr(S, "mode", None), "trump": getattr(S, "trump", None),
                             "buyer": getattr(S, "buyer", None), "taker": getattr(S, "taker", None),
                             "raises": list(getattr(S, "raises", []) or []), "closed": bool(getattr(S, "locked", False))}
        if S.dealt and any(S.dealt.values()):
            story["dealt"] = {s: [c.text for c in cards] for s, cards in S.dealt.items()}
        if result is None:
            return
        story["thrown_in"] = result["thrown_in"]
        story["next_dealer"] = result["next_dealer"]
        if not result["thrown_in"]:
            story["facts"] = plain(dict(hand.facts))
            story["scoring"] = explained_steps(hand.rules, story["facts"],
                                               [{"step": step_id, "name": name, "value": plain(hand.score[name])}
                                                for name, step_id, _ in hand.rules.scoring])
        if match is not None:
            story["match_after"] = dict(match["new_scores"])
            if match["ended"]:
                story["match_winner"] = match["winner"]
        elif result["thrown_in"] and story["match_before"] is not None:
            story["match_after"] = dict(story["match_before"])

    def finish(self, rules, report) -> None:
        """Say why each hand that could not be told to its end stopped (from the audit's findings)."""
        for story in self.stories:
            base = f"$.hands[{story['hand'] - 1}]"
            told = {(r["event"], r["rule"]) for r in story["refused"]}
            for v in report.violations:   # refused events the hand could not go on from, and second refusals
                if v.path.startswith(base + ".events[") and (int(v.path[len(base) + 8:-1]), v.rule) not in told:
                    story["refused"].append({"event": int(v.path[len(base) + 8:-1]), "rule": v.rule, "message": v.message,
                                             "source": v.source, "legal": v.legal, "after": v.after})
            story["refused"].sort(key=lambda r: r["event"])
            if "thrown_in" in story:
                continue
            reasons = [n[len(base) + 1:] for n in report.notes if n.startswith(base + ".") and "cannot be replayed" in n]
            reasons += [f"{v.rule}: {v.message}" for v in report.violations if v.path.startswith(base + ".")
                        and (v.rule in ("deal.invalid", "hand.incomplete") or v.path.startswith(base + ".deal."))]
            story["stopped"] = "; ".join(dict.fromkeys(reasons)) or "the hand could not be replayed"


def _play_type(hand) -> str | None:
    return next((p.action for p in hand.rules.phases.values() if p.kind == "tricks"), None)


def _frame(hand, j, event, violation, legal, turn, finished=None) -> dict:
    """The table after event j (j None: as dealt): every seat's cards, the trick on the table."""
    S = hand.state
    trick = finished["plays"] if finished else [{"seat": p.seat, "card": p.card.text} for p in S.trick]
    frame = {"event": j, "phase": S.phase, "hands": {s: [c.text for c in cards] for s, cards in S.hands.items()},
             "trick": trick, "tricks_done": len(S.tricks), "turn_before": turn, "legal": legal}
    if finished:
        frame["won_by"] = finished["winner"]
    if event is not None:
        frame["action"] = dict(event)
    if violation is not None:
        frame["violation"] = {"rule": violation.rule, "message": violation.message, "source": violation.source,
                              "legal": violation.legal, "after": violation.after}
    return frame


def _legal_text(action) -> str:
    if "card" in action:
        return " ".join([str(action["card"])] + [k for k, v in action.items() if k not in ("type", "card") and v is True])
    return _call({"seat": "", **action}).strip()


def _announcements(rules) -> list:
    """What may be said with a card: the annotations the rules' trick phase declares."""
    return [name for phase in rules.phases.values() if phase.kind == "tricks" for name in phase.annotations]


def _trick_points(rules, hand, trick) -> int | None:
    points = rules.functions.get("card_points")
    if points is None:
        return None
    return sum(points(hand.state, c) for c in trick.cards)


def render_text(stories: list[dict]) -> str:
    lines = []
    for story in stories:
        before = story["match_before"]
        lines.append(f"Hand {story['hand']}  dealer {story['dealer']}  match {_teams(before) if before else 'unknown'}")
        if "deal" in story:
            deal = story["deal"]
            lines.append("  deal      " + "  |  ".join(f"{s} {' '.join(c)}" for s, c in deal["initial"].items())
                         + (f"  ; public {deal['public']}" if deal["public"] else ""))
        if story.get("calls"):
            lines.append("  calls     " + " . ".join(_call(c) for c in story["calls"]))
        contract = story.get("contract") or {}
        if contract.get("mode"):
            extra = f" trump {contract['trump']}" if contract.get("trump") else ""
            raised = f"  raised: {' '.join(contract['raises'])}" if contract.get("raises") else ""
            closed = "  (closed play)" if contract.get("closed") else ""
            lines.append(f"  contract  {contract['mode']}{extra}  buyer {contract['buyer']}  takes the public card: {contract['taker']}{raised}{closed}")
        for trick in story.get("tricks", []):
            plays = "  ".join(f"{p['seat']} {p['card']}" + "".join(f" [{a}{'=' + ','.join(p[a]) if isinstance(p[a], list) else ''}]"
                                                                     for a in p if a not in ("seat", "card"))
                              for p in trick["plays"])
            lines.append(f"  trick {trick['number']:<2}  {plays}   -> {trick['winner']} ({trick['points']})")
        for refused in story.get("refused", []):
            after = "  [after an earlier violation]" if refused.get("after") else ""
            lines.append(f"  ILLEGAL   events[{refused['event']}]: {refused['rule']}: {refused['message']}{after}")
        if story.get("thrown_in"):
            lines.append(f"  thrown in; the deal passes to {story['next_dealer']}")
        if "scoring" in story:
            facts = story["facts"]
            lines.append(f"  facts     card points {_teams(facts['card_points'])}  tricks {_teams(facts['tricks'])}  "
                         f"projects {_teams({t: ' '.join(v) or '-' for t, v in facts['projects'].items()})}  "
                         f"baloot {_teams({t: 'yes' if v else '-' for t, v in facts['baloot'].items()})}")
            for step in story["scoring"]:
                lines.append(f"    {step['step']:<28} {step['name']} = {_value(step['value'])}")
            if "match_after" in story:
                lines.append(f"  match     {_teams(story['match_after'])}" + (f"   match won by {story['match_winner']}" if story.get("match_winner") else ""))
        if story.get("stopped"):
            lines.append(f"  stopped   {story['stopped']}")
        lines.append("")
    return "\n".join(lines)


def _teams(values: dict) -> str:
    return "  ".join(f"{team} {value}" for team, value in values.items())


def _call(event: dict) -> str:
    """'W hokum', 'S double: pass', 'N double: four closed', 'W trump: S'; an event without
    fields as seat and type."""
    words = []
    for key, value in event.items():
        if key in ("seat", "type") or value in (False, None):
            continue
        words.append("closed" if key == "closed" else str(value))
    if not words:                        # an event without fields: 'W <type>'
        return f"{event['seat']} {event['type']}"
    prefix = "" if event["type"] == "bid" else f"{event['type']}: "
    return f"{event['seat']} {prefix}{' '.join(words)}"


def _value(value) -> str:
    if isinstance(value, dict):
        return "{" + ", ".join(f"{k}: {_value(v)}" for k, v in value.items()) + "}"
    return show(value)
