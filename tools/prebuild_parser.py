#!/usr/bin/env python3
"""Write the expression grammar's prebuilt LALR parser (baloot_spec/expr/expr_parser.bin), or check it.

    python tools/prebuild_parser.py            write it from rules/grammar/expr.lark
    python tools/prebuild_parser.py --check    change nothing; exit 1 if it was not built from the
                                               grammar (built by another Lark: a note, exit 0)

Run it after changing rules/grammar/expr.lark or upgrading Lark (baloot_spec/expr/prebuilt.py:
an out-of-date file is not used, the parser is built from the grammar as before, ~40 ms more).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import lark  # noqa: E402

from baloot_spec.expr import prebuilt  # noqa: E402

GRAMMAR = ROOT / "rules" / "grammar" / "expr.lark"


def built_with() -> str | None:
    """The Lark version that wrote the shipped tables from this grammar (None: out of date)."""
    return prebuilt.built_with(GRAMMAR.read_text(encoding="utf-8"))


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--check", action="store_true", help="exit 1 if the file is out of date")
    args = parser.parse_args(argv)
    if args.check:
        version = built_with()
        if version == lark.__version__:
            print(f"{prebuilt.PATH.relative_to(ROOT)}: up to date")
            return 0
        if version is not None:   # (the grammar's: only the installed Lark is another; not an error)
            print(f"{prebuilt.PATH.relative_to(ROOT)}: built from this grammar with Lark {version}; Lark "
                  f"{lark.__version__} is installed, so it is not used (~40 ms a load with no disk cache): "
                  "run python tools/prebuild_parser.py to write it for this Lark", file=sys.stderr)
            return 0
        print(f"{prebuilt.PATH.relative_to(ROOT)}: out of date with {GRAMMAR.relative_to(ROOT)}: "
              "run python tools/prebuild_parser.py", file=sys.stderr)
        return 1
    prebuilt.PATH.write_bytes(prebuilt.serialised(GRAMMAR.read_text(encoding="utf-8")))
    print(f"wrote {prebuilt.PATH.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
