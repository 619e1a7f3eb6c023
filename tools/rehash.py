#!/usr/bin/env python3
"""Bring every stored variant hash up to date, and keep rules/version.json honest.

    python tools/rehash.py            rewrite every stale stored hash (idempotent)
    python tools/rehash.py --check    change nothing; exit 1 if a stored hash is stale or
                                      rules/ changed since its version was recorded
    python tools/rehash.py --bump     rules/ changed how some existing variant plays: bump
                                      rules_version, record the content digest, rewrite hashes
    python tools/rehash.py --accept   rules/ changed but no existing variant plays differently
                                      (a knob added at its default, a source or wording fix):
                                      record the content digest, keep the version, rewrite hashes
    add --json for a machine-readable report

A stored hash is the `hash` of any JSON object that is the value of a `"variant"` key and names
`preset` (a log's variant): in conformance/**/*.json and *.jsonl (cases' logs, games), and in
the Markdown of conformance/, rules/ and README.md (examples). Each is recomputed from the
object's own preset, set and overlays (`baloot_spec.rules.load_variant`) and only the 16 hex
digits are replaced, so a file's layout is left exactly as it was. Exit codes: 0 up to date (or
rewritten), 1 stale (--check), 2 unreadable input or a variant that does not resolve.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from baloot_spec.errors import BalootError  # noqa: E402
from baloot_spec.rules import load_variant  # noqa: E402
from baloot_spec.rules.identity import VERSION_FILE, content_digest, read_version  # noqa: E402

VARIANT_KEY = re.compile(r'"variant"\s*:\s*(?=\{)')
HASH_VALUE = re.compile(r'("hash"\s*:\s*")([0-9a-f]{16})(")')


def stored_files(root: Path = ROOT) -> list[Path]:
    files = [p for p in (root / "conformance").rglob("*") if p.suffix in (".json", ".jsonl", ".md")]
    files += list((root / "rules").glob("*.md")) + [root / "README.md"]
    return sorted(p for p in files if p.is_file())


def _hash_of(variant: dict, memo: dict) -> str:
    key = json.dumps(variant, sort_keys=True)
    if key not in memo:
        memo[key] = load_variant(variant.get("preset", "default"), variant.get("set") or {},
                                 list(variant.get("overlays") or [])).hash
    return memo[key]


def rehash_text(text: str, memo: dict) -> tuple[str, list]:
    """The text with every stored variant hash recomputed, and the list of (old, new) changes."""
    decoder = json.JSONDecoder()
    pieces, changes, position = [], [], 0
    for match in VARIANT_KEY.finditer(text):
        start = match.end()
        if start < position:
            continue
        try:
            variant, end = decoder.raw_decode(text, start)
        except ValueError:
            continue
        if not isinstance(variant, dict) or "preset" not in variant or not isinstance(variant.get("hash"), str):
            continue
        new = _hash_of({k: v for k, v in variant.items() if k != "hash"}, memo)
        span = text[start:end]
        found = HASH_VALUE.search(span)
        if found is None or found.group(2) == new:
            continue
        changes.append((found.group(2), new))
        pieces.append(text[position:start] + span[:found.start(2)] + new + span[found.end(2):])
        position = end
    pieces.append(text[position:])
    return "".join(pieces), changes


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter, epilog=__doc__)
    mode = parser.add_mutually_exclusive_group()
    mode.add_argument("--check", action="store_true", help="change nothing; exit 1 if anything is stale")
    mode.add_argument("--bump", action="store_true", help="bump rules_version and record the content digest")
    mode.add_argument("--accept", action="store_true", help="record the content digest without a bump")
    parser.add_argument("--json", action="store_true", help="print the report as JSON")
    args = parser.parse_args(argv)
    report = {"rules_version": None, "content": "recorded", "stale": [], "rewritten": []}
    try:
        version = read_version()
        current = content_digest()
        if args.bump or args.accept:
            version = {"rules_version": version["rules_version"] + (1 if args.bump else 0), "content_digest": current}
            path = ROOT / "rules" / VERSION_FILE
            path.write_text(json.dumps(version, indent=2) + "\n", encoding="utf-8")
        elif version.get("content_digest") != current:
            report["content"] = "changed"
        report["rules_version"] = version["rules_version"]
        memo: dict = {}
        for path in stored_files():
            text = path.read_text(encoding="utf-8")
            new_text, changes = rehash_text(text, memo)
            if not changes:
                continue
            name = path.relative_to(ROOT).as_posix()
            entry = {"file": name, "changes": [{"old": old, "new": new} for old, new in changes]}
            if args.check or report["content"] == "changed":
                report["stale"].append(entry)
            else:
                path.write_text(new_text, encoding="utf-8")
                report["rewritten"].append(entry)
    except (BalootError, OSError) as exc:
        print(f"rehash: {exc}", file=sys.stderr)
        return 2
    if args.json:
        print(json.dumps(report, indent=2))
    else:
        if report["content"] == "changed":
            print(f"rules/ changed since rules_version {report['rules_version']} was recorded in rules/{VERSION_FILE}.\n"
                  "  If the change alters how any existing variant plays: python tools/rehash.py --bump\n"
                  "  otherwise (a knob added at its default, a source or wording fix): python tools/rehash.py --accept")
        for entry in report["stale"]:
            pairs = sorted({f"{c['old']} -> {c['new']}" for c in entry["changes"]})
            print(f"stale: {entry['file']}: {len(entry['changes'])} hash(es): {', '.join(pairs)}")
        for entry in report["rewritten"]:
            print(f"rewrote {entry['file']}: {len(entry['changes'])} hash(es)")
        if not report["stale"] and report["content"] == "recorded":
            print(f"rules_version {report['rules_version']}: every stored hash is up to date")
    return 1 if report["stale"] or report["content"] == "changed" else 0


if __name__ == "__main__":
    sys.exit(main())
