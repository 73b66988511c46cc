"""The name :mod:`netmcl.viz.cytoscape` is documented under: the same module object."""

import sys

from .viz import cytoscape as _module

sys.modules[__name__] = _module
