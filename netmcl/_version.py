"""netmcl's version (one place: the package, its files and its reports read it here)."""

__version__ = "0.1.0"
