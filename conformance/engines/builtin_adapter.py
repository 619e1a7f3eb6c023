"""The built-in engine of baloot-spec, spoken to over baloot-protocol/1 (conformance/PROTOCOL.md).

    baloot conformance run --engine "python conformance/engines/builtin_adapter.py"

Running the corpus through this adapter gives exactly the verdicts of the in-process run; it
is the reference for what an adapter answers. The work is done by baloot_spec.conformance.serve.

With --preset/--set/--overlay it plays that one variant whatever a request's `variant` asks, like
a real app that knows one Baloot (its hello says which: `plays`); `baloot conformance
fingerprint` must then name exactly that variant (conformance/ENGINES.md, "Step 0").

    python conformance/engines/builtin_adapter.py --preset saudi-federation --set kawesh=true
"""

import argparse
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
if (ROOT / "baloot_spec" / "__init__.py").is_file():
    sys.path.insert(0, str(ROOT))  # in a checkout, use the checkout's package, not an installed copy

from baloot_spec.conformance.serve import serve  # noqa: E402


class _Parser(argparse.ArgumentParser):
    def error(self, message):      # one line, exit 2 (argparse's own usage block would be several)
        print(f"builtin_adapter: error: {message}", file=sys.stderr)
        sys.exit(2)


def plays_of(argv) -> dict | None:
    """The variant the adapter plays (None: each request's own), checked by loading it; a bad
    flag or variant is one line on stderr and exit 2."""
    parser = _Parser(description="The built-in engine over baloot-protocol/1 (stdin/stdout). Without flags it "
                                 "answers each request under the variant it names; with --preset/--set/--overlay "
                                 "it plays that one variant whatever a request asks, like a real app.")
    parser.add_argument("--preset", metavar="P", help="play this preset (rules/presets) for every request")
    parser.add_argument("--set", dest="sets", action="append", default=[], metavar="KNOB=VALUE",
                        help="with it, this knob value (repeatable)")
    parser.add_argument("--overlay", dest="overlays", action="append", default=[], metavar="FILE",
                        help="with it, this overlay (a name from rules/overlays or a .yaml path; repeatable)")
    args = parser.parse_args(argv)
    if args.preset is None and not args.sets and not args.overlays:
        return None
    sets = {}
    for item in args.sets:
        name, equals, value = item.partition("=")
        if not equals or not name.strip():
            parser.error(f"--set takes KNOB=VALUE, not {item!r}")
        sets[name.strip()] = value.strip()
    plays = {"preset": args.preset or "default", "set": sets, "overlays": list(args.overlays)}
    from baloot_spec.errors import BalootError
    from baloot_spec.rules import load_variant
    try:
        load_variant(plays["preset"], sets, plays["overlays"])
    except BalootError as exc:
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        parser.error(f"the variant does not load: {first}")
    return plays


if __name__ == "__main__":
    sys.exit(serve(plays=plays_of(sys.argv[1:])))
