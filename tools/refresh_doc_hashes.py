#!/usr/bin/env python3
"""Recompute the variant hash of every baloot-log/1 example in the project's Markdown (after a
change to how variants hash), in place.

    python tools/refresh_doc_hashes.py [FILE.md ...]   (default: conformance/LOGS.md)

Only the `"hash": "..."` text inside a log example's `variant` is replaced; tests/test_doc_examples.py
fails while an example's hash is stale.
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from baloot_spec.rules import load_variant  # noqa: E402

BLOCK = re.compile(r"```json\n(.*?)```", re.S)


def refresh(text: str) -> str:
    def fix(match):
        block = match.group(1)
        try:
            document = json.loads(block)
        except json.JSONDecodeError:
            return match.group(0)
        if not (isinstance(document, dict) and document.get("format") == "baloot-log/1" and "hash" in document.get("variant", {})):
            return match.group(0)
        variant = document["variant"]
        right = load_variant(variant.get("preset", "default"), variant.get("set") or {}, variant.get("overlays") or []).hash
        return match.group(0).replace(f'"hash": "{variant["hash"]}"', f'"hash": "{right}"', 1)
    return BLOCK.sub(fix, text)


def main(argv=None) -> int:
    files = (argv if argv is not None else sys.argv[1:]) or [str(ROOT / "conformance" / "LOGS.md")]
    for name in files:
        path = Path(name)
        text = path.read_text(encoding="utf-8")
        new = refresh(text)
        if new != text:
            path.write_text(new, encoding="utf-8")
            print(f"updated {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
