"""A 40k Changes turn, simulated: forces, the turn sequence and decision policies.

* :mod:`workbench.turn.forces`: units, weapons and the seed's actions;
* :mod:`workbench.turn.state`: unit states and markers, the seed's readings (:class:`Rules`);
* :mod:`workbench.turn.table`: the dice of shots, strikes, casualties and fights;
* :mod:`workbench.turn.simulator`: the turn sequence played die by die (:class:`Battle`);
* :mod:`workbench.turn.policies`: the named policies (focus, spread, greedy);
* :mod:`workbench.turn.study`: many turns sampled, the seed's design questions
  answered as tidy DataFrames (optionally on a Dask cluster).

See ``docs/rules/changes_turn.md``.
"""
from .forces import ACTIONS, UnitSpec, Weapon, force, from_profile, shot_of, target_count
from .policies import POLICIES, FocusFire, Greedy, Policy, SpreadFire, get_policy
from .simulator import Battle, play_igougo, play_turn
from .state import Rules, Tally

__all__ = ["ACTIONS", "UnitSpec", "Weapon", "force", "from_profile", "shot_of", "target_count",
           "POLICIES", "FocusFire", "Greedy", "Policy", "SpreadFire", "get_policy",
           "Battle", "Rules", "Tally", "play_igougo", "play_turn"]
from .study import COLUMNS, design_questions, study, summary, value_of_engage

__all__ += ["COLUMNS", "design_questions", "study", "summary", "value_of_engage"]
