"""Profile picker: load units from ``profiles/`` into a dashboard's controls.

Attacker, weapon and target dropdowns list the system's shipped units
(``workbench.profiles.list_units``); "Load" turns the pair into stat-level
arguments with ``workbench.profiles.matchup_kwargs`` and sets the matching
controls with one recompute. The system's description says which mode a
weapon loads (a changes melee weapon loads the melee mode).
"""
from __future__ import annotations

import html
from typing import Any

import ipywidgets as W

from ..errors import WorkbenchError

__all__ = ["ProfilePicker"]


class ProfilePicker:
    """Dropdowns ``wb-profile-attacker``, ``wb-profile-weapon``,
    ``wb-profile-target`` and the button ``wb-profile-load``."""

    def __init__(self, dashboard):
        self.dashboard = dashboard
        self.system = dashboard.system
        self.units = []
        self.message = W.HTML("")
        self.message.add_class("wb-profile-message")
        try:
            from .. import profiles
            self.units = list(profiles.list_units(self.system))
            basic = profiles.basic_matchup(self.system)
        except (ImportError, WorkbenchError, KeyError, AttributeError) as exc:
            basic = None
            self.message.value = f"<i>No profiles: {html.escape(str(exc))}</i>"
        options = [(u.name, u.key) for u in self.units] or [("(none)", None)]
        self.attacker = W.Dropdown(options=options, description="attacker", layout=W.Layout(width="230px"),
                                   style={"description_width": "70px"})
        self.target = W.Dropdown(options=options, description="target", layout=W.Layout(width="230px"),
                                 style={"description_width": "70px"})
        self.weapon = W.Dropdown(options=[("(none)", None)], description="weapon", layout=W.Layout(width="260px"),
                                 style={"description_width": "70px"})
        self.load_button = W.Button(description="Load profiles", tooltip="set the controls from these profiles")
        for w, cls in ((self.attacker, "wb-profile-attacker"), (self.weapon, "wb-profile-weapon"),
                       (self.target, "wb-profile-target"), (self.load_button, "wb-profile-load")):
            w.add_class(cls)
        self.attacker.observe(lambda change: self._fill_weapons(), names="value")
        self.load_button.on_click(lambda _b: self.load())
        if basic is not None:
            a, wpn, t = basic
            self.attacker.value = a.key
            self._fill_weapons()
            self.weapon.value = wpn.name
            self.target.value = t.key
        else:
            self._fill_weapons()
        if not self.units:
            self.load_button.disabled = True
        self.widget = W.VBox([W.HBox([self.attacker, self.weapon, self.target, self.load_button],
                                     layout=W.Layout(flex_flow="row wrap")), self.message])
        self.widget.add_class("wb-profiles")

    def _unit(self, key):
        for u in self.units:
            if u.key == key:
                return u
        return None

    def _fill_weapons(self) -> None:
        unit = self._unit(self.attacker.value)
        if unit is None:
            self.weapon.options = [("(none)", None)]
            return
        self.weapon.options = [(w.name + (f" ({w.stats['class']})" if "class" in w.stats else ""), w.name)
                               for w in unit.weapons]

    def select(self, attacker: str, weapon: str, target: str) -> None:
        """Choose the dropdowns by unit key and weapon name."""
        self.attacker.value = attacker
        self.weapon.value = weapon
        self.target.value = target

    def load(self) -> bool:
        """Set the dashboard's controls from the chosen profiles (one recompute)."""
        attacker, target = self._unit(self.attacker.value), self._unit(self.target.value)
        if attacker is None or target is None:
            return False
        weapon = attacker.weapon(self.weapon.value)
        try:
            from .. import profiles
            mode, kwargs = profiles.profile_kwargs(self.system, attacker, weapon, target)
            if mode not in self.dashboard.modes:
                raise WorkbenchError(f"{self.system} has no {mode} dashboard")
            names = {c.name for c in self.dashboard.modes[mode].controls}
            usable = {k: v for k, v in kwargs.items() if k in names}
            skipped = sorted(set(kwargs) - names)
            ok = self.dashboard.set_values(mode=mode, **usable)
        except WorkbenchError as exc:
            self.dashboard._show_error(f"Profiles: {exc}")
            return False
        text = f"Loaded {html.escape(attacker.name)} ({html.escape(weapon.name)}) vs {html.escape(target.name)}."
        if skipped:
            text += f" Not on this dashboard: {', '.join(skipped)}."
        self.message.value = f"<i>{text}</i>"
        return ok
