"""`baloot audit --jsonl FILE`: the audit's findings as JSON Lines, written as they are found.

One line per finding, in the order of the input (file, then line), then one line per input file
with its counts, and a last line with the run's totals:

    {"kind": "report", "format": "baloot-audit-jsonl/1", "logs": [...]}            first line
    {"kind": "violation", "file", "line", "path", "rule", "message", "source"?, "after"?,
     "legal"?, "claimed"?, "recomputed"?}        (a claimed-score difference carries claimed/recomputed)
    {"kind": "unreadable", "file", "line", "column"?, "path", "message"}
    {"kind": "note", "file", "line", "note"}
    {"kind": "input", "file", "documents", "hands", "violations", "unreadable", "by_rule"}
    {"kind": "summary", "documents", "hands", "violations", "unreadable", "by_rule", "seconds"}   last line

Only the counts of the current file and the totals are held, so the memory of the writer does
not grow with the number of hands. A report without its summary line is of a run that did not
finish (`baloot audit merge` says so). `audit_merge.py` reads these reports.
"""

from __future__ import annotations

import json
from collections import Counter

FORMAT = "baloot-audit-jsonl/1"


class JsonlReport:
    """Write one audit's findings to an open text stream as they come (see the module doc)."""

    def __init__(self, stream, logs: list):
        self.stream = stream
        self.file = None
        self.counts = Counter()
        self.by_rule = Counter()
        self._write({"kind": "report", "format": FORMAT, "logs": [str(log) for log in logs]})

    def _write(self, record: dict) -> None:
        self.stream.write(json.dumps(record, ensure_ascii=False) + "\n")

    def add(self, report: dict) -> None:
        """One document's report (as `cli.logs._audit_item` gives it)."""
        if report["file"] != self.file:
            self._end_input()
            self.file = report["file"]
        self.counts["documents"] += report.get("documents", 1)   # (clean documents counted together: audit_dask)
        self.counts["hands"] += report["hands"]
        self.counts["violations"] += len(report["violations"])
        self.counts["unreadable"] += 1 if report["errors"] else 0
        for error in report["errors"]:
            record = {"kind": "unreadable", "file": report["file"], "line": error.get("line") or report["line"]}
            if error.get("column"):
                record["column"] = error["column"]
            record.update(path=error["path"], message=error["message"])
            self._write(record)
        for violation in report["violations"]:
            self.by_rule[violation["rule"]] += 1
            self._write({"kind": "violation", **violation})
        for note in report["notes"]:
            self._write({"kind": "note", "file": report["file"], "line": report["line"], "note": note})

    def _end_input(self) -> None:
        if self.file is None:
            return
        self._write({"kind": "input", "file": self.file, **{k: self.counts[k] for k in _COUNTS},
                     "by_rule": dict(sorted(self.by_rule.items()))})
        self.stream.flush()
        self.file = None
        self.counts.clear()
        self.by_rule.clear()

    def finish(self, summary: dict) -> None:
        """The last input's line and the run's summary line (the `audit` summary)."""
        self._end_input()
        self._write({"kind": "summary", **{k: summary[k] for k in _COUNTS},
                     "by_rule": dict(sorted(summary["by_rule"].items())), "seconds": summary.get("seconds")})
        self.stream.flush()


_COUNTS = ("documents", "hands", "violations", "unreadable")
