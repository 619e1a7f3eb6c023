"""`python -m baloot_spec` is the `baloot` command."""
import sys

from .cli import console

sys.exit(console())
