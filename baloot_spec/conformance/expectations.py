"""Expected failures: the known departures an engine lives with, each with its reason.

Two formats are read (conformance/ENGINES.md, "Known departures"):

- the first, a JSON object {"case-id": "reason", ...};
- `baloot-expected-failures/2`: {"format": ..., "entries": [{"case": ID-OR-GLOB, "rule": RULE-ID,
  "knob": "NAME=VALUE", "feature": FEATURE, "reason": "..."}, ...]}. An entry names one or more
  of case, rule, knob, feature (all that it names must hold) and always a reason. `rule` is a
  rule id that decides the failure (as the reports group them), `knob` a knob value the case
  depends on or sets, `feature` a feature of the case (a prefix selects its sub-features).

A failing case an entry matches does not fail the run. Neither list can go stale: an entry that
matches no case, or whose cases no longer fail, is reported as stale and fails the run (exit 1);
in the first format a listed case that passes is turned into an error ("remove the entry").
"""

from __future__ import annotations

import fnmatch
import json
from dataclasses import dataclass
from pathlib import Path

from ..errors import CaseError, Location
from .corpus import read_json
from .explain import case_knobs, knob_labels, rule_ids
from .runner import ERROR, PASS
from .status import FAILING

FORMAT = "baloot-expected-failures/2"
SELECTORS = ("case", "rule", "knob", "feature")


@dataclass(frozen=True)
class Entry:
    """One expected failure: what it matches (all the selectors it names) and why."""

    reason: str
    case: str | None = None
    rule: str | None = None
    knob: str | None = None
    feature: str | None = None
    legacy: bool = False       # from the first format: an exact case id

    @property
    def label(self) -> str:
        if self.legacy:
            return self.case
        return " ".join(f"{name} {getattr(self, name)}" for name in SELECTORS if getattr(self, name) is not None)

    def matches(self, outcome, knob_labels) -> bool:
        case = outcome.case
        if self.case is not None and not (case.id == self.case or (not self.legacy and fnmatch.fnmatchcase(case.id, self.case))):
            return False
        if self.feature is not None and not any(_feature_hits(f, self.feature) for f in case.features):
            return False
        if self.knob is not None and self.knob not in knob_labels(outcome):
            return False
        if self.rule is not None:
            if outcome.status not in FAILING or self.rule not in rule_ids(outcome):
                return False
        return True


def _feature_hits(feature: str, pattern: str) -> bool:
    return feature == pattern or feature.startswith(pattern + ".") or fnmatch.fnmatchcase(feature, pattern)


def load_expected_failures(path: str) -> list[Entry]:
    """Read either format; CaseError (located: file and JSON path) when it is malformed."""
    data = read_json(Path(path), path)
    if isinstance(data, dict) and "entries" in data:
        return _entries(data, path)
    if not isinstance(data, dict):
        raise CaseError('an expected-failures file is a JSON object: {"case-id": "reason", ...} or '
                        f'{{"format": "{FORMAT}", "entries": [...]}}', Location(path))
    for case_id, reason in data.items():
        if not isinstance(reason, str) or not reason.strip():
            raise CaseError(f"$.{case_id}: the reason must be a non-empty string, not {reason!r}", Location(path), case_id)
    return [Entry(reason=reason, case=case_id, legacy=True) for case_id, reason in data.items()]


def _entries(data: dict, path: str) -> list[Entry]:
    if data.get("format", FORMAT) != FORMAT:
        raise CaseError(f"$.format: {data['format']!r} is not {FORMAT!r}", Location(path))
    extra = set(data) - {"format", "entries", "description"}
    if extra:
        raise CaseError(f"$: unknown field(s) {', '.join(sorted(extra))} (allowed: format, entries, description)", Location(path))
    if not isinstance(data["entries"], list):
        raise CaseError("$.entries: a list of entries", Location(path))
    out = []
    for index, item in enumerate(data["entries"]):
        where = f"$.entries[{index}]"
        if not isinstance(item, dict):
            raise CaseError(f"{where}: an entry is an object with a reason and case, rule, knob or feature", Location(path))
        unknown = set(item) - set(SELECTORS) - {"reason"}
        if unknown:
            raise CaseError(f"{where}: unknown field(s) {', '.join(sorted(unknown))} "
                            f"(allowed: {', '.join(SELECTORS)}, reason)", Location(path))
        reason = item.get("reason")
        if not isinstance(reason, str) or not reason.strip():
            raise CaseError(f"{where}.reason: a non-empty string is required, not {reason!r}", Location(path))
        if not any(k in item for k in SELECTORS):
            raise CaseError(f"{where}: name at least one of {', '.join(SELECTORS)}", Location(path))
        for key in SELECTORS:
            if key in item and (not isinstance(item[key], str) or not item[key].strip()):
                raise CaseError(f"{where}.{key}: a non-empty string, not {item[key]!r}", Location(path))
        if "knob" in item:
            _check_knob(item["knob"], f"{where}.knob", path)
        out.append(Entry(reason=reason, **{k: item[k] for k in SELECTORS if k in item}))
    return out


