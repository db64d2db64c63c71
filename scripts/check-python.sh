#!/usr/bin/env bash
# The Python the workbench runs on: 3.11 or newer (pyproject.toml's requires-python).
#   check-python.sh PYTHON new    before `make` creates .venv with PYTHON
#   check-python.sh PYTHON venv   before `make` uses .venv/bin/python
# A wrong one stops make with one line saying what to do, instead of the
# resolver's text on every later make.
set -u
python=$1 role=${2:-venv}
want_major=3 want_minor=11
version=$("$python" -c 'import sys; print("%d.%d" % sys.version_info[:2])' 2>/dev/null) || version=""
major=${version%%.*} minor=${version#*.}
if [[ "$version" =~ ^[0-9]+\.[0-9]+$ ]] && (( major > want_major || (major == want_major && minor >= want_minor) )); then
    exit 0
fi
found=${version:+Python $version}
found=${found:-not a Python that runs}
if [[ "$role" == new ]]; then
    echo "error: $python is $found; the workbench needs Python $want_major.$want_minor or newer: run make again with PYTHON=/path/to/python3.11" >&2
else
    echo "error: .venv was made with $found ($python); the workbench needs Python $want_major.$want_minor or newer: run 'make clean', then make again (PYTHON=/path/to/python3.11 to pick one)" >&2
fi
exit 1
