"""`conformance run --cases PATH` (repeatable; a file or a folder): other cases than the corpus,
validated exactly like it, a bad file being a located error with exit 2."""

import json

import pytest

from baloot_spec.cli import main
from baloot_spec.resources import conformance_dir

ENDS = conformance_dir() / "cases" / "match" / "end.json"


def _file(tmp_path, name, cases, folder=None):
    where = tmp_path / folder if folder else tmp_path
    where.mkdir(parents=True, exist_ok=True)
    path = where / name
    path.write_text(json.dumps({"description": "test cases", "cases": cases}, indent=1))
    return path


def _some_match_cases(n):
    return json.loads(ENDS.read_text())["cases"][:n]


def test_cases_from_a_file_and_a_folder_are_run_instead_of_the_corpus(tmp_path, capsys):
    two = _some_match_cases(3)
    first = _file(tmp_path, "one.json", two[:1])
    _file(tmp_path, "a.json", two[1:2], "more/deep")
    _file(tmp_path, "b.json", two[2:3], "more")
    report = tmp_path / "r.json"
    assert main(["conformance", "run", "--cases", str(first), "--cases", str(tmp_path / "more"), "--json", str(report)]) == 0
    data = json.loads(report.read_text())
    assert [c["id"] for c in data["cases"]] == [two[0]["id"], two[2]["id"], two[1]["id"]]   # folder: path order
    assert data["corpus"]["cases"] == 3
    assert "3 passed" in capsys.readouterr().out


def test_a_wrong_expectation_in_a_given_file_fails_with_its_path(tmp_path, capsys):
    case = _some_match_cases(1)[0]
    case["expect"] = dict(case["expect"], ended_after=99)
    path = _file(tmp_path, "wrong.json", [case])
    assert main(["conformance", "run", "--cases", str(path)]) == 1
    assert f"FAIL {case['id']} ({path}#/cases/0)" in capsys.readouterr().out


@pytest.mark.parametrize("make, text", [
    (lambda tmp: tmp / "missing.json", "no such file or folder"),
    (lambda tmp: (tmp / "empty").mkdir() or tmp / "empty", "holds no .json case file"),
    (lambda tmp: (tmp / "bad.json").write_text("{\n  \"cases\": [1,\n") and tmp / "bad.json", "not valid JSON"),
    (lambda tmp: _file(tmp, "schema.json", [{"id": "x"}]), "$.cases[0]"),
    (lambda tmp: _file(tmp, "feature.json", [dict(_some_match_cases(1)[0], features=["no.such-feature"])]),
     "unknown feature 'no.such-feature'"),
    (lambda tmp: _file(tmp, "twice.json", _some_match_cases(1) * 2), "is used twice"),
])
def test_a_bad_path_or_case_file_is_a_located_error_and_exit_2(tmp_path, capsys, make, text):
    path = make(tmp_path)
    assert main(["conformance", "run", "--cases", str(path)]) == 2
    err = capsys.readouterr().err
    assert text in err and str(path) in err and "Traceback" not in err
