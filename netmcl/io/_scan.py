"""Numba byte scanners behind :func:`read_abc` and :func:`read_mci`.

The readers hand the file to these functions as ``uint8`` arrays (the label
reader a block of whole lines at a time, the native one the whole file); no
Python code runs per line.  Each scanner stops at the first malformed line and
reports what is wrong (an error code), where (the 1-based line number) and the
offending bytes (a span), so the caller can raise a precise
:class:`~netmcl.InputFileError`.

Numbers are parsed exactly: a decimal with at most 19 significant digits whose
value is an integer below 2**53 times a power of ten in 1e-22..1e22 is
converted with one correctly rounded IEEE operation (Clinger's fast path), the
result C's ``strtod`` gives.  Any other well-formed number is flagged
:data:`V_SLOW` and converted by the caller with Python's ``float``, which is
correctly rounded as well.
"""

import numpy as np
from numba import njit, uintp

from ..engines.cpu._jit import leaf
from ._codes import (
    E_BAD_NUMBER,
    E_EMPTY_LABEL,
    E_EOF,
    E_NEGATIVE,
    E_NEG_INDEX,
    E_NONE,
    E_NONFINITE,
    E_ONE_FIELD,
    E_SYNTAX,
    S_FIRST_LINE,
    S_HEADER,
    S_LABELS,
    S_LINE,
    S_NAME_BYTES,
    V_FAST,
    V_MISSING,
    V_SLOW,
)

_TWO53 = 1 << 53
_INFINITY = tuple(b"infinity")
_NAN = tuple(b"nan")


@njit(cache=True, inline="always")
def _isspace(c):
    return c == 32 or (9 <= c <= 13)


@njit(cache=True, inline="always")
def _isdigit(c):
    return 48 <= c <= 57


@leaf
def parse_number(buf, i, end, pow10):
    """Parse the decimal number ``buf[i:end]`` (the whole span).

    Returns ``(status, value)``: status ``V_FAST`` with the exact double,
    ``V_SLOW`` for a well-formed number this fast path cannot convert
    exactly, or an error code (``E_BAD_NUMBER``, ``E_NONFINITE``,
    ``E_NEGATIVE``).
    """
    neg = False
    if i < end and (buf[i] == 43 or buf[i] == 45):  # + -
        neg = buf[i] == 45
        i += 1
    m = np.uint64(0)
    nd = 0
    ndig = 0
    e10 = 0
    slow = False
    while i < end and _isdigit(buf[i]):
        d = buf[i] - 48
        ndig += 1
        if m == 0 and d == 0:
            pass
        elif nd < 19:
            m = m * np.uint64(10) + np.uint64(d)
            nd += 1
        else:
            e10 += 1
            if d:
                slow = True
        i += 1
    if i < end and buf[i] == 46:  # .
        i += 1
        while i < end and _isdigit(buf[i]):
            d = buf[i] - 48
            ndig += 1
            if m == 0 and d == 0:
                e10 -= 1
            elif nd < 19:
                m = m * np.uint64(10) + np.uint64(d)
                nd += 1
                e10 -= 1
            elif d:
                slow = True
            i += 1
    if ndig == 0:
        return _word_status(buf, i, end), 0.0
    if i < end and (buf[i] == 101 or buf[i] == 69):  # e E
        i += 1
        eneg = False
        if i < end and (buf[i] == 43 or buf[i] == 45):
            eneg = buf[i] == 45
            i += 1
        if i >= end or not _isdigit(buf[i]):
            return E_BAD_NUMBER, 0.0
        ex = 0
        while i < end and _isdigit(buf[i]):
            if ex < 100000:
                ex = ex * 10 + (buf[i] - 48)
            i += 1
        e10 += -ex if eneg else ex
    if i != end:
        return E_BAD_NUMBER, 0.0
    if m == 0:
        return V_FAST, -0.0 if neg else 0.0
    if neg:
        return E_NEGATIVE, 0.0
    if slow or m > np.uint64(_TWO53) or e10 > 22 or e10 < -22:
        return V_SLOW, 0.0
    v = float(m)
    if e10 >= 0:
        return V_FAST, v * pow10[e10]
    return V_FAST, v / pow10[-e10]


