"""`python -m baloot_spec.cli` is the `baloot` command too."""
import sys

from .main import console

sys.exit(console())
