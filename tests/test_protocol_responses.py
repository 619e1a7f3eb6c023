"""`skipped` and `errored` are valid answers to every command (PROTOCOL.md, "Responses"): the
response schemas used to make `{"seq": n, "skipped": "..."}` ambiguous for `query` (it matched
both the answer and the skipped form of a `oneOf`), so a skipped query was reported as an
invalid response. Exactly one of the three forms must match, for every command."""

import sys
import textwrap

import pytest
from corpus_cache import corpus

from baloot_spec.conformance import protocol
from baloot_spec.conformance.harness import run_engine
from baloot_spec.conformance.protocol import problem
from baloot_spec.conformance.status import SKIPPED


@pytest.mark.parametrize("command", protocol.COMMANDS)
def test_skipped_and_errored_validate_for_every_command(command):
    assert problem(f"{command}.response", {"seq": 4, "skipped": "not implemented"}) is None
    assert problem(f"{command}.response", {"seq": 4, "errored": "boom"}) is None
    assert problem(f"{command}.response", {"seq": 4, "errored": {"exception": "IndexError"}}) is None
    assert problem(f"{command}.response", {"seq": 4, "skipped": ""})               # a reason is required
    assert problem(f"{command}.response", {"seq": 4, "skipped": 3})


def test_a_skipped_query_makes_the_case_skipped_not_an_error(tmp_path):
    script = tmp_path / "skip_query.py"
    script.write_text(textwrap.dedent(f'''
        import json, sys
        sys.path.insert(0, {str(protocol.conformance_dir().parent)!r})
        from baloot_spec.conformance.serve import BuiltinEngine
        engine = BuiltinEngine()
        for line in sys.stdin:
            request = json.loads(line)
            if request["cmd"] == "query":
                answer = {{"seq": request["seq"], "skipped": "queries are not implemented"}}
            else:
                answer = engine.handle(request)
            print(json.dumps(answer), flush=True)
            if request["cmd"] == "stop":
                break
    '''))
    cases = [c for c in corpus() if c.kind == "legal"][:3]
    run = run_engine(cases, [sys.executable, str(script)], timeout=30)
    assert [o.status for o in run.outcomes] == [SKIPPED] * 3, [o.message for o in run.outcomes]
    assert all("queries are not implemented" in o.message for o in run.outcomes)
