"""``python -m netmcl``: the ``netmcl`` command line."""

from .cli import main

raise SystemExit(main())
