"""Shared fixtures: the default compiled rules, and a writable copy of rules/ for broken-rules tests."""

import shutil

import pytest

from baloot_spec.resources import rules_dir
from baloot_spec.rules import load_variant


@pytest.fixture(scope="session")
def default_rules():
    return load_variant("default")


@pytest.fixture
def rules_copy(tmp_path, monkeypatch):
    """A copy of rules/ that a test may break; BALOOT_RULES_DIR points the loader at it."""
    target = tmp_path / "rules"
    shutil.copytree(rules_dir(), target)
    monkeypatch.setenv("BALOOT_RULES_DIR", str(target))
    return target
