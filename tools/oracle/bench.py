"""Speed baseline: python tools/oracle/bench.py [N]  -> full random hands per second
(deal, bidding, doubling, 32 plays with legal() before each action, scoring)."""
import random
import sys
import time

from oracle import CARD, Hand


def run(n, seed=1):
    rng = random.Random(seed)
    deck, played, t0 = list(CARD), 0, time.perf_counter()
    for _ in range(n):
        rng.shuffle(deck)
        h = Hand("NESW"[rng.randrange(4)], {"deck": deck})
        while h.cur is not None:
            acts = h.legal()
            a = dict(acts[rng.randrange(len(acts))])
            a["seat"] = h.turn()
            h.apply(a)
        played += not h.result()["thrown_in"]
    dt = time.perf_counter() - t0
    return n / dt, played


if __name__ == "__main__":
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 20000
    rate, played = run(n)
    print("%.0f hands/s (%d hands, %d played to the end)" % (rate, n, played))
