"""A 40k Changes turn, simulated: forces, the turn sequence and decision policies (the modules
are mapped in docs/architecture.md; the rules and the readings taken in docs/rules/changes_turn.md).
"""
from .forces import ACTIONS, UnitSpec, Weapon, force, from_profile, shot_of, target_count
from .policies import POLICIES, FocusFire, Greedy, Policy, SpreadFire, get_policy
from .simulator import Battle, play_igougo, play_turn
from .state import Rules, Tally
from .study import COLUMNS, design_questions, study, summary, value_of_engage

__all__ = ["ACTIONS", "UnitSpec", "Weapon", "force", "from_profile", "shot_of", "target_count",
           "POLICIES", "FocusFire", "Greedy", "Policy", "SpreadFire", "get_policy",
           "Battle", "Rules", "Tally", "play_igougo", "play_turn",
           "COLUMNS", "design_questions", "study", "summary", "value_of_engage"]
