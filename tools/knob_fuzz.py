"""Random knob combinations: play random hands and matches under each, check the invariants.

    python tools/knob_fuzz.py [--combos N] [--hands H] [--matches M] [--seed S] [--oracle] [--json]

Draws N random assignments of every knob of rules/params.yaml (each value equally likely; the
match target from a few telling numbers), resolves each as `default` with `--set` for every knob,
and under each plays H random hands and M whole matches with the built-in engine, checking the
invariants of tests/test_random_play.py: a hand ends within 400 events, the bidding always has a
legal action, a played hand has 8 full tricks of 32 different cards, card points 162/130,
8 tricks, no negative written score, an undoubled hand the buyers win converts to 16/26 exactly (with other_team_points: own, 16-17/24-28),
a Sun conversion of `half_up`/`to_even` is even, a match ends (target reached or Gahwa) within
300 hands. A combination the constraints of params.yaml refuse is counted by constraint id, and
its error must be a located load error. With --oracle each accepted combination is also run
through tools/crosscheck.py (the oracle in lock step, H hands). Exit 0: every combination kept
the invariants, 1: a violation (printed with the combination and the seed), 2: usage.

Combination i of seed S is drawn from random.Random("S/combo/i") alone, hand j from
random.Random("S/combo/i/hand/j").
"""

from __future__ import annotations

import argparse
import json
import os
import random
import sys
from collections import Counter

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path[:0] = [ROOT, os.path.join(ROOT, "tools")]

from baloot_spec.engine.hand import Hand  # noqa: E402
from baloot_spec.engine.random_play import play_random_hand, play_random_match, random_deck  # noqa: E402
from baloot_spec.errors import BalootError, LocatedError  # noqa: E402
from baloot_spec.rules import load_variant  # noqa: E402
from baloot_spec.rules.loader import load_params  # noqa: E402

TARGETS = (1, 50, 100, 101, 151, 152, 300, 1000)
SCORES = (0, 60, 99, 100, 101, 140, 151)


class Violation(Exception):
    pass


def knob_choices() -> dict:
    """knob -> the values a combination may draw (as --set text)."""
    out = {}
    for name, knob in load_params().items():
        if knob.type == "int":
            out[name] = [str(t) for t in TARGETS if knob.minimum <= t <= knob.maximum]
        else:
            out[name] = [str(v).lower() if isinstance(v, bool) else str(v) for v in knob.values]
    return out


def draw(choices: dict, rng: random.Random) -> dict:
    return {name: rng.choice(values) for name, values in sorted(choices.items())}


def check_hand(rules, hand) -> None:
    result = hand.result()
    if result["next_dealer"] not in rules.table.seats:
        raise Violation(f"next dealer {result['next_dealer']!r}")
    if result["thrown_in"]:
        return
    S, facts = hand.state, hand.facts
    if not (len(S.tricks) == 8 and all(len(t.plays) == 4 for t in S.tricks)):
        raise Violation("a played hand without 8 full tricks")
    cards = [c for t in S.tricks for c in t.cards]
    if len(set(cards)) != 32:
        raise Violation("the tricks do not hold 32 different cards")
    if sum(facts.card_points.values()) != (162 if facts.mode == "hokum" else 130):
        raise Violation(f"card points {dict(facts.card_points)} in {facts.mode}")
    if sum(facts.tricks.values()) != 8:
        raise Violation(f"tricks {dict(facts.tricks)}")
    if any(v < 0 for v in result["written"].values()):
        raise Violation(f"a negative written score {dict(result['written'])}")
    if result["level"] == 1 and result["winner"] == result["buyer_team"] and not result["kaboot"]:
        # other_team_points: own (nl) rounds each team on its own: 162 -> 16 or 17, 130 -> 24..28
        own = rules.variant.knobs.get("other_team_points") == "own"
        sums = ({16, 17} if facts.mode == "hokum" else {24, 26, 28}) if own else {16 if facts.mode == "hokum" else 26}
        if sum(result["converted"].values()) not in sums:
            raise Violation(f"converted {dict(result['converted'])} do not add up in {facts.mode}")
    if facts.mode == "sun" and rules.variant.knobs["sun_conversion"] in ("half_up", "to_even"):
        if any(v % 2 for v in result["converted"].values()):
            raise Violation(f"an odd Sun score {dict(result['converted'])} under an even conversion")


