"""A fake engine for tests: the built-in engine with a planted fault (an overlay file, argv[1],
applied to every variant it is asked to play), spoken to over baloot-protocol/1.

    python tests/data/faulty_engine.py OVERLAY.yaml
"""

import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from baloot_spec.conformance.serve import BuiltinEngine  # noqa: E402


def main() -> int:
    overlay = sys.argv[1]
    engine = BuiltinEngine()
    for line in sys.stdin:
        if not line.strip():
            continue
        request = json.loads(line)
        if isinstance(request.get("variant"), dict):
            request["variant"] = dict(request["variant"], overlays=list(request["variant"].get("overlays") or []) + [overlay])
        response = engine.handle(request)
        if request.get("cmd") == "hello":
            response["engine"] = {"name": "faulty fake", "version": Path(overlay).stem}
        sys.stdout.write(json.dumps(response) + "\n")
        sys.stdout.flush()
        if engine.stopped:
            break
    return 0


if __name__ == "__main__":
    sys.exit(main())
