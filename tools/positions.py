"""Derive the position form of the corpus's cases: conformance/positions.json.

    python tools/positions.py            write conformance/positions.json
    python tools/positions.py --check    exit 1 if the file differs from what the cases give now

Every `legal`, `reject` and `hand` case whose setup reaches the doubling or the play gets a
position, taken from its events by the reference engine (baloot_spec/conformance/positions.py);
nothing in the file is written by hand. tools/oracle/positions_check.py cross-checks it with the
independent oracle.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from baloot_spec.conformance.corpus import load_corpus   # noqa: E402
from baloot_spec.conformance.positions import FILE_NAME, derive_all, render   # noqa: E402
from baloot_spec.errors import BalootError   # noqa: E402


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter, epilog=__doc__)
    parser.add_argument("--check", action="store_true", help="compare with the stored file instead of writing it")
    parser.add_argument("--out", type=Path, default=ROOT / "conformance" / FILE_NAME, help="the file (default: %(default)s)")
    args = parser.parse_args(argv)
    try:
        entries = derive_all(load_corpus())
    except BalootError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    text = render(entries)
    if args.check:
        try:
            stored = args.out.read_text(encoding="utf-8")
        except OSError as exc:
            print(f"error: cannot read {args.out}: {exc.strerror}", file=sys.stderr)
            return 2
        if stored != text:
            print(f"{args.out} is out of date: run python tools/positions.py", file=sys.stderr)
            return 1
        print(f"{args.out}: {len(entries)} positions, up to date")
        return 0
    args.out.write_text(text, encoding="utf-8")
    print(f"wrote {len(entries)} positions to {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