@leaf
def _word_status(buf, i, end):
    """E_NONFINITE when ``buf[i:end]`` spells inf, infinity or nan, else E_BAD_NUMBER."""
    n = end - i
    if n != 3 and n != 8:
        return E_BAD_NUMBER
    ok_inf = True  # "inf" is the start of "infinity"
    ok_nan = n == 3
    for k in range(n):
        c = buf[i + k] | 32  # lower case
        if c != _INFINITY[k]:
            ok_inf = False
        if n == 3 and c != _NAN[k]:
            ok_nan = False
    return E_NONFINITE if (ok_inf or ok_nan) else E_BAD_NUMBER


@njit(cache=True)
def scan_abc(buf, pow10, state, table, hashes, spans, names):
    """Split lines of an mcl label file into edges, as ``mcl --abc`` reads them,
    numbering the labels by first appearance, as mcl does.

    `buf` holds whole lines (the file's last line may lack its newline), less
    than 2**31 bytes (positions are kept as int32); a file is scanned block
    after block, the labels seen so far carried from one call to the next:
    `state` (the ``S_*`` slots of :mod:`._codes`, updated in place), the
    open-addressing `table` of label ids (each slot the id with its hash's
    upper half above it, -1 where empty), their `hashes`, and their bytes in
    `names`, each label followed by a newline, label t at
    ``names[spans[t, 0]:spans[t, 1]]``.

    Two passes: the lines are split and their labels hashed, then the labels
    are numbered in order, in runs of labels already numbered (``_known``)
    between the new ones (``_add``).  A first label equal to the line
    before's, as in files sorted by it, is not looked up again.  Looking up
    in a loop that never grows the tables, rather than in the splitting loop,
    keeps both loops tight: the tables stay fixed through the lookups, and
    the splitting loop does nothing but split.

    Returns ``(src, dst, values, nrec, slow, nslow, err, err_lo, err_hi,
    table, hashes, spans, names)``: record k of the block joins labels
    ``src[k]`` and ``dst[k]`` with weight ``values[k]`` (float32, as mcl
    stores it); ``slow[:nslow]`` holds (record, start, end) of the values
    left to Python's ``float`` (:data:`V_SLOW`), whose ``values`` are
    placeholders; the last four are the label tables, reallocated when they
    grew.  On an error, ``state[S_LINE]`` is its line, ``buf[err_lo:err_hi]``
    the offending text, and the ``nrec`` records before it are valid.
    Memory: 44 bytes a line of the block (12 kept, 32 while it is scanned),
    plus the labels.
    """
    n = uintp(buf.size)
    nlines = 1
    for c in buf:
        nlines += c == 10
    src = np.empty(nlines, dtype=np.int32)
    dst = np.empty(nlines, dtype=np.int32)
    values = np.empty(nlines, dtype=np.float32)
    where = np.empty((nlines, 4), dtype=np.int32)  # the labels' spans; -1: the line before's first label
    keys = np.empty((nlines, 2), dtype=np.uint64)  # their hashes
    slow = np.empty((16, 3), dtype=np.int64)
    nslow = 0
    nrec = 0
    err = E_NONE
    err_lo = err_hi = np.int64(0)
    pos = before0 = before1 = uintp(0)
    while pos < n:
        state[S_LINE] += 1
        p = pos
        tab = False  # a TAB among the leading blanks
        while p < n and buf[p] != 10 and _isspace(buf[p]):
            tab |= buf[p] == 9
            p += uintp(1)
        if p == n or buf[p] == 10 or buf[p] == 35 or state[S_HEADER]:  # blank line, comment or header
            if p < n and buf[p] != 10 and buf[p] != 35:
                state[S_HEADER] = 0
            pos = _line_end(buf, p) + uintp(1)
            continue
        if state[S_FIRST_LINE] == 0:
            state[S_FIRST_LINE] = state[S_LINE]
        q = pos if tab else p
        while q < n and buf[q] != 9 and buf[q] != 10:
            q += uintp(1)
        if q < n and buf[q] == 9:
            # label TAB label [TAB value]; labels keep inner and outer blanks
            a0, a1 = pos, q
            b0 = q + uintp(1)
            while b0 < n and buf[b0] != 10 and _isspace(buf[b0]):
                b0 += uintp(1)
            b1 = b0
            while b1 < n and buf[b1] != 9 and buf[b1] != 10:
                b1 += uintp(1)
            if tab:
                err = E_EMPTY_LABEL
            elif b0 == b1:
                err = E_ONE_FIELD
        else:  # no TAB on the line (q is its end): fields split on blanks
            a0 = a1 = p
            while a1 < q and not _isspace(buf[a1]):
                a1 += uintp(1)
            b0 = a1
            while b0 < q and _isspace(buf[b0]):
                b0 += uintp(1)
            b1 = b0
            while b1 < q and not _isspace(buf[b1]):
                b1 += uintp(1)
            if b0 == q:
                err = E_ONE_FIELD
        if err != E_NONE:
            err_lo, err_hi = np.int64(pos), np.int64(_line_end(buf, b1))
            break
        v0 = b1
        while v0 < n and buf[v0] != 10 and _isspace(buf[v0]):
            v0 += uintp(1)
        v1 = v0
        while v1 < n and not _isspace(buf[v1]):
            v1 += uintp(1)
        if v0 == v1:
            val = 1.0
        else:
            st, val = parse_number(buf, np.int64(v0), np.int64(v1), pow10)
            if st > V_SLOW:
                err, err_lo, err_hi = st, np.int64(v0), np.int64(v1)
                break
            if st == V_SLOW:
                if nslow == slow.shape[0]:
                    slow = np.concatenate((slow, np.empty_like(slow)))
                slow[nslow, 0] = nrec
                slow[nslow, 1] = np.int64(v0)
                slow[nslow, 2] = np.int64(v1)
                nslow += 1
        values[nrec] = np.float32(val)
        if nrec and _same(buf, a0, a1, buf, before0, before1):
            where[nrec, 0] = -1
        else:
            where[nrec, 0] = a0
            keys[nrec, 0] = _hash(buf, a0, a1)
        where[nrec, 1] = a1
        where[nrec, 2] = b0
        where[nrec, 3] = b1
        keys[nrec, 1] = _hash(buf, b0, b1)
        before0, before1 = a0, a1
        nrec += 1
        pos = _line_end(buf, v1) + uintp(1)
    # label 2 r + side is record r's first (side 0) or second label
    at = 0
    while at < 2 * nrec:
        at = _known(buf, where, keys, src, dst, at, 2 * nrec, table, spans, names)
        if at < 2 * nrec:
            r, side = at >> 1, at & 1
            lo, hi = where[r, 2 * side], where[r, 2 * side + 1]
            t, table, hashes, spans, names = _add(buf, lo, hi, keys[r, side], state, table, hashes, spans, names)
            if side == 0:
                src[r] = t
            else:
                dst[r] = t
            at += 1
    return src, dst, values, nrec, slow, nslow, err, err_lo, err_hi, table, hashes, spans, names


