"""Read the conformance corpus: case files, their schema, the feature registry.

Every problem with a case file (not JSON, schema violation, unknown feature, an id used twice)
is a CaseError with the file, the line where JSON gives one, and the JSON path of the case.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import jsonschema

from ..errors import CaseError, Location
from ..resources import conformance_dir


@dataclass(frozen=True)
class Case:
    """One conformance case, with where it was read from."""

    data: dict
    file: str
    index: int

    @property
    def id(self) -> str:
        return self.data["id"]

    @property
    def kind(self) -> str:
        return self.data["kind"]

    @property
    def area(self) -> str:
        return self.id.split(".", 1)[0]

    @property
    def features(self) -> list:
        return list(self.data["features"])

    @property
    def path(self) -> str:
        return f"{self.file}#/cases/{self.index}"


@lru_cache(maxsize=None)
def case_schema() -> dict:
    return json.loads((conformance_dir() / "schema" / "case.schema.json").read_text(encoding="utf-8"))


@lru_cache(maxsize=None)
def feature_registry() -> dict:
    return json.loads((conformance_dir() / "features.json").read_text(encoding="utf-8"))["features"]


def read_json(path: Path, display: str):
    """Parse a JSON file; CaseError with line and column on bad input."""
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise CaseError(f"cannot read: {exc}", Location(display)) from None
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        lines = text.splitlines()
        snippet = lines[exc.lineno - 1] if 0 < exc.lineno <= len(lines) else None
        raise CaseError(f"not valid JSON: {exc.msg}", Location(display, exc.lineno, exc.colno),
                        snippet=snippet, caret_col=exc.colno - 1) from None


def load_case_file(path: Path, display: str | None = None) -> list[Case]:
    display = display or str(path)
    document = read_json(path, display)
    validator = jsonschema.Draft202012Validator(case_schema())
    errors = list(validator.iter_errors(document))
    if errors:
        error = jsonschema.exceptions.best_match(errors)
        where = "$" + "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in error.absolute_path)
        case_id = None
        path_items = list(error.absolute_path)
        if len(path_items) >= 2 and path_items[0] == "cases" and isinstance(document, dict):
            try:
                case_id = document["cases"][path_items[1]].get("id")
            except (AttributeError, IndexError, TypeError, KeyError):
                case_id = None
        raise CaseError(f"{where}: {error.message}", Location(display), case_id)
    registry = feature_registry()
    cases = []
    for index, data in enumerate(document["cases"]):
        for feature in data["features"]:
            if feature not in registry:
                raise CaseError(f"$.cases[{index}].features: unknown feature {feature!r} (see conformance/features.json)",
                                Location(display), data["id"])
        cases.append(Case(data, display, index))
    return cases


def load_corpus(root: Path | None = None) -> list[Case]:
    """Every case under conformance/cases, in file order; ids must be unique."""
    root = root or conformance_dir()
    cases: list[Case] = []
    seen: dict[str, str] = {}
    for path in sorted((root / "cases").rglob("*.json")):
        display = str(path.relative_to(root.parent)) if root.parent in path.parents else str(path)
        for case in load_case_file(path, display):
            if case.id in seen:
                raise CaseError(f"case id {case.id!r} is used twice (also at {seen[case.id]})", Location(display), case.id)
            seen[case.id] = case.path
            cases.append(case)
    return cases


def corpus_digest(cases: list[Case]) -> str:
    import hashlib
    digest = hashlib.sha256()
    for case in cases:
        digest.update(json.dumps(case.data, sort_keys=True).encode())
    return digest.hexdigest()[:16]
