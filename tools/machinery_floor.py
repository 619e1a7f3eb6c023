#!/usr/bin/env python3
"""How fast the DSL engine's plays would be if its play rules cost nothing.

    python tools/machinery_floor.py [--hands N] [--repeat R] [--json]

The same seeded hands as tools/bench.py are replayed three ways, alternately, R times (best CPU
time of each counts), with the clock read around every event (bench.split_times):

  rules     the DSL engine as it is;
  no-rules  the DSL engine with each specialised play phase's legal-set narrowing and trick
            winner replaced by their answers, recorded in a first replay and looked up by
            position (a dict lookup); bidding, doubling and scoring as they are;
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


def _position(S, trick_too: bool) -> tuple:
    """A key for the position within the recorded hands: the deal, and how far the play is."""
    key = (S.dealer, tuple(S.initial[S.all_seats[0]]), len(S.tricks))
    return key + (len(S.trick),) if trick_too else key


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
    kept, winners = {}, {}

    def recording(narrow, winner):
        """The phase's own functions, remembering each answer by position."""
        def record_narrow(S, C):
            answer = kept[_position(S, True)] = narrow(S, C)
            return answer

        def record_winner(S):
            answer = winners[_position(S, False)] = winner(S)
            return answer
        return record_narrow, record_winner

    for phase in phases:
        phase.narrow, phase.winner = recording(phase.narrow, phase.winner)
    replay_dsl(rules, hands)
    if len(rules._specialized) != len(phases):
        raise SystemExit("machinery_floor: a contract was specialised only in the recording replay")

    def looked_up(S, C):
        return kept[_position(S, True)]

    def winner_looked_up(S):
        return winners[_position(S, False)]

    best: dict = {}
    for _ in range(max(1, args.repeat)):
        for how in ("rules", "no-rules"):
            for phase in phases:
                phase.narrow, phase.winner = real[id(phase)] if how == "rules" else (looked_up, winner_looked_up)
            spent = split_times(lambda *setup: Hand(rules, *setup), hands)
            for part, seconds in spent.items():
                best[(how, part)] = min(best.get((how, part), float("inf")), seconds)
        spent = split_times(OracleHand, hands)
        for part, seconds in spent.items():
            best[("oracle", part)] = min(best.get(("oracle", part), float("inf")), seconds)
    for phase in phases:
        phase.narrow, phase.winner = real[id(phase)]

    us = {how: {part: round(best[(how, part)] / len(hands) * 1e6, 1) for part in ("setup", "calls", "plays", "result")}
          for how in ("rules", "no-rules", "oracle")}
    out = {"hands": len(hands), "us_per_hand": us,
           "plays_no_rules_oracle_ratio": round(us["no-rules"]["plays"] / us["oracle"]["plays"], 2),
           "plays_rules_oracle_ratio": round(us["rules"]["plays"] / us["oracle"]["plays"], 2),
           "play_rules_share_of_plays": round(1 - us["no-rules"]["plays"] / us["rules"]["plays"], 2)}
    if args.json:
        print(json.dumps(out, indent=2))
    else:
        for how, parts in us.items():
            print(f"{how:>9}: " + ", ".join(f"{part} {value} µs" for part, value in parts.items()) + " per hand")
        print(f"plays with the play rules free: {out['plays_no_rules_oracle_ratio']}x the oracle's plays "
              f"(with them: {out['plays_rules_oracle_ratio']}x; the play rules are {out['play_rules_share_of_plays']:.0%} of the plays' time)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
