"""Tell a recorded game hand by hand, as a person reads a score sheet.

The same facts come out as data (`--json`) and as text: the deal, the bidding, the doubling,
each trick with its winner and points, the projects and Baloot, every scoring step in order
(counting team, conversion, tie-break, multipliers, write-down) and the running match score.
"""

from __future__ import annotations

from .engine.deal import DealError
from .audit import as_played
from .engine.hand import Hand, match_step
from .errors import IllegalAction
from .text import plain, show


def replay_hands(rules, document: dict) -> list[dict]:
    """One story per hand of a log document (events the rules refuse are kept, and marked)."""
    stories = []
    scores = dict(document["match"].get("start") or {t: 0 for t in rules.table.teams})
    for k, record in enumerate(document["hands"]):
        story = {"hand": k + 1, "dealer": record["dealer"], "match_before": dict(scores)}
        stories.append(story)
        try:
            hand = Hand(rules, record["dealer"], record["deal"], scores)
        except DealError as exc:
            story["stopped"] = str(exc)
            break
        story["deal"] = {"initial": {s: [c.text for c in cards] for s, cards in hand.state.initial.items()},
                         "public": hand.state.public.text if hand.state.public else None}
        story["calls"], story["tricks"], story["refused"] = [], [], []
        for j, event in enumerate(record["events"]):
            refusal = hand.check(event)
            if refusal is not None:
                story["refused"].append({"event": j, "rule": refusal.rule_id, "message": refusal.message})
            tricks_before = len(hand.state.tricks)
            try:
                hand.apply(as_played(rules, hand, event, refusal), force=refusal is not None)
            except (IllegalAction, DealError) as exc:
                story["stopped"] = f"events[{j}]: {exc}"
                break
            if event["type"] != "play":
                story["calls"].append({k2: v for k2, v in event.items()})
            if len(hand.state.tricks) > tricks_before:
                trick = hand.state.tricks[-1]
                points = _trick_points(rules, hand, trick)
                story["tricks"].append({
                    "number": len(hand.state.tricks), "leader": trick.leader, "winner": trick.winner, "points": points,
                    "plays": [{"seat": p.seat, "card": p.card.text,
                               **{a: getattr(p, a) for a in _announcements(rules) if getattr(p, a, None)}}
                              for p in trick.plays]})
        S = hand.state
        story["contract"] = {"mode": getattr(S, "mode", None), "trump": getattr(S, "trump", None),
                             "buyer": getattr(S, "buyer", None), "taker": getattr(S, "taker", None),
                             "raises": list(getattr(S, "raises", []) or []), "closed": bool(getattr(S, "locked", False))}
        if S.dealt and any(S.dealt.values()):
            story["dealt"] = {s: [c.text for c in cards] for s, cards in S.dealt.items()}
        if not hand.is_over():
            story.setdefault("stopped", f"the events end in the {hand.phase} phase")
            break
        result = hand.result()
        story["thrown_in"] = result["thrown_in"]
        story["next_dealer"] = result["next_dealer"]
        if not result["thrown_in"]:
            story["facts"] = plain(dict(hand.facts))
            names = {name: step_id for name, step_id, _ in rules.scoring}
            story["scoring"] = [{"step": names[name], "name": name, "value": plain(hand.score[name])}
                                for name, _, _ in rules.scoring]
            values = match_step(rules, scores, result)
            scores = dict(values["new_scores"])
            story["match_after"] = dict(scores)
            if values["ended"]:
                story["match_winner"] = values["winner"]
        else:
            story["match_after"] = dict(scores)
    return stories


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
        lines.append(f"Hand {story['hand']}  dealer {story['dealer']}  match {_teams(before)}")
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
            lines.append(f"  ILLEGAL   events[{refused['event']}]: {refused['rule']}: {refused['message']}")
        if story.get("thrown_in"):
            lines.append(f"  thrown in; the deal passes to {story['next_dealer']}")
        if "scoring" in story:
            facts = story["facts"]
            lines.append(f"  facts     card points {_teams(facts['card_points'])}  tricks {_teams(facts['tricks'])}  "
                         f"projects {_teams({t: ' '.join(v) or '-' for t, v in facts['projects'].items()})}  "
                         f"baloot {_teams({t: 'yes' if v else '-' for t, v in facts['baloot'].items()})}")
            for step in story["scoring"]:
                lines.append(f"    {step['step']:<28} {step['name']} = {_value(step['value'])}")
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