@njit(cache=True, inline="always")
def _line_end(buf, i):
    """The position of the newline ending the line at ``buf[i]`` (``buf.size`` if none)."""
    n = uintp(buf.size)
    i = uintp(i)
    while i < n and buf[i] != 10:
        i += uintp(1)
    return i


@leaf
def _known(buf, where, keys, src, dst, at, stop, table, spans, names):
    """Number the labels at .. stop-1 (see ``scan_abc``) while they have numbers;
    return where the first new one is (stop if none)."""
    while at < stop:
        r, side = at >> 1, at & 1
        lo = where[r, 2 * side]
        if lo < 0:
            t = src[r - 1]
        else:
            t = _find(buf, lo, where[r, 2 * side + 1], keys[r, side], table, spans, names)
            if t < 0:
                return at
        if side == 0:
            src[r] = t
        else:
            dst[r] = t
        at += 1
    return at


@njit(cache=True, inline="always")
def _find(buf, lo, hi, h, table, spans, names):
    """The number of the label ``buf[lo:hi]`` of hash `h`, or -1 if it has none yet."""
    mask = uintp(table.size - 1)
    slot = uintp(h) & mask
    tag = np.int64(h >> np.uint64(32)) << 32
    while True:
        w = table[slot]
        if w == -1:
            return np.int64(-1)
        if (w ^ tag) >> 32 == 0:
            t = w & 0xFFFFFFFF
            if _same(buf, lo, hi, names, spans[t, 0], spans[t, 1]):
                return t
        slot = (slot + uintp(1)) & mask


