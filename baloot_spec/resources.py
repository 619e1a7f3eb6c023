"""Where the rules and the corpus are: the checkout's folders, or the installed package data.

In a checkout, `rules/` and `conformance/` sit beside the package. In a non-editable install,
pyproject.toml maps them into the package as `baloot_spec/_rules` and `baloot_spec/_conformance`.
"""

from __future__ import annotations

import os
from functools import lru_cache
from pathlib import Path

_PACKAGE = Path(__file__).resolve().parent


@lru_cache(maxsize=None)   # (asked on every load_variant call: once per audited document)
def _find(name: str) -> Path:
    checkout = _PACKAGE.parent / name
    if checkout.is_dir():
        return checkout
    installed = _PACKAGE / f"_{name}"
    if installed.is_dir():
        return installed
    raise FileNotFoundError(f"cannot find the {name}/ folder (looked in {checkout} and {installed})")


def rules_dir() -> Path:
    """The folder holding the base rules, params, presets, overlays, grammar and schema.

    BALOOT_RULES_DIR points at another copy (tests use it to load deliberately broken rules)."""
    override = os.environ.get("BALOOT_RULES_DIR")
    if override:
        return Path(override)
    return _find("rules")


def conformance_dir() -> Path:
    """The folder holding the conformance corpus (cases, schemas, features registry)."""
    return _find("conformance")
