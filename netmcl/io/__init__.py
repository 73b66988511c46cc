"""Reading and writing files: mcl's label and native formats, STRING files, tables."""

from ._files import atomic_write
from .abc import read_abc

__all__ = ["read_abc", "atomic_write"]