@njit(cache=True)
def _add(buf, lo, hi, h, state, table, hashes, spans, names):
    """Number the new label ``buf[lo:hi]`` of hash `h`; return its number and
    the tables, reallocated where they grew."""
    t = state[S_LABELS]
    if t == hashes.size:
        hashes = np.concatenate((hashes, np.empty_like(hashes)))
        spans = np.concatenate((spans, np.empty_like(spans)))
    at = state[S_NAME_BYTES]
    while at + hi - lo + 1 > names.size:
        names = np.concatenate((names, np.empty_like(names)))
    names[at : at + hi - lo] = buf[lo:hi]
    names[at + hi - lo] = 10
    hashes[t] = h
    spans[t, 0] = at
    spans[t, 1] = at + hi - lo
    state[S_NAME_BYTES] = at + hi - lo + 1
    state[S_LABELS] = t + 1
    if 2 * (t + 1) > table.size:  # keep the load factor below 1/2
        table = np.full(2 * table.size, -1, dtype=np.int64)
        for s in range(t):
            _place(table, hashes[s], s)
    _place(table, h, t)
    return t, table, hashes, spans, names


@njit(cache=True, inline="always")
def _place(table, h, t):
    """Put label t, of hash `h`, in the first free slot from its own."""
    mask = uintp(table.size - 1)
    slot = uintp(h) & mask
    while table[slot] != -1:
        slot = (slot + uintp(1)) & mask
    table[slot] = (np.int64(h >> np.uint64(32)) << 32) | t


@njit(cache=True, inline="always")
def _hash(buf, lo, hi):
    """A 64-bit hash of ``buf[lo:hi]``, taken eight bytes at a time: one
    multiplication per word, where a byte at a time would chain one per byte."""
    k = uintp(lo)
    hi = uintp(hi)
    h = np.uint64(hi - k) * np.uint64(0x9E3779B97F4A7C15)
    while k + uintp(8) <= hi:
        w = np.uint64(0)
        for b in range(8):
            w |= np.uint64(buf[k + uintp(b)]) << np.uint64(8 * b)
        h = (h ^ w) * np.uint64(0xBF58476D1CE4E5B9)
        h ^= h >> np.uint64(31)
        k += uintp(8)
    w = np.uint64(0)
    shift = np.uint64(0)
    while k < hi:
        w |= np.uint64(buf[k]) << shift
        shift += np.uint64(8)
        k += uintp(1)
    h = (h ^ w) * np.uint64(0x94D049BB133111EB)
    return h ^ (h >> np.uint64(29))


@njit(cache=True, inline="always")
def _same(buf, a0, a1, other, b0, b1):
    """Whether ``buf[a0:a1]`` equals ``other[b0:b1]``."""
    length = np.int64(a1) - np.int64(a0)
    if length != np.int64(b1) - np.int64(b0):
        return False
    a0 = uintp(a0)
    b0 = uintp(b0)
    for k in range(uintp(length)):
        if buf[a0 + k] != other[b0 + k]:
            return False
    return True


@leaf
def _skip_blank(buf, i, line):
    """Skip whitespace and ``#`` comments; returns the new position and line number."""
    n = buf.size
    while i < n:
        c = buf[i]
        if c == 10:
            line += 1
            i += 1
        elif _isspace(c):
            i += 1
        elif c == 35:  # '#': to the end of the line
            while i < n and buf[i] != 10:
                i += 1
        else:
            break
    return i, line


@njit(cache=True, inline="always")
def _is_value_char(c):
    return not (_isspace(c) or c == 36 or c == 40 or c == 41 or c == 35 or c == 58)  # $ ( ) # :


@leaf
def _read_index(buf, i):
    """A non-negative decimal integer at ``buf[i]``: (value, end), or (-1, i) if none, (-2, i) if negative."""
    n = buf.size
    if i < n and buf[i] == 45 and i + 1 < n and _isdigit(buf[i + 1]):
        return -2, i
    if i >= n or not _isdigit(buf[i]):
        return -1, i
    v = 0
    while i < n and _isdigit(buf[i]):
        if v < (1 << 62) // 10:
            v = v * 10 + (buf[i] - 48)
        i += 1
    return v, i


