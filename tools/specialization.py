#!/usr/bin/env python3
"""Which hot instructions CPython 3.11's adaptive interpreter left unspecialised, and how often
each runs in a replayed hand.

A replay of recorded hands warms the engine up; every code object it ran is then read back with
`dis.get_instructions(code, adaptive=True)`, and a second, traced replay counts how often each
instruction runs. An attribute read left as LOAD_ATTR_WITH_HINT or _ADAPTIVE, a comparison left
generic, a subscript of a dict subclass: each costs a dict probe or a generic call where the
specialised form costs a pointer read, thousands of times a hand. This is how the ninth session
found the actions' shared dict layout, the located YAML strings the engine compared, and the
comparisons that a jump with EXTENDED_ARG kept generic (see tools/BENCHMARKS.md).

    python tools/specialization.py [--hands 200] [--preset default] [--top 30] [--json]

Counts are exact (sys.settrace with opcode events), so they repeat from run to run; they say
where to look, not what a fix is worth: judge that with tools/ab.py.
"""

from __future__ import annotations

import argparse
import collections
import dis
import json
import sys
import types
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench import record_hands, replay, traced_replay  # noqa: E402

from baloot_spec.engine.hand import Hand  # noqa: E402
from baloot_spec.errors import RulesError  # noqa: E402
from baloot_spec.rules import load_variant  # noqa: E402

# What the adaptive interpreter shows for an instruction it could not, or did not yet, specialise.
# (FOR_ITER and most BINARY_OPs have no specialised form in 3.11 at all; a C call is specialised
# at its PRECALL, so CALL stays adaptive.)
GENERIC = frozenset({"LOAD_ATTR", "LOAD_METHOD", "STORE_ATTR", "COMPARE_OP", "BINARY_SUBSCR", "STORE_SUBSCR",
                     "LOAD_GLOBAL", "UNPACK_SEQUENCE"})
IGNORED = frozenset({"CALL_ADAPTIVE", "PRECALL_ADAPTIVE", "BINARY_OP_ADAPTIVE"})


def _is_generic(opname: str) -> bool:
    if opname in IGNORED:
        return False
    return opname in GENERIC or opname.endswith(("_ADAPTIVE", "_WITH_HINT"))


def survey(rules, hands: list) -> dict:
    """{"bytecodes_per_hand": n, "sites": [...]} with each generic site's runs per hand."""
    make = lambda *setup: Hand(rules, *setup)   # noqa: E731
    for _ in range(3):   # warm up: the adaptive interpreter specialises after a few runs
        replay(make, hands)
    counts: collections.Counter = collections.Counter()

    def count(frame, event):
        if event == "opcode":
            counts[(frame.f_code, frame.f_lasti)] += 1

    traced_replay(make, hands, count)
    shown: dict = {}
    sites: collections.Counter = collections.Counter()
    for (code, offset), runs in counts.items():
        if code not in shown:
            shown[code] = {i.offset: i for i in dis.get_instructions(code, adaptive=True)}
        ins = shown[code].get(offset)
        if ins is not None and _is_generic(ins.opname):
            where = f"{Path(code.co_filename).name}:{ins.positions.lineno}" if not code.co_filename.startswith("<") \
                else f"{code.co_filename}:{ins.positions.lineno}"
            sites[(code.co_name, where, ins.opname, "" if ins.argval is None else str(ins.argval))] += runs
    n = len(hands)
    return {"bytecodes_per_hand": round(sum(counts.values()) / n, 1),
            "generic_per_hand": round(sum(sites.values()) / n, 1),
            "sites": [{"function": f, "where": w, "instruction": op, "argument": arg, "per_hand": round(runs / n, 2)}
                      for (f, w, op, arg), runs in sites.most_common()]}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--hands", type=int, default=200, help="recorded random hands replayed (default 200)")
    parser.add_argument("--preset", default="default", help="rules preset (default: default)")
    parser.add_argument("--seed", type=int, default=7, help="seed of the recorded hands (default 7)")
    parser.add_argument("--top", type=int, default=30, help="sites listed (default 30; --json lists all)")
    parser.add_argument("--json", action="store_true", help="one JSON object on stdout")
    args = parser.parse_args(argv)
    if sys.version_info[:2] != (3, 11):
        print(f"note: written against CPython 3.11's adaptive interpreter; this is {sys.version.split()[0]}",
              file=sys.stderr)
    if args.hands < 1:
        parser.error("--hands must be at least 1")
    try:
        rules = load_variant(args.preset)
    except RulesError as exc:
        print(f"specialization: {exc}", file=sys.stderr)
        return 2
    found = survey(rules, record_hands(rules, args.hands, args.seed))
    if args.json:
        print(json.dumps(found))
        return 0
    print(f"bytecodes a hand: {found['bytecodes_per_hand']}; of them left generic: {found['generic_per_hand']}")
    print(f"{'a hand':>8}  instruction                where")
    for site in found["sites"][:args.top]:
        print(f"{site['per_hand']:8.1f}  {site['instruction'] + ' ' + site['argument']:26s} "
              f"{site['function']} ({site['where']})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
