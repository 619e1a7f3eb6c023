#!/usr/bin/env python3
"""How fast the DSL engine's plays would be if its play rules cost nothing.

    python tools/machinery_floor.py [--hands N] [--repeat R] [--json]

The same seeded hands as tools/bench.py are replayed three ways, alternately, R times (best CPU
time of each counts), with the clock read around every event (bench.split_times):

  rules     the DSL engine as it is;
  no-rules  the DSL engine with each specialised play phase's legal-set narrowing and trick
            winner replaced by their answers, recorded in a first replay and given back in
            the same order (the replay is deterministic: one `next()` on an iterator, about
            0.05 us, where a Sun narrowing costs about 0.7); bidding, doubling and scoring as
            they are;
  no-rules-or-scoring  the same, and the hand's facts and scoring steps given back the same way
            (what is left of a hand's plays is then the engine's machinery alone);
  oracle    the hand-written oracle (tools/oracle/).

The plays' time under no-rules is the floor that no work on compiling the rules can go below:
the engine's own machinery (turn order, the candidate list, judging and applying an event, the
log). Set against the oracle's plays, it says whether a target like "within 1.5x of the oracle"
is a matter of compiling the rules better or of the engine's loop itself.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tools"))

from bench import record_hands, replay_dsl, split_times  # noqa: E402
from baloot_spec.engine.hand import Hand  # noqa: E402
from baloot_spec.rules import load_variant  # noqa: E402


HOWS = ("rules", "no-rules", "no-rules-or-scoring")


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--hands", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    args = parser.parse_args(argv)
    from oracle.oracle import Hand as OracleHand

    rules = load_variant()
    hands = record_hands(rules, args.hands, args.seed)
    replay_dsl(rules, hands)    # every contract's play phase is specialised from here on
    phases = list(rules._specialized.values())
    real = {id(p): (p.narrow, p.winner) for p in phases}
    kept, winners, scores = [], [], []   # every answer, in the order the replay asks
    real_scoring = (rules.facts_all, rules.steps_all, rules.scored)
    # (a specialised score phase brings its own facts and steps; while the scoring is recorded or
    # looked up, the engine is sent to rules.facts_all and rules.steps_all instead, by clearing
    # the phase's, and rules.scored, which makes the steps and records in one call)
    real_facts = {id(p): (p.facts_all, p.scored, p.facts_scored) for p in phases}

    def own_facts(on: bool) -> None:
        for phase in phases:
            phase.facts_all, phase.scored, phase.facts_scored = real_facts[id(phase)] if on else (None, None, None)

    def recording(narrow, winner):
        """The phase's own functions, remembering each answer in order."""
        def record_narrow(S, C):
            answer = narrow(S, C)
            # (a copy: when no rule narrows, the answer is the list given, which may be the
            # player's hand itself, and the hand changes as it is played)
            kept.append(None if answer is None else list(answer))
            return answer

        def record_winner(S):
            answer = winner(S)
            winners.append(answer)
            return answer
        return record_narrow, record_winner

    def record_scoring(S):
        values = real_scoring[1](real_scoring[0](S))   # (facts, then the steps added to them)
        scores.append(values)
        return values

    for phase in phases:
        phase.narrow, phase.winner = recording(phase.narrow, phase.winner)
    rules.facts_all, rules.steps_all, rules.scored = record_scoring, lambda values: values, None
    own_facts(False)
    replay_dsl(rules, hands)
    rules.facts_all, rules.steps_all, rules.scored = real_scoring
    own_facts(True)
    if len(rules._specialized) != len(phases):
        raise SystemExit("machinery_floor: a contract was specialised only in the recording replay")
    answers = {"kept": iter(()), "winners": iter(()), "scores": iter(())}

    def looked_up(S, C, _next=next):
        return _next(answers["kept"])

    def winner_looked_up(S, _next=next):
        return _next(answers["winners"])

    def scoring_looked_up(S, _next=next):
        return _next(answers["scores"])

    best: dict = {}
    for _ in range(max(1, args.repeat)):
        for how in HOWS:
            for phase in phases:
                phase.narrow, phase.winner = real[id(phase)] if how == "rules" else (looked_up, winner_looked_up)
            free_scoring = how == "no-rules-or-scoring"
            rules.facts_all, rules.steps_all, rules.scored = ((scoring_looked_up, lambda values: values, None)
                                                              if free_scoring else real_scoring)
            own_facts(not free_scoring)
            answers.update(kept=iter(kept), winners=iter(winners), scores=iter(scores))
            spent = split_times(lambda *setup: Hand(rules, *setup), hands)
            left = [next(answers[k], None) for k in ("kept", "winners") + (("scores",) if free_scoring else ())]
            if how != "rules" and any(answer is not None for answer in left):
                raise SystemExit("machinery_floor: the replay asked fewer questions than it recorded")
            for part, seconds in spent.items():
                best[(how, part)] = min(best.get((how, part), float("inf")), seconds)
        spent = split_times(OracleHand, hands)
        for part, seconds in spent.items():
            best[("oracle", part)] = min(best.get(("oracle", part), float("inf")), seconds)
    for phase in phases:
        phase.narrow, phase.winner = real[id(phase)]
    rules.facts_all, rules.steps_all, rules.scored = real_scoring
    own_facts(True)

    us = {how: {part: round(best[(how, part)] / len(hands) * 1e6, 1) for part in ("setup", "calls", "plays", "result")}
          for how in HOWS + ("oracle",)}
    out = {"hands": len(hands), "us_per_hand": us,
           "plays_no_rules_oracle_ratio": round(us["no-rules"]["plays"] / us["oracle"]["plays"], 2),
           "plays_no_rules_or_scoring_oracle_ratio": round(us["no-rules-or-scoring"]["plays"] / us["oracle"]["plays"], 2),
           "plays_rules_oracle_ratio": round(us["rules"]["plays"] / us["oracle"]["plays"], 2),
           "play_rules_share_of_plays": round(1 - us["no-rules"]["plays"] / us["rules"]["plays"], 2),
           "scoring_share_of_plays": round((us["no-rules"]["plays"] - us["no-rules-or-scoring"]["plays"]) / us["rules"]["plays"], 2)}
    if args.json:
        print(json.dumps(out, indent=2))
    else:
        for how, parts in us.items():
            print(f"{how:>9}: " + ", ".join(f"{part} {value} µs" for part, value in parts.items()) + " per hand")
        print(f"plays with the play rules free: {out['plays_no_rules_oracle_ratio']}x the oracle's plays "
              f"(with them: {out['plays_rules_oracle_ratio']}x; the play rules are {out['play_rules_share_of_plays']:.0%} of the plays' time)")
        print(f"plays with the play rules and the scoring free: {out['plays_no_rules_or_scoring_oracle_ratio']}x the oracle's "
              f"whole plays, its scoring included (the DSL's scoring is {out['scoring_share_of_plays']:.0%} of its plays' time)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
