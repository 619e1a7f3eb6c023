"""`conformance run --cases PATH`: cases read from other files or folders than the corpus (an
engine's own cases, a derived corpus, one file being written), validated exactly as the corpus
is (the case schema, the feature registry, ids unique across everything read)."""

from __future__ import annotations

from pathlib import Path

from ..errors import CaseError, Location
from .corpus import Case, load_case_file


def load_case_paths(paths: list[str]) -> list[Case]:
    """Every case of the given files and folders (a folder: its *.json files, recursively, in
    path order); CaseError, located, for a missing path, an empty folder or a bad case file."""
    cases: list[Case] = []
    seen: dict[str, str] = {}
    for given in paths:
        path = Path(given)
        if path.is_dir():
            files = sorted(path.rglob("*.json"))
            if not files:
                raise CaseError("--cases: the folder holds no .json case file", Location(given))
        elif path.is_file():
            files = [path]
        else:
            raise CaseError("--cases: no such file or folder", Location(given))
        for file in files:
            display = str(file) if file != path else given
            for case in load_case_file(file, display):
                if case.id in seen:
                    raise CaseError(f"case id {case.id!r} is used twice (also at {seen[case.id]})", Location(display), case.id)
                seen[case.id] = case.path
                cases.append(case)
    return cases
