"""The score sheet of a recorded match, as players keep it: one line per hand, the match result.

Every number is one the engine computed (the replay's facts, scoring steps and match steps, by
the names README "What the tools read from the rules" lists); the words for the outcome are the
`doc` sentences of the scoring steps (rules/scoring.yaml), filled in. Nothing is scored here.
"""

from __future__ import annotations

from .explain import explained_steps, words

# The scoring steps whose sentence says how the hand ended, when their value is true (a
# Kaboot, a Gahwa, a tie), and the one that always does (who won).
OUTCOME_FLAGS = ("kaboot", "gahwa", "tie")
OUTCOME = "winner"


def score_sheet(rules, document: dict, stories: list[dict]) -> dict:
    """{"teams", "hands": [one line per hand], "result"} for a replayed document."""
    teams = list(rules.table.teams)
    lines = []
    for story in stories:
        line = {"hand": story["hand"], "dealer": story["dealer"]}
        contract = story.get("contract") or {}
        if story.get("stopped"):
            line["stopped"] = story["stopped"]
        if story.get("thrown_in"):
            line["thrown_in"] = True
            line["outcome"] = [f"thrown in: nobody bought; the deal passes to {story['next_dealer']}"]
        elif "scoring" in story:
            facts = story["facts"]
            values = {s["name"]: s["value"] for s in story["scoring"]}
            explained = {s["name"]: s["words"] for s in explained_steps(rules, facts, story["scoring"])}
            line.update({
                "contract": {"mode": facts.get("mode"), "trump": contract.get("trump")},
                "buyer": facts.get("buyer"), "buyer_team": values.get("buyer_team"),
                "doubling": {"raises": list(facts.get("doubling") or []), "closed": bool(contract.get("closed"))},
                "card_points": facts.get("card_points"),
                "projects": facts.get("projects"),
                "baloot": {t: bool(v) for t, v in (facts.get("baloot") or {}).items()},
                "counting_team": values.get("counting_team"),
                "written": values.get("written"),
                "outcome": [explained[name] for name in OUTCOME_FLAGS if values.get(name) is True and name in explained]
                           + ([explained[OUTCOME]] if OUTCOME in explained else []),
            })
        if story.get("match_after") is not None:
            line["match"] = story["match_after"]
        if story.get("match_winner"):
            line["match_winner"] = story["match_winner"]
        if story.get("refused"):
            line["violations"] = [f"events[{r['event']}] {r['rule']}" for r in story["refused"]]
        lines.append(line)
    final = next((l["match"] for l in reversed(lines) if "match" in l), None)
    winner = next((l["match_winner"] for l in lines if l.get("match_winner")), None)
    complete = all("match" in l for l in lines)
    result = {"scores": final, "winner": winner, "complete": complete}
    claimed = document.get("claimed") or {}
    if "scores" in claimed:
        result["claimed_scores"] = claimed["scores"]
    return {"teams": teams, "hands": lines, "result": result}


def render_sheet(sheet: dict) -> str:
    """The sheet as a fixed-width table, one row per hand, then the outcome of each hand."""
    teams = sheet["teams"]
    head = ["#", "dealer", "contract", "buyer", "doubled", "card points", "projects / baloot", "written", "match"]
    rows = []
    for line in sheet["hands"]:
        if "card_points" in line:
            contract = line["contract"]["mode"] + (f" {line['contract']['trump']}" if line["contract"].get("trump") else "")
            raises = line["doubling"]["raises"]
            doubled = " ".join(raises) + (" closed" if line["doubling"]["closed"] else "") if raises else "-"
            extras = "; ".join(f"{t} " + ", ".join(line["projects"].get(t, []) + (["baloot"] if line["baloot"].get(t) else []))
                               for t in teams if line["projects"].get(t) or line["baloot"].get(t)) or "-"
            rows.append([str(line["hand"]), line["dealer"], contract, f"{line['buyer']} ({line['buyer_team']})", doubled,
                         _pair(line["card_points"], teams), extras, _pair(line["written"], teams),
                         _pair(line.get("match"), teams)])
        elif line.get("thrown_in"):
            rows.append([str(line["hand"]), line["dealer"], "thrown in", "-", "-", "-", "-", "-", _pair(line.get("match"), teams)])
        else:
            rows.append([str(line["hand"]), line["dealer"], "not replayed", "", "", "", "", "", _pair(line.get("match"), teams)])
    widths = [max(len(r[i]) for r in rows + [head]) for i in range(len(head))]
    out = ["  ".join(c.ljust(w) for c, w in zip(head, widths)).rstrip(),
           "  ".join("-" * w for w in widths)]
    out += ["  ".join(c.ljust(w) for c, w in zip(r, widths)).rstrip() for r in rows]
    out.append("")
    for line in sheet["hands"]:
        said = line.get("outcome") or ([f"not replayed: {line['stopped']}"] if line.get("stopped") else [])
        if line.get("violations"):
            said = said + [f"illegal: {', '.join(line['violations'])}"]
        if said:
            out.append(f"hand {line['hand']}: " + " ".join(s if s.endswith(".") else s + "." for s in said))
    result = sheet["result"]
    out.append("")
    if result["winner"]:
        out.append(f"Match won by {result['winner']}, {_pair(result['scores'], teams)}.")
    elif result["scores"] is not None:
        out.append(f"No winner yet: {_pair(result['scores'], teams)}" + ("" if result["complete"] else
                                                                          " (a hand could not be replayed: the total is uncertain)") + ".")
    if result.get("claimed_scores") is not None and result["claimed_scores"] != result["scores"]:
        out.append(f"The log claims {_pair(result['claimed_scores'], teams)}.")
    return "\n".join(out)


def _pair(values, teams) -> str:
    if not values:
        return "?"
    return " ".join(f"{t} {words(values.get(t))}" for t in teams)
