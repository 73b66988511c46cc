"""The name :mod:`netmcl.viz.plot` is documented under: the same module object."""

import sys

from .viz import plot as _module

sys.modules[__name__] = _module
