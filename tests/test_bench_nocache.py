"""tools/bench_nocache.py: the cold load with no disk cache and the first hand of each contract
(its phases specialised). The timings are not asserted; what is: the process has no disk cache
(every phase is made, none read back), each specialisation's time is counted under its phase and
its contract, and the figures bench.py reports are there."""

import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "tools"))
import bench_nocache  # noqa: E402


class _Rules:
    def __init__(self):
        self.made = []
        self.specializer = lambda phase, values: self.made.append((phase, values)) or phase


def test_each_specialisation_is_timed_by_phase_and_contract(monkeypatch):
    ticks = iter(range(0, 1000, 1))   # one second a reading: each call takes 1 s
    monkeypatch.setattr(bench_nocache.time, "perf_counter", lambda: next(ticks))
    rules, spent = _Rules(), {}
    bench_nocache.timed_specializer(rules, spent)
    for phase, values in [("play", ("a", None)), ("score", ("a", None)), ("play", ("b", "x"))]:
        assert rules.specializer(phase, values) == phase
    assert rules.made == [("play", ("a", None)), ("score", ("a", None)), ("play", ("b", "x"))]
    figures = bench_nocache.summary(0.25, spent)
    assert figures == {"rules_load_nocache_s": 0.25, "contracts_specialised": 2,
                       "specialise_nocache_ms": 1500.0,   # 3 s over 2 contracts
                       "specialise_nocache_ms_by_phase": {"play": 1000.0, "score": 1000.0}}


def test_the_figures_come_from_a_process_with_no_disk_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("BALOOT_CACHE_DIR", str(tmp_path))   # (it would be filled if the cache were on)
    figures = bench_nocache.nocache_figures(hands=8, seed=1)
    assert figures["rules_load_nocache_s"] > 0
    assert figures["contracts_specialised"] >= 1 and figures["specialise_nocache_ms"] > 0
    assert set(figures["specialise_nocache_ms_by_phase"]) >= {"score"}
    assert 0 < figures["rules_load_nocache_cpu_s"] and 0 < figures["specialise_nocache_cpu_ms"]
    assert not any(tmp_path.iterdir())
