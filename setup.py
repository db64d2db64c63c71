"""Packages of the wheel: the ``workbench`` package and the data folders that
designers edit at the top of the checkout (``profiles/``, ``notebooks/``,
``rules/``, and ``deploy/`` with the nginx template), shipped inside the package as ``workbench/_data/<folder>`` (see
``workbench.resources``). Everything else is in pyproject.toml."""
from pathlib import Path

from setuptools import find_namespace_packages, setup

HERE = Path(__file__).resolve().parent
# a folder holding no file to ship (rules/ with only its .gitkeep) is not in the sdist: skip it
DATA = [name for name in ("profiles", "notebooks", "rules", "deploy") if (HERE / name).is_dir()]

setup(
    packages=find_namespace_packages(include=["workbench", "workbench.*"], exclude=["*__pycache__*"])
    + [f"workbench._data.{name}" for name in DATA],
    package_dir={f"workbench._data.{name}": name for name in DATA},
)
