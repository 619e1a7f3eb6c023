"""The built-in engine of baloot-spec, spoken to over baloot-protocol/1 (conformance/PROTOCOL.md).

    baloot conformance run --engine "python conformance/engines/builtin_adapter.py"

Running the corpus through this adapter gives exactly the verdicts of the in-process run; it
is the reference for what an adapter answers. The work is done by baloot_spec.conformance.serve.
"""

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
if (ROOT / "baloot_spec" / "__init__.py").is_file():
    sys.path.insert(0, str(ROOT))  # in a checkout, use the checkout's package, not an installed copy

from baloot_spec.conformance.serve import serve  # noqa: E402

if __name__ == "__main__":
    sys.exit(serve())
