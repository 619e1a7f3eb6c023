"""Independent reference oracle of baloot-spec (see README.md)."""
from .oracle import Reject, Hand, score, find_projects, projects_case, match  # noqa: F401
from .presets import PRESETS  # noqa: F401
