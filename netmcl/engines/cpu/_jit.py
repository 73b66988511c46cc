"""How numba compiles the kernels that allocate nothing.

Compiled with numba's runtime (NRT), a function counts references to the
arrays it holds: each array argument is incremented on entry and decremented
on exit, each slice taken likewise.  Each count is an atomic operation, about
20 cycles on one thread and many more when threads count the same array, as
the engine's threads do with the iterand.  Helpers called once per column or
per column read pay that every call: on a graph of short columns the
counting rivals the arithmetic.

:func:`leaf` compiles without the runtime.  Such a function cannot allocate
(no ``np.empty``, no slice assignment numba might copy through a temporary,
not even numba's ``sort``, which keeps its pending ranges in a list: leaves
sort with :func:`sort_by_key`), and costs nothing to call: the functions that
call it, which may allocate, lend it their arrays.  The arithmetic is the same
either way.
"""

from numba import njit

__all__ = ["SORT_STACK", "leaf", "sort_by_key"]

#: ``@leaf`` before a kernel that allocates nothing: numba's ``njit``, cached,
#: releasing the GIL, without reference counting
leaf = njit(cache=True, nogil=True, _nrt=False)

#: the items ``sort_by_key``'s stack needs: three for each range left for
#: later, at most one range per bit of an int64 item count
SORT_STACK = 3 * 64


@leaf
def sort_by_key(keys, values, lo, hi, stack):
    """Sort ``keys[lo:hi]`` ascending in place, moving ``values[lo:hi]`` alike
    unless `values` is empty.  Not stable: equal keys may come in any order.

    Quicksort (median of three) down to 16 items, then insertion sort;
    heapsort for a range that quicksort would split too many times (an
    input built against the median of three).  `stack` (integers, at least
    SORT_STACK) holds the ranges left for later: the larger side of each split, so
    that at most log2 of the items wait at once.
    """
    depth = 0
    size = hi - lo
    while size > 0:  # splits allowed on the way to any range: twice the bits of the item count
        depth += 2
        size >>= 1
    top = 0
    while True:
        while hi - lo > 16:
            if depth == 0:
                _heapsort(keys, values, lo, hi)
                lo = hi
                break
            depth -= 1
            p = _partition(keys, values, lo, hi)
            if p - lo < hi - p:
                stack[top], stack[top + 1], stack[top + 2] = p + 1, hi, depth
                hi = p
            else:
                stack[top], stack[top + 1], stack[top + 2] = lo, p, depth
                lo = p + 1
            top += 3
        for t in range(lo + 1, hi):
            s = t
            while s > lo and keys[s - 1] > keys[s]:
                _swap(keys, values, s - 1, s)
                s -= 1
        if top == 0:
            return
        top -= 3
        lo, hi, depth = stack[top], stack[top + 1], stack[top + 2]


@leaf
def _partition(keys, values, lo, hi):
    """Partition ``keys[lo:hi]`` (more than 2 items) around the median of its
    first, middle and last keys; return the pivot's final place."""
    mid = lo + (hi - lo) // 2
    last = hi - 1
    if keys[mid] < keys[lo]:
        _swap(keys, values, mid, lo)
    if keys[last] < keys[lo]:
        _swap(keys, values, last, lo)
    if keys[last] < keys[mid]:
        _swap(keys, values, last, mid)
    _swap(keys, values, mid, last - 1)  # the pivot, kept at last - 1; keys[lo] <= pivot <= keys[last]
    pivot = keys[last - 1]
    i, j = lo, last - 1
    while True:
        i += 1
        while keys[i] < pivot:
            i += 1
        j -= 1
        while pivot < keys[j]:
            j -= 1
        if i >= j:
            break
        _swap(keys, values, i, j)
    _swap(keys, values, i, last - 1)
    return i


@leaf
def _heapsort(keys, values, lo, hi):
    for top in range((hi - lo) // 2 - 1, -1, -1):
        _sift(keys, values, lo, top, hi - lo)
    for end in range(hi - lo - 1, 0, -1):
        _swap(keys, values, lo, lo + end)
        _sift(keys, values, lo, 0, end)


@leaf
def _sift(keys, values, lo, t, size):
    """Move item t down the max-heap ``keys[lo:lo + size]`` to its place."""
    while True:
        c = 2 * t + 1
        if c >= size:
            return
        if c + 1 < size and keys[lo + c + 1] > keys[lo + c]:
            c += 1
        if keys[lo + c] <= keys[lo + t]:
            return
        _swap(keys, values, lo + t, lo + c)
        t = c


@leaf
def _swap(keys, values, a, b):
    keys[a], keys[b] = keys[b], keys[a]
    if values.size:
        values[a], values[b] = values[b], values[a]
