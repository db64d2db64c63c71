"""Where the shipped data files are: unit profiles, dashboard notebooks, rule files
and the nginx template of ``dice-workbench deploy``.

Designers edit them as top-level folders of the checkout (``profiles/``, ``notebooks/``,
``rules/``; ``deploy/`` for whoever runs the servers). A built wheel carries the same folders
inside the package, as ``workbench/_data/<name>/`` (the ``[tool.setuptools.package-dir]``
mapping in ``pyproject.toml``), so an installed copy works from any folder; :func:`data_dir`
finds either. The Voila template already lives inside the package (``workbench/voila``).
"""
from __future__ import annotations

from importlib import resources
from pathlib import Path

from .errors import InputError

__all__ = ["DATA_NAMES", "data_dir", "package_dir"]

#: the data folders that ship with the package
DATA_NAMES = ("profiles", "notebooks", "rules", "deploy")


def package_dir() -> Path:
    """The folder of the installed ``workbench`` package."""
    return Path(str(resources.files("workbench")))


def data_dir(name: str) -> Path:
    """The folder of one kind of shipped file: ``"profiles"``, ``"notebooks"``, ``"rules"`` or ``"deploy"``.

    In an installed wheel: ``<site-packages>/workbench/_data/<name>``; in a checkout or an
    editable install (no ``workbench/_data``): ``<checkout>/<name>``. The folder may be absent
    (a checkout without rule files); callers glob it and find nothing.
    """
    if name not in DATA_NAMES:
        raise InputError("name", "one of " + ", ".join(repr(n) for n in DATA_NAMES), name)
    packaged = package_dir() / "_data" / name
    if packaged.is_dir():
        return packaged
    return package_dir().parent / name
