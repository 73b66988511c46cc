"""Arrays filled by appending, without copies when they grow or are trimmed.

The CPU engine builds each next iterand in them, and the label-file reader
its edge list: neither knows the final size in advance.
"""

import mmap
import os

import numpy as np

__all__ = ["Appender", "physical_memory", "resident_memory"]

#: anonymous mappings that may be remapped and backed by 2 MiB pages (Linux);
#: elsewhere numpy arrays
_MAPPED = hasattr(mmap, "MADV_HUGEPAGE") and hasattr(mmap.mmap, "resize")
#: a mapping's first bytes, kept in 4 KiB pages (numpy's threshold): a small array wastes no 2 MiB page, nor gains one
_SMALL_PAGES = 4 << 20


def physical_memory():
    """Bytes of physical memory (a bound on what a mapping should reserve); 16 GiB if unknown."""
    try:
        return os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    except (AttributeError, OSError, ValueError):
        return 16 << 30


def resident_memory(statm="/proc/self/statm"):
    """Bytes of this process's memory now resident (Linux's `statm`); None where it is not known.

    Examples
    --------
    >>> resident_memory("/nonexistent") is None
    True
    """
    try:
        with open(statm) as handle:
            return int(handle.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
    except (OSError, IndexError, ValueError, AttributeError):
        return None


def _mapping(size):
    """An anonymous mapping of `size` bytes, past its first _SMALL_PAGES advised
    for 2 MiB pages; None where one cannot be made."""
    try:
        mapping = mmap.mmap(-1, size, flags=mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS)
    except OSError:
        return None
    if size > _SMALL_PAGES:
        _advise_huge_pages(mapping, _SMALL_PAGES)
    return mapping


def _advise_huge_pages(mapping, start):
    """Ask for 2 MiB pages from byte `start` of `mapping` on; kernels without them refuse, which is harmless."""
    try:
        mapping.madvise(mmap.MADV_HUGEPAGE, start)
    except OSError:
        pass


class Appender:
    """An array filled by appending: the next iterand's rows or values, a file's edges.

    On Linux it lives in its own anonymous mapping reserved up front: a page
    becomes resident only when written, growing and trimming remap pages
    instead of copying them, and the kernel may back all but its first 4 MiB
    with 2 MiB pages.  The expansion reads the iterand a column at a time in
    scattered order, and with 4 KiB pages a good part of that time goes to
    address translation.  Elsewhere, or where the mapping is refused, it is a
    numpy array grown with ``ndarray.resize``, which zero-fills the new room:
    all of it is resident.
    """

    def __init__(self, dtype, likely, reserve):
        """Room for `reserve` items in a mapping, else for `likely` items in a numpy array."""
        self.dtype = np.dtype(dtype)
        self.size = 0
        self._map = self._array = None
        if _MAPPED:
            self.capacity = max(int(reserve), 1)
            self._map = _mapping(self.capacity * self.dtype.itemsize)
        if self._map is None:
            self.capacity = max(int(likely), 1)
            self._array = np.empty(self.capacity, dtype=self.dtype)

    @property
    def resident_bytes(self):
        """Bytes of memory held: what was written (a mapping) or all of it (numpy)."""
        return self.dtype.itemsize * (self.size if self._array is None else self.capacity)

    def append(self, values, most=None):
        """Append `values`; growing, make room for at most `most` items in all (what may
        still come; None: no bound known)."""
        end = self.size + values.size
        if end > self.capacity:
            grown = self.capacity + self.capacity // 2
            self._resize(max(end, grown if most is None else min(grown, most)))
        if self._array is None:
            # a transient view: a mapping cannot be remapped while one exists
            np.frombuffer(self._map, self.dtype, values.size, self.size * self.dtype.itemsize)[:] = values
        else:
            self._array[self.size : end] = values
        self.size = end

    def room(self, count):
        """Append `count` items left to fill: the array returned (drop it before appending again)."""
        end = self.size + count
        if end > self.capacity:
            self._resize(end)
        start, self.size = self.size, end
        if self._array is None:
            return np.frombuffer(self._map, self.dtype, count, start * self.dtype.itemsize)
        return self._array[start:end]

    def _resize(self, capacity):
        if self._array is None:
            size = max(capacity, 1) * self.dtype.itemsize
            try:
                self._map.resize(size)
            except OSError:
                # grown past its first _SMALL_PAGES, advised apart: Linux remaps one region only
                moved = _mapping(size)
                if moved is None:
                    raise
                kept = min(size, self.size * self.dtype.itemsize)  # the items held: the rest was never written
                with memoryview(moved) as to, memoryview(self._map) as source:
                    to[:kept] = source[:kept]
                self._map.close()
                self._map = moved
        else:
            self._array.resize(capacity, refcheck=False)
        self.capacity = capacity

    def array(self, size=None):
        """The items appended, or the first `size` of them, as a numpy array (trimmed to them; no copy)."""
        self.size = self.size if size is None else min(size, self.size)
        self._resize(self.size)
        if self._array is None:
            return np.frombuffer(self._map, self.dtype, self.size)
        return self._array
