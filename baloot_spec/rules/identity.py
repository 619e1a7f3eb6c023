"""The identity of a resolved variant: a hash of what the variant *is*, not what it is called.

The hash covers three things, as canonical JSON (sorted keys, no spaces, UTF-8; no file paths,
no line endings, no YAML comments or formatting, so equal rules give an equal hash on any
machine):

- `rules_version`: the version of rules/ itself, declared in rules/version.json. A digest of the
  rules files cannot serve here: adding a knob at its default edits params.yaml and the rules
  that read it, and must change no existing hash. So the version is a number, bumped by a
  test-enforced procedure: version.json also records `content_digest`, the digest of the
  canonical content of the base rules, params.yaml and the grammar; a test fails as soon as the
  content differs from the recorded digest, and `tools/rehash.py --bump` (the change alters how
  some existing variant plays) or `--accept` (it does not: a knob added at its default, a source
  or wording fix) records it again.
- `knobs`: only the values that differ from their defaults.
- `overlays`: the canonical content of every overlay applied, in order, without its name (two
  overlays called `house` that say different things have different hashes; two that say the
  same thing under different names have the same one).
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

from ..errors import Location, RulesError
from ..resources import rules_dir

VERSION_FILE = "version.json"


def plain(value):
    """A loaded YAML/JSON value as plain JSON data: mappings with text keys, lists, scalars."""
    if isinstance(value, dict):
        return {(key if isinstance(key, str) else json.dumps(key)): plain(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [plain(item) for item in value]
    if value is None or isinstance(value, (bool, int, float)):
        return value
    return str(value)


def canonical(value) -> str:
    """Canonical JSON text: sorted keys, no spaces, non-ASCII kept as UTF-8."""
    return json.dumps(plain(value), sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def digest(value) -> str:
    return hashlib.sha256(canonical(value).encode("utf-8")).hexdigest()


def overlay_content(document) -> dict:
    """What an overlay says: the document without its name."""
    return {key: value for key, value in plain(document).items() if key != "overlay"}


def variant_identity(knobs: dict, overlays: list, version: int) -> dict:
    """The canonical object the variant hash is taken of (`knobs`: the non-default values only;
    `overlays`: each overlay's content, from overlay_content)."""
    return {"rules_version": version, "knobs": dict(sorted(knobs.items())), "overlays": list(overlays)}


def identity_hash(knobs: dict, overlays: list, version: int) -> str:
    """The first 16 hex digits of the sha256 of the canonical identity."""
    return digest(variant_identity(knobs, overlays, version))[:16]


def read_version(directory: Path | None = None) -> dict:
    """rules/version.json: {"rules_version": int, "content_digest": hex}; RulesError if unusable."""
    path = (directory or rules_dir()) / VERSION_FILE
    display = f"rules/{VERSION_FILE}"
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise RulesError(f"cannot read the rules version: {exc.strerror or exc}", Location(display)) from None
    except ValueError as exc:
        raise RulesError(f"the rules version file is not JSON: {exc}", Location(display)) from None
    version = data.get("rules_version") if isinstance(data, dict) else None
    if isinstance(version, bool) or not isinstance(version, int) or version < 1:
        raise RulesError('the rules version file must hold {"rules_version": N} with N a positive integer', Location(display))
    return data


def content_files(directory: Path | None = None) -> list[Path]:
    """The files whose content the rules version stands for: the base rules, params.yaml and the
    grammar (presets resolve to knob values and overlays are hashed by content: both are in the
    variant hash already)."""
    directory = directory or rules_dir()
    return sorted(directory.glob("*.yaml")) + sorted((directory / "grammar").glob("*.lark"))


def content_digest(directory: Path | None = None) -> str:
    """The digest of the canonical content of content_files(): YAML parsed (comments, layout and
    line endings do not count), the grammar without its comment lines, blank lines and
    indentation."""
    from .yamlpos import load_yaml_text, read_text_file
    directory = directory or rules_dir()
    content = {}
    for path in content_files(directory):
        display = f"rules/{path.relative_to(directory).as_posix()}"
        text = read_text_file(path, display)
        if path.suffix == ".yaml":
            content[display] = load_yaml_text(text, display)
        else:
            lines = (line.strip() for line in text.replace("\r\n", "\n").split("\n"))
            content[display] = "\n".join(line for line in lines if line and not line.startswith("//"))
    return digest(content)
