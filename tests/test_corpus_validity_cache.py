"""A corpus load skips the schema check only for the very files found valid before
(corpus.py: the check is most of a load, and `conformance fingerprint` loads the corpus once per
engine): an edited file is checked again, and an invalid one is still a located CaseError."""

import json

import jsonschema
import pytest

from baloot_spec.conformance.corpus import conformance_dir, load_corpus
from baloot_spec.errors import CaseError


@pytest.fixture
def small_corpus(tmp_path, monkeypatch):
    monkeypatch.setenv("BALOOT_CACHE_DIR", str(tmp_path / "cache"))
    source = conformance_dir() / "cases" / "scoring"
    folder = tmp_path / "cases"
    folder.mkdir()
    first = sorted(source.glob("*.json"))[0]
    (folder / first.name).write_bytes(first.read_bytes())
    return folder / first.name


def _validations(monkeypatch) -> list:
    calls = []
    original = jsonschema.Draft202012Validator.iter_errors

    def counting(self, instance, *args, **kwargs):
        if isinstance(instance, dict) and "cases" in instance:     # (a whole file, not a part of one)
            calls.append(1)
        return original(self, instance, *args, **kwargs)
    monkeypatch.setattr(jsonschema.Draft202012Validator, "iter_errors", counting)
    return calls


def test_unchanged_files_are_checked_once(small_corpus, monkeypatch):
    calls = _validations(monkeypatch)
    first = load_corpus(cases_dir=small_corpus.parent)
    assert len(calls) == 1
    again = load_corpus(cases_dir=small_corpus.parent)
    assert len(calls) == 1 and [c.data for c in again] == [c.data for c in first]


def test_an_edited_file_is_checked_again(small_corpus, monkeypatch):
    load_corpus(cases_dir=small_corpus.parent)
    document = json.loads(small_corpus.read_text(encoding="utf-8"))
    document["cases"][0]["kind"] = "no-such-kind"
    small_corpus.write_text(json.dumps(document), encoding="utf-8")
    with pytest.raises(CaseError) as caught:
        load_corpus(cases_dir=small_corpus.parent)
    assert "kind" in str(caught.value) and small_corpus.name in str(caught.value.location)