@njit(cache=True)
def scan_native(buf, pos, line, pow10):
    """Read the body of an mcl native matrix, from just after ``begin``.

    Grammar, as mcl reads it: columns ``<col>[:<value>] <row>[:<value>] ...
    $`` up to a closing ``)``; ``#`` comments; a missing value is 1.0; a
    ``(...)`` annotation after an index is skipped.  Entries of value 0 are
    dropped.

    Returns ``(cols, rows, vals, vstat, spans, listing, n, err, err_line,
    err_lo, err_hi)``; ``spans[k]`` holds the byte offsets of entry k's row
    index and of its value token, ``listing`` numbers the column listings (a
    column may be listed several times).
    """
    n = buf.size
    cap = 1024
    cols = np.empty(cap, dtype=np.int64)
    rows = np.empty(cap, dtype=np.int64)
    vals = np.empty(cap, dtype=np.float64)
    vstat = np.empty(cap, dtype=np.int8)
    spans = np.empty((cap, 3), dtype=np.int64)
    listing = np.empty(cap, dtype=np.int64)
    ne = 0
    nlist = 0
    while True:
        pos, line = _skip_blank(buf, pos, line)
        if pos >= n:
            return cols, rows, vals, vstat, spans, listing, ne, E_EOF, line, pos, pos
        if buf[pos] == 41:  # ')'
            return cols, rows, vals, vstat, spans, listing, ne, E_NONE, line, pos, pos
        col, q = _read_index(buf, pos)
        if col < 0:
            return (
                cols,
                rows,
                vals,
                vstat,
                spans,
                listing,
                ne,
                E_SYNTAX if col == -1 else E_NEG_INDEX,
                line,
                pos,
                pos + 1,
            )
        pos, line = _skip_blank(buf, q, line)
        if pos < n and buf[pos] == 58:  # ':' column value, ignored
            pos, line = _skip_blank(buf, pos + 1, line)
            q = pos
            while q < n and _is_value_char(buf[q]):
                q += 1
            st, _v = parse_number(buf, pos, q, pow10)
            if st > V_SLOW and st != E_NEGATIVE:
                return cols, rows, vals, vstat, spans, listing, ne, st, line, pos, q
            pos = q
        nlist += 1
        while True:
            pos, line = _skip_blank(buf, pos, line)
            if pos >= n:
                return cols, rows, vals, vstat, spans, listing, ne, E_EOF, line, pos, pos
            if buf[pos] == 36:  # '$'
                pos += 1
                break
            r0 = pos
            row, q = _read_index(buf, pos)
            if row < 0:
                return (
                    cols,
                    rows,
                    vals,
                    vstat,
                    spans,
                    listing,
                    ne,
                    E_SYNTAX if row == -1 else E_NEG_INDEX,
                    line,
                    pos,
                    pos + 1,
                )
            pos = q
            st = np.int64(V_MISSING)
            val = 1.0
            v0 = pos
            v1 = pos
            while True:
                pos, line = _skip_blank(buf, pos, line)
                if pos < n and buf[pos] == 40:  # '(' annotation: skip to ')'
                    while pos < n and buf[pos] != 41:
                        if buf[pos] == 10:
                            line += 1
                        pos += 1
                    if pos >= n:
                        return cols, rows, vals, vstat, spans, listing, ne, E_EOF, line, pos, pos
                    pos += 1
                    continue
                if pos < n and buf[pos] == 58:  # ':'
                    pos, line = _skip_blank(buf, pos + 1, line)
                    v0 = pos
                    v1 = pos
                    while v1 < n and _is_value_char(buf[v1]):
                        v1 += 1
                    if v0 == v1:
                        return cols, rows, vals, vstat, spans, listing, ne, E_BAD_NUMBER, line, v0, v0 + 1
                    st, val = parse_number(buf, v0, v1, pow10)
                    if st > V_SLOW:
                        return cols, rows, vals, vstat, spans, listing, ne, st, line, v0, v1
                    pos = v1
                break
            if st == V_FAST and val == 0.0:
                continue
            if ne == cap:
                cap *= 2
                cols = np.concatenate((cols, np.empty(cap - ne, dtype=np.int64)))
                rows = np.concatenate((rows, np.empty(cap - ne, dtype=np.int64)))
                vals = np.concatenate((vals, np.empty(cap - ne, dtype=np.float64)))
                vstat = np.concatenate((vstat, np.empty(cap - ne, dtype=np.int8)))
                spans = np.concatenate((spans, np.empty((cap - ne, 3), dtype=np.int64)))
                listing = np.concatenate((listing, np.empty(cap - ne, dtype=np.int64)))
            cols[ne] = col
            rows[ne] = row
            vals[ne] = val
            vstat[ne] = st
            spans[ne, 0] = r0
            spans[ne, 1] = v0
            spans[ne, 2] = v1
            listing[ne] = nlist
            ne += 1
