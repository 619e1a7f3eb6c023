"""The run as JUnit XML, the test-report format CI systems (Jenkins, GitLab, GitHub and Azure
reporters) display: one <testsuite> per area (the first component of a case id), one <testcase>
per case. A fail is a <failure>, an error an <error>; skipped, unsupported, not applicable and
expected failures are <skipped> with the reason, so a known departure does not turn CI red.
Each failing case carries what explains it (title, source, note, knobs, deciding rules,
per-key outcomes) in its failure text (the JUnit schema has no properties per test case); the failures grouped by rule and knob are the
system-out of a `departures` suite that holds no tests (so nothing is counted twice).
"""

from __future__ import annotations

import datetime
import json
import socket
import xml.etree.ElementTree as ET
from collections import OrderedDict

from .console import failure_lines
from .explain import repo_path
from .grouping import console_lines
from .report import readable
from .runner import ERROR, FAIL, PASS
from .status import is_expected_failure

_BAD_XML = dict.fromkeys([c for c in range(0x20) if c not in (0x09, 0x0A, 0x0D)] + [0xFFFE, 0xFFFF])


def _text(value) -> str:
    """Text safe for XML 1.0 (control characters from an engine's stderr are dropped)."""
    text = value if isinstance(value, str) else json.dumps(value)
    text = text.translate(_BAD_XML)
    return "".join(ch for ch in text if not 0xD800 <= ord(ch) <= 0xDFFF)


def junit_xml(outcomes, *, engine: dict, corpus_hash: str, stale: list | None = None, name: str = "baloot-conformance") -> str:
    suites: "OrderedDict[str, list]" = OrderedDict()
    for outcome in outcomes:
        suites.setdefault(outcome.case.area, []).append(outcome)
    timestamp = datetime.datetime.now(datetime.timezone.utc).replace(microsecond=0, tzinfo=None).isoformat()
    host = _text(socket.gethostname() or "localhost")
    root = ET.Element("testsuites", name=name)
    sums = {"tests": 0, "failures": 0, "errors": 0, "skipped": 0, "time": 0.0}
    for number, (area, items) in enumerate(suites.items()):
        suite = ET.SubElement(root, "testsuite", name=area, package=f"conformance.{area}", id=str(number),
                              timestamp=timestamp, hostname=host)
        properties = ET.SubElement(suite, "properties")
        for key, value in (("engine", engine.get("name", "")), ("engine.version", engine.get("version", "")),
                           ("corpus.hash", corpus_hash)):
            ET.SubElement(properties, "property", name=key, value=_text(str(value)))
        counts = {"tests": 0, "failures": 0, "errors": 0, "skipped": 0, "time": 0.0}
        for outcome in items:
            counts["time"] += _case(suite, outcome, counts)
        _close(suite, counts, sums)
    grouped = console_lines(outcomes)
    if grouped:   # the departures, one line per rule and knob: no tests of its own, read in system-out
        suite = ET.SubElement(root, "testsuite", name="departures", package="conformance.departures",
                              id=str(len(suites)), timestamp=timestamp, hostname=host)
        ET.SubElement(suite, "properties")
        _close(suite, {"tests": 0, "failures": 0, "errors": 0, "skipped": 0, "time": 0.0}, sums)
        suite.find("system-out").text = _text("\n".join(grouped))
    if stale:
        suite = ET.SubElement(root, "testsuite", name="expected-failures", package="conformance.expected-failures",
                              id=str(len(suites)), timestamp=timestamp, hostname=host)
        ET.SubElement(suite, "properties")
        counts = {"tests": 0, "failures": 0, "errors": 0, "skipped": 0, "time": 0.0}
        for entry in stale:
            case = ET.SubElement(suite, "testcase", name=_text(entry["id"]), classname="expected-failures", time="0")
            error = ET.SubElement(case, "error", message=_text(f"{entry['id']}: {entry['problem']}"), type="stale-entry")
            error.text = _text(f"reason given: {entry['reason']}")
            counts["tests"] += 1
            counts["errors"] += 1
        _close(suite, counts, sums)
    for key in ("tests", "failures", "errors", "skipped"):
        root.set(key, str(sums[key]))
    root.set("time", f"{sums['time']:.3f}")
    ET.indent(root)
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(root, encoding="unicode") + "\n"


def _case(suite, outcome, counts) -> float:
    seconds = float(outcome.details.get("seconds", 0.0))
    explain = outcome.details.get("explain") or {}
    case = ET.SubElement(suite, "testcase", name=outcome.case.id, classname=f"conformance.{outcome.case.id.rsplit('.', 1)[0]}",
                         time=f"{seconds:.4f}", file=repo_path(outcome.case).split("#", 1)[0])
    counts["tests"] += 1
    status = outcome.status
    told = "\n".join(failure_lines(outcome)[1:])
    if is_expected_failure(outcome):
        skipped = ET.SubElement(case, "skipped", message=_text(f"expected failure: {outcome.details['expected_failure']}"))
        skipped.text = _text(f"{outcome.message}\n{told}")
        counts["skipped"] += 1
    elif status == FAIL:
        failure = ET.SubElement(case, "failure", message=_text(outcome.message), type="mismatch")
        failure.text = _text(f"{outcome.message}\n{told}\n"
                             f"expected: {json.dumps(readable(outcome.expected), sort_keys=True)}\n"
                             f"actual:   {json.dumps(readable(outcome.actual), sort_keys=True, default=str)}\n"
                             f"case:     {explain.get('path', outcome.case.path)}")
        counts["failures"] += 1
    elif status == ERROR:
        error = ET.SubElement(case, "error", message=_text(outcome.message), type=outcome.details.get("failure", "error"))
        error.text = _text(f"{told}\ncase: {explain.get('path', outcome.case.path)}")
        counts["errors"] += 1
    elif status != PASS:
        ET.SubElement(case, "skipped", message=_text(f"{status}: {outcome.message}"))
        counts["skipped"] += 1
    if "unsupported" in outcome.keys.values():   # a case that passed or failed on part of its keys
        ET.SubElement(case, "system-out").text = _text("keys: " + ", ".join(f"{k} {v}" for k, v in outcome.keys.items()))
    if outcome.details.get("stderr"):
        ET.SubElement(case, "system-err").text = _text(outcome.details["stderr"])
    return seconds


def _close(suite, counts, sums) -> None:
    for key in ("tests", "failures", "errors", "skipped"):
        suite.set(key, str(counts[key]))
        sums[key] += counts[key]
    suite.set("time", f"{counts['time']:.3f}")
    sums["time"] += counts["time"]
    ET.SubElement(suite, "system-out")
    ET.SubElement(suite, "system-err")
