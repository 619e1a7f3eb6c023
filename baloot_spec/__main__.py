"""`python -m baloot_spec` is the `baloot` command."""
import sys

from .cli import main

sys.exit(main())
