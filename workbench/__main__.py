"""``python -m workbench``: see :mod:`workbench.cli`."""
import sys

from .cli import main

sys.exit(main())
