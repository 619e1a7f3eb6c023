"""One summary of the `--jsonl` reports of several audit shards (`baloot audit merge REPORT...`,
whose command line is in cli/logs.py).

Totals, and counts by rule id and by input file, from each report's `input` lines (see
`audit_stream.py`). A report is checked as it is read, and any fault is a located error
(REPORT:LINE) and exit 2: not JSON, not a `baloot-audit-jsonl/1` report, a line of an unknown
kind, a report that ends without its summary line (its run did not finish), counts that do not
add up to the summary, or an input file that two reports both audited (it would be counted
twice). Memory holds one entry per input file, never per hand.
"""

from __future__ import annotations

import json
from collections import Counter

from .audit_stream import FORMAT

_COUNTS = ("documents", "hands", "violations", "unreadable")
_KINDS = {"report", "violation", "unreadable", "note", "input", "summary"}


class ReportError(Exception):
    """A located fault in a report: 'REPORT:LINE: what is wrong'."""


def merge(paths) -> dict:
    """The merged summary of the reports at `paths`; ReportError at the first bad one."""
    totals = Counter()
    by_rule = Counter()
    by_file: dict = {}
    owner: dict = {}     # input file -> the report that audited it
    paths = list(paths)
    for k, path in enumerate(paths):
        if path in paths[:k]:
            raise ReportError(f"{path}: given twice: merged, its inputs would count twice")
        for file, counts, rules in _inputs(path):
            if file in owner and owner[file] != path:
                raise ReportError(f"{path}: input {file} was audited in {owner[file]} too: merged, it would count twice")
            owner[file] = path
            entry = by_file.setdefault(file, Counter())
            entry.update(counts)
            totals.update(counts)
            by_rule.update(rules)
    return {"reports": len(paths), "inputs": len(by_file), **{k: totals[k] for k in _COUNTS},
            "by_rule": dict(by_rule.most_common()),
            "by_file": {file: {k: counts[k] for k in _COUNTS} for file, counts in by_file.items()}}


def _inputs(path: str):
    """Yield (file, counts, by_rule) of each input line of one report, checking it whole."""
    seen = Counter()
    rules_seen = Counter()
    summary = None
    try:
        stream = open(path, "r", encoding="utf-8")
    except OSError as exc:
        raise ReportError(f"{path}: cannot read: {exc.strerror or exc}") from None
    with stream:
        try:
            for number, text in enumerate(stream, 1):
                where = f"{path}:{number}"
                if not text.strip():
                    continue
                try:
                    record = json.loads(text)
                except (json.JSONDecodeError, RecursionError) as exc:
                    raise ReportError(f"{where}: not JSON: {getattr(exc, 'msg', exc)}") from None
                kind = record.get("kind") if isinstance(record, dict) else None
                if number == 1 and (kind != "report" or record.get("format") != FORMAT):
                    raise ReportError(f"{where}: not a {FORMAT} report (its first line must be "
                                      f'{{"kind": "report", "format": "{FORMAT}", ...}}; write one with `baloot audit --jsonl`)')
                if kind not in _KINDS:
                    raise ReportError(f"{where}: unknown kind {kind!r} (one of {', '.join(sorted(_KINDS))})")
                if summary is not None:
                    raise ReportError(f"{where}: a line after the summary line {summary}")
                if kind == "input":
                    counts, rules = _counts(record, where), record.get("by_rule")
                    if not isinstance(record.get("file"), str) or not _is_counter(rules):
                        raise ReportError(f"{where}: an input line needs a file name and by_rule (rule -> count)")
                    seen.update(counts)
                    rules_seen.update(rules)
                    yield record["file"], counts, rules
                elif kind == "summary":
                    totals = _counts(record, where)
                    if totals != {k: seen[k] for k in _COUNTS}:
                        raise ReportError(f"{where}: the summary says {totals}, its input lines add up to "
                                          f"{ {k: seen[k] for k in _COUNTS} }")
                    summary = number
        except UnicodeDecodeError as exc:
            raise ReportError(f"{path}: not UTF-8 text: {exc.reason}") from None
    if summary is None:
        raise ReportError(f"{path}: ends without its summary line: the audit that wrote it did not finish "
                          f"(run that shard again)")


def _counts(record: dict, where: str) -> dict:
    counts = {k: record.get(k) for k in _COUNTS}
    if not all(isinstance(v, int) and not isinstance(v, bool) and v >= 0 for v in counts.values()):
        raise ReportError(f"{where}: {', '.join(_COUNTS)} must be whole numbers of at least 0")
    return counts


def _is_counter(value) -> bool:
    return isinstance(value, dict) and all(isinstance(v, int) and not isinstance(v, bool) and v >= 0 for v in value.values())
