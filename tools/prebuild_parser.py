#!/usr/bin/env python3
"""Write the expression grammar's prebuilt LALR parser (baloot_spec/expr/expr_parser.bin), or check it.

    python tools/prebuild_parser.py            write it from rules/grammar/expr.lark
    python tools/prebuild_parser.py --check    change nothing; exit 1 if it is out of date

Run it after changing rules/grammar/expr.lark or upgrading Lark (baloot_spec/expr/prebuilt.py:
an out-of-date file is not used, the parser is built from the grammar as before, ~40 ms more).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from baloot_spec.expr import prebuilt  # noqa: E402

GRAMMAR = ROOT / "rules" / "grammar" / "expr.lark"


def up_to_date() -> bool:
    grammar = GRAMMAR.read_text(encoding="utf-8")
    return prebuilt.load(grammar) is not None


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--check", action="store_true", help="exit 1 if the file is out of date")
    args = parser.parse_args(argv)
    if args.check:
        if up_to_date():
            print(f"{prebuilt.PATH.relative_to(ROOT)}: up to date")
            return 0
        print(f"{prebuilt.PATH.relative_to(ROOT)}: out of date with {GRAMMAR.relative_to(ROOT)}: "
              "run python tools/prebuild_parser.py", file=sys.stderr)
        return 1
    prebuilt.PATH.write_bytes(prebuilt.serialised(GRAMMAR.read_text(encoding="utf-8")))
    print(f"wrote {prebuilt.PATH.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