def check_bidding(rules, rng) -> None:
    """Mostly passes, so that round two, round three and throw-ins happen: never stuck."""
    hand = Hand(rules, rng.choice(rules.table.seats), {"deck": random_deck(rules, rng)},
                {"NS": rng.choice(SCORES), "EW": rng.choice(SCORES)})
    for _ in range(60):
        if hand.phase not in ("bidding", "trump", "doubling"):
            return
        legal = hand.legal()
        if not legal or hand.turn() is None:
            raise Violation(f"stuck in phase {hand.phase}: turn {hand.turn()!r}, legal {legal}")
        passes = [a for a in legal if a.get("call") == "pass"]
        hand.apply(dict(rng.choice(passes if passes and rng.random() < 0.8 else legal), seat=hand.turn()))
    raise Violation(f"the bidding did not end within 60 calls (phase {hand.phase})")


def check_match(rules, rng, max_hands: int = 300) -> None:
    target, scores = rules.variant.knobs["match_target"], {}
    for hand, _before, values in play_random_match(rules, rng, rng.choice(rules.table.seats), max_hands):
        check_hand(rules, hand)
        if values is None:
            continue
        scores = dict(values["new_scores"])
        if values["ended"]:
            if not (max(scores.values()) >= target or hand.result().get("gahwa")):
                raise Violation(f"the match ended at {scores} below the target {target} without Gahwa")
            return
    raise Violation(f"the match did not end within {max_hands} hands (scores {scores}, target {target})")


def run_combo(sets: dict, hands: int, matches: int, seed: str, oracle: bool) -> None:
    rules = load_variant("default", sets)
    for j in range(hands):
        rng = random.Random(f"{seed}/hand/{j}")
        hand = play_random_hand(rules, rng, rng.choice(rules.table.seats),
                                {"NS": rng.choice(SCORES), "EW": rng.choice(SCORES)})
        check_hand(rules, hand)
        check_bidding(rules, rng)
    for m in range(matches):
        check_match(rules, random.Random(f"{seed}/match/{m}"))
    if oracle:
        import crosscheck
        code, _ = crosscheck.run_preset("default", hands, 0, seed, "/tmp/knob-fuzz-failures", sets)
        if code != crosscheck.OK:
            raise Violation("the oracle disagrees (see above)")


def fuzz(combos: int, hands: int, matches: int, seed: str, oracle: bool = False, out=print) -> dict:
    """-> {"combos", "played", "refused": {constraint id: n}, "violations": [...]}."""
    choices = knob_choices()
    summary = {"combos": combos, "played": 0, "refused": Counter(), "violations": []}
    for i in range(combos):
        sets = draw(choices, random.Random(f"{seed}/combo/{i}"))
        try:
            load_variant("default", sets)
        except LocatedError as exc:
            if not exc.rule_id:
                summary["violations"].append({"combo": i, "set": sets, "problem": f"unlocated load error: {exc}"})
            summary["refused"][exc.rule_id or "?"] += 1
            continue
        try:
            run_combo(sets, hands, matches, f"{seed}/combo/{i}", oracle)
            summary["played"] += 1
        except (Violation, BalootError, RuntimeError) as exc:
            problem = f"{type(exc).__name__}: {exc}"
            summary["violations"].append({"combo": i, "set": sets, "problem": problem})
            out(f"VIOLATION combo {i} (seed {seed}): {problem}\n  --set " +
                " --set ".join(f"{k}={v}" for k, v in sets.items()))
    summary["refused"] = dict(summary["refused"])
    return summary


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="knob_fuzz.py", description=__doc__.split("\n\n")[0])
    p.add_argument("--combos", type=int, default=100, metavar="N", help="random knob combinations (default %(default)s)")
    p.add_argument("--hands", type=int, default=200, metavar="H", help="random hands per combination (default %(default)s)")
    p.add_argument("--matches", type=int, default=2, metavar="M", help="whole matches per combination (default %(default)s)")
    p.add_argument("--seed", default="1", metavar="S", help="seed (any text; default 1)")
    p.add_argument("--oracle", action="store_true", help="also cross-check each combination against the oracle")
    p.add_argument("--json", action="store_true", help="print the summary as JSON")
    args = p.parse_args(argv)
    if args.combos < 0 or args.hands < 0 or args.matches < 0:
        p.error("--combos, --hands and --matches must not be negative")
    summary = fuzz(args.combos, args.hands, args.matches, args.seed, args.oracle)
    if args.json:
        print(json.dumps(summary, indent=2))
    else:
        print(f"{summary['combos']} combinations: {summary['played']} played ({args.hands} hands, "
              f"{args.matches} matches each), refused by a constraint: {summary['refused'] or 'none'}; "
              f"{len(summary['violations'])} violations")
    return 1 if summary["violations"] else 0


if __name__ == "__main__":
    sys.exit(main())
