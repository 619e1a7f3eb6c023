"""tools/dump_generated.py: every generated source of a variant, for comparing two trees' code
byte for byte (a compiler speed-up must leave it the same): the generic module first, then each
phase with fixed state for each contract given, each named as compile() was told."""

import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "tools"))


def test_the_generic_module_and_each_specialised_phase_are_written(tmp_path):
    done = subprocess.run([sys.executable, os.path.join(ROOT, "tools", "dump_generated.py"), str(tmp_path),
                           "--preset", "default"], capture_output=True, text=True, cwd=ROOT, timeout=300,
                          env=dict(os.environ, PYTHONPATH=ROOT))
    assert done.returncode == 0, done.stderr[-2000:]
    files = sorted(tmp_path.iterdir())
    names = [f.read_text().splitlines()[0] for f in files]
    assert done.stdout.startswith(f"{len(files)} sources, sha256 ")
    assert names[0].startswith("# <rules ") and names[0].count(" ") == 2   # the generic module
    specialised = [n.split(" ", 3)[3] for n in names[1:]]
    assert "('sun', None)>" in " ".join(specialised) and "('hokum', 'C')>" in " ".join(specialised)
    assert len(files) == 1 + 5 * len({n.split()[3] for n in names[1:]})   # each phase, 5 contracts
    assert all("def " in f.read_text() for f in files)
