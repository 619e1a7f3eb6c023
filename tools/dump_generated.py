#!/usr/bin/env python3
"""Write every generated source the compiler makes, to compare two trees' generated code byte
for byte: a speed-up of the compiler must leave it the same (BENCHMARKS.md, step 104).

    python tools/dump_generated.py OUTDIR [--preset P ...]
    cmp -s / diff -r OUTDIR_A OUTDIR_B

With no disk cache (BALOOT_NO_CACHE=1, set here), for each preset (all 5 by default): the generic
module, then every phase that has fixed state specialised for a Sun and a Hokum in each suit
(the values of its fixed state), each source as `compiled.code_of` receives it, one file each,
numbered in the order made, its first line naming it. Prints the count and a digest of all.
"""

from __future__ import annotations

import argparse
import hashlib
import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PRESETS = ("default", "riyadh", "saudi-federation", "nl-rulebook", "online-apps")
CONTRACTS = (("sun", None), ("hokum", "S"), ("hokum", "H"), ("hokum", "D"), ("hokum", "C"))


def generated_sources(presets=PRESETS, contracts=CONTRACTS) -> list:
    """[(filename given to compile(), source)] of the presets' modules and specialised phases."""
    os.environ["BALOOT_NO_CACHE"] = "1"
    sys.path.append(str(ROOT))   # (after PYTHONPATH: the tree it names is the one dumped)
    from baloot_spec.rules import compiled, load_variant
    seen = []
    code_of = compiled.code_of

    def recording(source, filename):
        seen.append((filename, source))
        return code_of(source, filename)
    compiled.code_of = recording
    import baloot_spec.rules.specialize as specialize   # (it imported code_of by name: the specialised phases)
    specialize.code_of = recording
    try:
        for preset in presets:
            rules = load_variant(preset)
            for name, phase in rules.phases.items():
                if phase.fixed:
                    for values in contracts:
                        rules.specialized(name, values)
    finally:
        compiled.code_of = specialize.code_of = code_of
    return seen


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("outdir")
    parser.add_argument("--preset", action="append", help="a preset (repeatable); all 5 by default")
    args = parser.parse_args(argv)
    out = Path(args.outdir)
    out.mkdir(parents=True, exist_ok=True)
    sources = generated_sources(tuple(args.preset or PRESETS))
    digest = hashlib.sha256()
    for number, (filename, source) in enumerate(sources):
        text = f"# {filename}\n{source}"
        (out / f"{number:03d}.py").write_text(text, encoding="utf-8")
        digest.update(text.encode())
    import baloot_spec
    print(f"{len(sources)} sources, sha256 {digest.hexdigest()[:16]} ({Path(baloot_spec.__file__).parent.parent})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