def _check_knob(text: str, where: str, path: str) -> None:
    """NAME=VALUE with a knob of rules/params.yaml and one of its values (as the reports write
    them: `true`, `152`, `smsf`)."""
    from ..rules.loader import load_params
    name, sep, value = text.partition("=")
    knobs = load_params()
    if not sep or not value:
        raise CaseError(f"{where}: {text!r} is not NAME=VALUE (e.g. sun_double_allowed=smsf)", Location(path))
    if name not in knobs:
        raise CaseError(f"{where}: {name!r} is not a knob (see rules/VARIANTS.md)", Location(path))
    knob = knobs[name]
    labels = [v if isinstance(v, str) else json.dumps(v) for v in knob.values]
    if knob.type == "int":
        if not value.isdigit():
            raise CaseError(f"{where}: {name} takes a whole number, not {value!r}", Location(path))
    elif value not in labels:
        raise CaseError(f"{where}: {value!r} is not a value of {name} ({', '.join(labels)})", Location(path))


def apply_expected_failures(outcomes: list, expected, corpus_ids, file: str = "") -> list[dict]:
    """Mark the failing outcomes the entries account for; return the stale entries (dicts with
    id (the entry's label), reason and problem)."""
    if isinstance(expected, dict):   # (a caller's {"id": "reason"}, read as the first format)
        entries = [Entry(reason=r, case=i, legacy=True) for i, r in expected.items()]
    else:
        entries = list(expected)
    labels_of = _knob_labels_reader() if any(e.knob for e in entries) else (lambda outcome: ())
    stale = []
    known = set(corpus_ids)
    where = f" in {file}" if file else ""
    for entry in entries:
        if entry.legacy:
            if entry.case not in known:
                stale.append(_stale(entry, "names no case of the corpus"))
            for outcome in outcomes:
                if outcome.case.id != entry.case:
                    continue
                if outcome.status in FAILING:
                    outcome.details.setdefault("expected_failure", entry.reason)
                elif outcome.status == PASS:
                    outcome.status = ERROR
                    outcome.message = (f"listed{where} as an expected failure ({entry.reason}) but it passes: "
                                       f"remove the entry")
                    outcome.details["unexpected_pass"] = entry.reason
            continue
        matched = [o for o in outcomes if entry.matches(o, labels_of)]
        failing = [o for o in matched if o.status in FAILING]
        for outcome in failing:
            outcome.details.setdefault("expected_failure", entry.reason)
        if failing:
            continue
        if entry.rule is not None and not matched:
            stale.append(_stale(entry, f"no failing case is decided by rule {entry.rule}"))
        elif not matched and not (entry.case and any(fnmatch.fnmatchcase(i, entry.case) for i in known)):
            stale.append(_stale(entry, "matches no case" + (" of the corpus" if entry.label == f"case {entry.case}"
                                                            else " of this run's selection")))
        elif any(o.status == PASS for o in matched):
            ran = sum(o.status == PASS for o in matched)
            stale.append(_stale(entry, f"no longer fails: the {ran} case(s) it matches pass; remove the entry"))
    return stale


def _stale(entry: Entry, problem: str) -> dict:
    return {"id": entry.label, "reason": entry.reason, "problem": problem}


def _knob_labels_reader():
    cache: dict = {}

    def labels(outcome):
        explain = outcome.details.get("explain")
        if explain and "knob_labels" in explain:
            return explain["knob_labels"]
        case = outcome.case
        if case.id not in cache:
            cache[case.id] = knob_labels(case_knobs(case))
        return cache[case.id]
    return labels
