#!/usr/bin/env python3
"""Traceability from every sentence of the three sources to the rules and cases that encode it.

    python tools/source_trace.py check [--json]      # rules/trace/trace.yaml against sources, rules, corpus
    python tools/source_trace.py doc [--check]       # (re)write rules/TRACE.md from rules/trace/trace.yaml
    python tools/source_trace.py split [SOURCE]      # the sentences the sources split into (id, hash)
    python tools/source_trace.py suggest [ID ...]    # rules and cases whose citations quote a sentence

Why: a reader should be able to check the specification against `de`, `nl` and `smsf` without
reading code. `rules/trace/sources/` holds a verbatim copy of the three sources (the project must not
need ../shared); this tool splits them into sentences, each with a stable id (`de:48.2` = line
48, second sentence) and a short hash of its text. `rules/trace/trace.yaml` (hand-checked data) gives
every sentence a status and the rule ids, knob values and case ids that encode and test it.
`check` fails (exit 1) when a sentence has no entry or a stale one, when a named rule, knob
value or case does not exist, when a rule-bearing sentence has no case, when a knob value
named for a sentence is not the one the preset of its source sets (de: default, nl:
nl-rulebook, smsf: saudi-federation; de's Varianten name other values by nature), or when no
case of the sentence runs under a knob value it names. Exit codes: 0 ok, 1 problems
found (or TRACE.md out of date with doc --check), 2 unreadable input, 130 interrupted.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import re
import sys
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from baloot_spec.errors import BalootError  # noqa: E402
SOURCES = {"de": "de.txt", "nl": "nl.txt", "smsf": "smsf.md"}
SOURCE_DIR = ROOT / "rules" / "trace" / "sources"
TRACE_YAML = ROOT / "rules" / "trace" / "trace.yaml"
TRACE_MD = ROOT / "rules" / "TRACE.md"
STATUSES = ("encoded", "choice", "not a rule", "pending")
# Pending is tolerated (no case yet) only for the findings another branch fixes.
PENDING = re.compile(r"^pending: issue 24 finding [1-9]\b")

# Section headings of each source (a heading line is an entry too: "not a rule: heading").
DE_HEADINGS = {"Überblick", "Die Karten", "Vorbereitung", "Reizen", "Verdoppeln", "Das Spiel",
               "Projekte", "Abrechnung", "Spielende", "Tipps für Einsteiger", "Varianten"}
NL_HEADINGS = {"Instelling", "Bieden", "Spelregels", "Scoren", "SPELBONUSSEN:", "OPMERKINGEN:",
               "Sira (Enkele regel):", "50:", "100:", "400:", "Baloot:",
               "Meerdere scores & einde van de spel"}

# A sentence ends at . ! ? (optionally followed by a closing quote) before a space and a
# capital, a quote or a bracket; never after a bare number ("1. Geber").
_END = re.compile(r"(?<![\s\d])[.!?][“”\"»)]?(?=\s+[A-ZÄÖÜ„\"“(])")


class TraceError(Exception):
    """Unreadable input: a message that names the file (and entry) at fault."""


def sha(text: str) -> str:
    return hashlib.sha256(" ".join(text.split()).encode()).hexdigest()[:10]


def _logical_lines(name: str, text: str):
    """(line number, text) pairs; in smsf (markdown) a paragraph or list item is one line."""
    out, joinable = [], False
    for number, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            joinable = False
            continue
        starts_item = line.lstrip().startswith(("-", "#"))
        if name == "smsf" and joinable and not starts_item:
            out[-1] = (out[-1][0], out[-1][1] + " " + line.strip())
            continue
        out.append((number, line.strip()))
        joinable = not line.startswith("#")
    return out


def _is_heading(name: str, line: str) -> bool:
    if name == "smsf":
        return line.startswith("#")
    return line in (DE_HEADINGS if name == "de" else NL_HEADINGS)


def split_sentences(line: str) -> list[str]:
    parts, start = [], 0
    for match in _END.finditer(line):
        parts.append(line[start:match.end()].strip())
        start = match.end()
    parts.append(line[start:].strip())
    return [p for p in parts if p]


def split_source(name: str, text: str) -> list[dict]:
    """Every sentence of one source: id, line, section, text, hash."""
    out, section = [], ""
    for number, line in _logical_lines(name, text):
        if _is_heading(name, line):
            section = line.lstrip("#").strip().rstrip(":")
        for k, sentence in enumerate(split_sentences(line), 1):
            out.append({"id": f"{name}:{number}.{k}", "line": number, "section": section,
                        "text": sentence, "sha": sha(sentence)})
    return out


def load_sources(directory: Path | None = None) -> list[dict]:
    directory = directory or SOURCE_DIR
    sentences = []
    for name, file in SOURCES.items():
        path = directory / file
        try:
            sentences += split_source(name, path.read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError) as exc:
            raise TraceError(f"{path}: cannot read the source: {exc}") from None
    return sentences


def _read(path: Path, parse):
    """A parsed rules or case file, or a TraceError naming the file."""
    try:
        data = parse(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, ValueError, yaml.YAMLError) as exc:
        raise TraceError(f"{path}: cannot read: {exc}") from None
    if not isinstance(data, dict):
        raise TraceError(f"{path}: expected a mapping at the top")
    return data


# ---- what the project cites -------------------------------------------------------------------

def _walk_ids(node, out: dict) -> None:
    if isinstance(node, dict):
        if isinstance(node.get("id"), str):
            out[node["id"]] = str(node.get("source", ""))
        for value in node.values():
            _walk_ids(value, out)
    elif isinstance(node, list):
        for value in node:
            _walk_ids(value, out)


def rule_citations() -> dict:
    """rule id -> its source text, from every rules/*.yaml (rules, facts, steps, constraints);
    a top-level section without an id is named `file.section` (game.deck, game.constants)."""
    out: dict = {}
    for path in sorted((ROOT / "rules").glob("*.yaml")):
        data = _read(path, yaml.safe_load)
        for key, section in data.items():
            if isinstance(section, dict):   # a section without an id (table, deck, deal, constants)
                out[f"{path.stem}.{key}"] = str(section.get("source", ""))
        _walk_ids(data, out)
    return out


def knob_citations() -> dict:
    """'knob=value' -> its source text, from rules/params.yaml."""
    params = yaml.safe_load((ROOT / "rules" / "params.yaml").read_text(encoding="utf-8"))
    out = {}
    for knob, spec in params["knobs"].items():
        for value, meaning in (spec.get("values") or {}).items():
            key = str(value).lower() if isinstance(value, bool) else str(value)
            out[f"{knob}={key}"] = str(meaning.get("source", ""))
        if spec.get("type") == "int":
            out[f"{knob}={spec['default']}"] = str(spec.get("source", ""))
    return out


def case_citations() -> dict:
    """case id -> 'ref — quote', from every conformance/cases/**/*.json."""
    out = {}
    for path in sorted((ROOT / "conformance" / "cases").rglob("*.json")):
        for case in _read(path, json.loads).get("cases", []):
            source = case.get("source") or {}
            out[case["id"]] = f"{source.get('ref', '')} — {source.get('quote', '')}"
    return out


def _norm(text: str) -> str:
    return " ".join(re.sub(r"[^\w%]+", " ", text.lower()).split())


def _fragments(citation: str) -> list[str]:
    """The quoted pieces of a citation: what follows a dash, cut at '…', ';' and brackets."""
    pieces = []
    for part in re.split(r"\s[—–-]\s", citation)[1:] or [citation]:
        for piece in re.split(r"…|\.\.\.|;|\(|\)|(?<=[^\d\s][.!?:])\s", part):
            if len(_norm(piece)) >= 14:
                pieces.append(_norm(piece))
    return pieces


def suggest(sentence: dict, citations: dict) -> list[str]:
    """Ids whose citation quotes a piece of the sentence (a hint to check by hand)."""
    source = sentence["id"].split(":")[0]
    text = _norm(sentence["text"])
    hits = []
    for key, citation in citations.items():
        if not citation.startswith(source + ":") and f"{source}:" not in citation:
            continue
        if any(piece in text or (len(text) >= 14 and text in piece) for piece in _fragments(citation)):
            hits.append(key)
    return hits


# ---- the trace data ---------------------------------------------------------------------------

def load_trace(path: Path | None = None) -> list[dict]:
    path = path or TRACE_YAML
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
    except (OSError, yaml.YAMLError) as exc:
        raise TraceError(f"{path}: cannot read: {exc}") from None
    entries = data.get("sentences") if isinstance(data, dict) else None
    if not isinstance(entries, list):
        raise TraceError(f"{path}: expected a mapping with a 'sentences' list")
    for n, entry in enumerate(entries):
        if not isinstance(entry, dict) or not isinstance(entry.get("id"), str):
            raise TraceError(f"{path}: sentences[{n}]: expected a mapping with an 'id'")
    return entries


def status_kind(status: str) -> str:
    return next((k for k in STATUSES if str(status).startswith(k)), "")


def check(entries: list[dict], sentences: list[dict], rules: dict, knobs: dict, cases: dict) -> list[str]:
    """Every problem of the trace data, as 'id: message' lines (empty: all good)."""
    problems = []
    by_id = {s["id"]: s for s in sentences}
    seen = set()
    for entry in entries:
        sid = entry["id"]
        if sid in seen:
            problems.append(f"{sid}: listed twice")
        seen.add(sid)
        sentence = by_id.get(sid)
        if sentence is None:
            problems.append(f"{sid}: no such sentence in rules/trace/sources (stale entry)")
            continue
        if entry.get("sha") != sentence["sha"]:
            problems.append(f"{sid}: text changed (sha {entry.get('sha')} != {sentence['sha']}): re-check it")
        status = str(entry.get("status", ""))
        kind = status_kind(status)
        if not kind:
            problems.append(f"{sid}: status {status!r} is none of {', '.join(STATUSES)}")
        elif kind != "encoded" and not status[len(kind):].lstrip(":").strip():
            problems.append(f"{sid}: status {kind!r} needs a reason")
        if kind == "pending" and not PENDING.match(status):
            problems.append(f"{sid}: only 'pending: issue 24 finding N' may stay pending")
        for field in ("rules", "knobs", "cases"):
            value = entry.get(field)
            if value is not None and not (isinstance(value, list) and all(isinstance(v, str) for v in value)):
                problems.append(f"{sid}: {field} must be a list of names")
                entry = {**entry, field: []}
        for rid in entry.get("rules") or []:
            if rid not in rules:
                problems.append(f"{sid}: rule {rid!r} does not exist")
        for kv in entry.get("knobs") or []:
            if kv not in knobs:
                problems.append(f"{sid}: knob value {kv!r} does not exist")
        for cid in entry.get("cases") or []:
            if cid not in cases:
                problems.append(f"{sid}: case {cid!r} does not exist")
        if kind in ("encoded", "choice"):
            if not (entry.get("rules") or entry.get("knobs")):
                problems.append(f"{sid}: rule-bearing ({kind}) but names no rule or knob value")
            if not entry.get("cases"):
                problems.append(f"{sid}: rule-bearing ({kind}) but no case tests it")
    for sentence in sentences:
        if sentence["id"] not in seen:
            problems.append(f"{sentence['id']}: sentence not traced: {sentence['text'][:70]!r}")
    return problems


PRESET_OF = {"de": "default", "nl": "nl-rulebook", "smsf": "saudi-federation"}
VARIANT_SECTIONS = {("de", "Varianten")}   # variants: values that other presets or --set choose


def preset_knobs() -> dict:
    """source -> the knob values its preset resolves to (rules/presets/)."""
    from baloot_spec.rules import load_variant
    return {name: load_variant(preset).variant.knobs for name, preset in PRESET_OF.items()}


def preset_problems(entries: list[dict], sentences: list[dict], knobs_of: dict) -> list[str]:
    """A knob value named for a sentence must be the value the preset of that source sets:
    otherwise the preset does not follow the sentence it claims to encode."""
    section = {s["id"]: s["section"] for s in sentences}
    problems = []
    for entry in entries:
        source = entry["id"].split(":")[0]
        if (source, section.get(entry["id"])) in VARIANT_SECTIONS:
            continue
        for kv in entry.get("knobs") or []:
            knob, _, value = kv.partition("=")
            if knob not in knobs_of[source]:
                continue   # reported by check()
            actual = knobs_of[source][knob]
            actual = str(actual).lower() if isinstance(actual, bool) else str(actual)
            if actual != value:
                problems.append(f"{entry['id']}: names {kv}, but preset {PRESET_OF[source]} sets {knob}={actual}")
    return problems


def case_variants() -> dict:
    """case id -> its variant (preset, set, overlays) as written in the corpus."""
    out = {}
    for path in sorted((ROOT / "conformance" / "cases").rglob("*.json")):
        for case in _read(path, json.loads).get("cases", []):
            out[case["id"]] = case.get("variant") or {}
    return out


def case_knob_problems(entries: list[dict], variants: dict) -> list[str]:
    """A knob value named for a sentence must be tested: at least one of the sentence's cases
    runs under a variant with that value (an entry with no case is reported by check())."""
    from baloot_spec.rules.loader import resolve_variant
    resolved: dict = {}

    def knobs_of(case_id: str) -> dict:
        variant = variants.get(case_id, {})
        key = json.dumps(variant, sort_keys=True)
        if key not in resolved:
            resolved[key] = resolve_variant(variant.get("preset", "default"), variant.get("set") or {},
                                            variant.get("overlays") or []).knobs
        return resolved[key]

    problems = []
    for entry in entries:
        cases = [c for c in entry.get("cases") or [] if c in variants]
        for kv in entry.get("knobs") or []:
            knob, _, value = kv.partition("=")
            tested = any(str(knobs_of(c).get(knob)).lower() == value.lower() for c in cases)
            if cases and not tested:
                problems.append(f"{entry['id']}: names {kv}, but none of its cases runs under it")
    return problems


# ---- TRACE.md ---------------------------------------------------------------------------------

def _short(text: str, limit: int = 90) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[:limit - 1].rstrip() + "…"


def _cell(text: str) -> str:
    return text.replace("|", "\\|")


def render(entries: list[dict], sentences: list[dict]) -> str:
    by_id = {s["id"]: s for s in sentences}
    lines = [
        "# Traceability: every source sentence → rules → cases",
        "",
        "Generated by `python tools/source_trace.py doc` from `rules/trace/trace.yaml`; do not edit by hand",
        "(`tests/test_trace.py` fails when this file is out of date). The sources are the verbatim",
        "copies in `rules/trace/sources/`; a sentence's id is `source:line.n` (the n-th sentence of that",
        "line). Status: `encoded` (the rules and knob values named encode it, the cases test it),",
        "`choice` (the rules read it one way, for the reason given), `not a rule` (heading, history,",
        "advice, glossary, a restatement), `pending` (a finding of issue 24 being fixed elsewhere).",
        "Knob values are `knob=value` (`rules/params.yaml`); a knob value the preset of that source",
        "sets is what encodes it there.",
        "",
    ]
    counts: dict = {}
    for entry in entries:
        key = (entry["id"].split(":")[0], status_kind(entry.get("status", "")))
        counts[key] = counts.get(key, 0) + 1
    lines += ["| source | sentences | encoded | choice | not a rule | pending |", "| --- | --- | --- | --- | --- | --- |"]
    for name in SOURCES:
        row = [counts.get((name, k), 0) for k in STATUSES]
        lines.append(f"| `{name}` | {sum(row)} | " + " | ".join(str(n) for n in row) + " |")
    order = {s["id"]: n for n, s in enumerate(sentences)}
    for name in SOURCES:
        lines += ["", f"## `{name}` (`rules/trace/sources/{SOURCES[name]}`)", ""]
        section = None
        for entry in sorted((e for e in entries if e["id"].startswith(name + ":")),
                            key=lambda e: order.get(e["id"], 1 << 30)):
            sentence = by_id.get(entry["id"], {"section": "?", "text": entry.get("quote", "")})
            if sentence["section"] != section:
                section = sentence["section"]
                lines += ["", f"### {section or '(title)'}", "",
                          "| id | sentence | status | rules / knobs | cases |",
                          "| --- | --- | --- | --- | --- |"]
            refs = [f"`{r}`" for r in (entry.get("rules") or []) + (entry.get("knobs") or [])]
            cases = [f"`{c}`" for c in entry.get("cases") or []]
            lines.append(f"| {entry['id']} | {_cell(_short(sentence['text']))} | {_cell(str(entry.get('status', '')))} "
                         f"| {' '.join(refs)} | {' '.join(cases)} |")
    return "\n".join(lines) + "\n"


# ---- command line -----------------------------------------------------------------------------

def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter, epilog=__doc__)
    sub = parser.add_subparsers(dest="command", required=True)
    p = sub.add_parser("check", help="check rules/trace/trace.yaml against sources, rules and corpus")
    p.add_argument("--json", action="store_true", help="print the problems as a JSON list")
    p = sub.add_parser("doc", help="write rules/TRACE.md")
    p.add_argument("--check", action="store_true", help="exit 1 if rules/TRACE.md is out of date")
    p = sub.add_parser("split", help="print the sentences of the sources")
    p.add_argument("source", nargs="?", choices=sorted(SOURCES))
    p = sub.add_parser("suggest", help="rules and cases whose citations quote a sentence")
    p.add_argument("ids", nargs="*", help="sentence ids (default: all)")
    args = parser.parse_args(argv)
    try:
        sentences = load_sources()
        if args.command == "split":
            for s in sentences:
                if not args.source or s["id"].startswith(args.source + ":"):
                    print(f"{s['id']}\t{s['sha']}\t{s['section']}\t{s['text']}")
            return 0
        if args.command == "suggest":
            citations = {**rule_citations(), **knob_citations()}
            cases = case_citations()
            for s in sentences:
                if args.ids and s["id"] not in args.ids:
                    continue
                print(json.dumps({"id": s["id"], "rules": suggest(s, citations), "cases": suggest(s, cases),
                                  "text": s["text"]}, ensure_ascii=False))
            return 0
        entries = load_trace()
        if args.command == "doc":
            text = render(entries, sentences)
            if args.check:
                current = TRACE_MD.read_text(encoding="utf-8") if TRACE_MD.exists() else ""
                if current != text:
                    print("rules/TRACE.md is out of date: run python tools/source_trace.py doc", file=sys.stderr)
                    return 1
                return 0
            TRACE_MD.write_text(text, encoding="utf-8")
            print(f"wrote {TRACE_MD.relative_to(ROOT)} ({len(entries)} sentences)")
            return 0
        problems = check(entries, sentences, rule_citations(), knob_citations(), case_citations())
        problems += preset_problems(entries, sentences, preset_knobs())
        problems += case_knob_problems(entries, case_variants())
        if args.json:
            print(json.dumps(problems, indent=1, ensure_ascii=False))
        else:
            for line in problems:
                print(line)
            print(f"{len(sentences)} sentences, {len(problems)} problem(s)", file=sys.stderr)
        return 1 if problems else 0
    except (TraceError, BalootError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130


if __name__ == "__main__":
    sys.exit(main())
