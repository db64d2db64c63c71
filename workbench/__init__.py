"""Dice design workbench: exact and sampled resolvers for four home-brew
wargame rule systems (see docs/rules.md for the rules as implemented)."""
from .errors import InputError, ProfileError, UnknownArgumentError, WorkbenchError
from .outcome import Outcome, Stage
from . import teach as _teach  # noqa: F401  (gives Outcome its words: explain(), posts, notebook display)

__all__ = ["InputError", "ProfileError", "UnknownArgumentError", "WorkbenchError", "Outcome", "Stage"]
__version__ = "0.1.0"
