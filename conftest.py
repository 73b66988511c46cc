"""Doctests of modules whose examples need an optional dependency run only where it is installed."""

import importlib.util

#: module file -> the package its examples need
_NEEDS = {"netmcl/engines/dask.py": "distributed"}

collect_ignore = [path for path, package in _NEEDS.items() if importlib.util.find_spec(package) is None]
