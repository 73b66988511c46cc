"""Compiled per-column kernels that follow mcl's arithmetic contract.

mcl stores float32 values and accumulates in double, in ascending index order
(mcl-spec.md d.9).  Every kernel here does the same so that the iterands, not
only the clusters, equal mcl's:

* expansion of column ``j`` sums ``M[i, k] * M[k, j]`` over ``k`` ascending in
  a double accumulator; when the column's work ``flops_j`` (the summed lengths
  of the columns it reads) satisfies ``10 * flops_j >= n`` each product is
  first rounded to float32 (mcl's dense path), otherwise it is exact;
* the expanded column is rounded to float32 and pruned (cutoff, recovery,
  selection, second recovery) with masses summed sequentially;
* rescaling and inflation divide in double and round to float32.

A column never depends on another column, so callers may split the columns of
a matrix among threads in any way without changing a single bit.

Only a sum's rounding to float32 is ever used.  A run's heavy columns (below)
sum the columns that one of them alone reads apart (``_lone_reads``), so that
such a sum comes in two parts, each over k ascending: the two orders can
differ in a double's last bits, and where that could change the float32 (a
rounding midpoint within their error bound, ``_near_midpoint``: a few sums in
a million) the sum is summed again over k ascending (``_entry_in_order``).

Hot loops index with unsigned integers (``uintp``): numba then emits no
negative-index wraparound, which would otherwise cost as much as the
arithmetic itself.

The columns an expansion reads are streamed from memory, and the hardware
prefetcher, seeing each one as a new short stream, fetches it too late: while
one column is summed, the next one read is prefetched a cache line per
``LINE`` products (``_prefetch_line``).  This pays most on graphs whose
iterand outgrows the last-level cache.

Heavy columns whose patterns overlap much are expanded several at a time
into interleaved accumulators (``run_size``): sixteen on graphs of up to
8,192 nodes where runs are wide (``_constants.WIDE_RUNS``), else eight while
their accumulators, 64 bytes a row, take at most half of a core's L2 cache,
and four while those of 32 bytes a row fit it, so that the accumulators stay
in L2.  Each entry read is one vector instruction per half of eight columns
that reads it (``_add_lanes``).  Each lane is a
float32 multiply, a widening and a double add, exactly the scalar statement;
a lane whose column does not read the entry adds ``+0.0``, which changes no
sum.  The caller chooses the order in which the columns are computed, so that
columns of one community, whose patterns overlap, come together.  On larger
graphs a heavy column is expanded alone, in
that order still: the columns it reads are then often in cache from the
column before.

Rows are stored as uint16 on matrices of up to 262,144 nodes: past 65,536 as
offsets within row blocks of 65,536 (``BLOCK_SHIFT``), a column's entries
stored block after block with ``cuts`` saying where each block starts
(``_block``).  Each entry then takes 6 bytes instead of 8, and the expansion
reads a quarter less.  A heavy column fills its accumulator one block after
the other, so that the part being filled (512 KB) stays in L2; each row still
receives its products over k ascending.  On matrices of one block the rows
may instead be stored as one-byte gaps from the row before in the column
(uint8), a gap of 0 standing for a row stored whole apart (``_next_row``,
``gap_rows``): the rows of PPI networks and community graphs cluster, and
their dense iterands then take 5 bytes an entry.  Every kernel reads rows
through ``_next_row``, in the order stored; the type of the rows chooses the
reading when the kernel is compiled.

A light column's rows are listed as they are first reached and put in order
through a bitmap of the rows (``_gather``), not sorted: a column reaching
many rows costs u log u comparisons to sort.  An expanded column is measured for pruning (its
largest value, sum of squares, and the entries that survive the cutoff) in
one pass over its accumulator where it has one (``_scan``, ``_tally``), the
columns of a run in one vector pass for all of them, a chain of additions
per lane (``_measure_lanes``).  The survivors are marked on the way, and
only they are taken out: a few percent of the rows.  Pruning then works on
them, and reads the whole column again only to recover entries.
"""

import math

import numpy as np
from llvmlite import ir
from numba import njit, types, uintp
from numba.core import cgutils
from numba.cpython.unsafe.numbers import trailing_zeros
from numba.extending import intrinsic

from ._jit import leaf, sort_by_key
from ._constants import (
    BLOCK_MASK,
    BLOCK_SHIFT,
    GROUP_BYTES,
    GROUP_MAX,
    LANES,
    LANE_RUN_NODES,
    LINE,
    LONE,
    MIDPOINT_BITS,
    N_STATS,
    NARROW_LANES,
    RADIX_BELOW,
    RADIX_BUCKETS,
    RUN,
    SORT_BELOW,
    STAT_DENSE_PATH,
    STAT_EMERGENCY,
    STAT_EMPTIED,
    STAT_EXPANDED,
    STAT_IN_ORDER,
    STAT_KEPT,
    STAT_LANES,
    STAT_MIN_MASS,
    STAT_RECOVER,
    STAT_RECOVER_AFTER_SELECT,
    STAT_SELECT,
    TALLY_FIELDS,
)

#: the kernels' innermost loops, which a build ahead of time (``netmcl.engines.cpu._compiled``)
#: inlines into their callers whatever LLVM's estimate of the cost.  Each is
#: called once per column read, and LLVM's estimate of each sits near its
#: threshold, so that a small change to a loop can turn it into a call per
#: column read.  numba's own ``inline="always"`` inlines before LLVM sees the
#: code, and its loops then come out slower.  numba's JIT, where the kernels
#: cannot be built, keeps LLVM's choice.
ALWAYS_INLINE = ("_add_read", "_add_lanes_line", "_add_products", "_add_line")


@leaf
def _block(colstart, colstop, cuts, k, h):
    """The entries of column k in row block h (``BLOCK_SHIFT``): where its rows
    are ``h * 2**BLOCK_SHIFT`` plus the stored offsets.  `cuts`, shape
    (blocks - 1, n), holds where each block after the first starts; a matrix
    in one block has none."""
    low = colstart[k] if h == 0 else cuts[h - 1, k]
    high = colstop[k] if h == cuts.shape[0] else cuts[h, k]
    return uintp(low), uintp(high)


@leaf
def _exceptions(indices, excat, k):
    """Where column k's rows stored whole start in `exc` (``_next_row``): 0 for
    rows not stored as gaps."""
    return uintp(excat[k]) if indices.itemsize == 1 else uintp(0)


@leaf
def _next_row(indices, exc, r, row, e):
    """The row of entry r, given `row`, that of the entry before it in its
    column (0 before the first), and `e`, where the column's next row stored
    whole is in `exc`; and where the next one after it is.

    Rows stored as uint8 are one-byte gaps: entry r's row is `row` plus
    ``indices[r]``, or ``exc[e]`` where that gap is 0 (a gap of 256 or more,
    or a first row of 0).  Other rows are stored whole (`row` and `e` are not
    used).  Which one is known when the kernel is compiled, and so is an
    `exc` of None: a column with no row stored whole past its first entry,
    read from the row ``_reading`` gives, by adding gaps alone.
    """
    g = uintp(indices[r])
    if indices.itemsize != 1:
        return g, e
    if exc is None:
        return row + g, e
    if g == 0:
        return uintp(exc[e]), e + uintp(1)
    return row + g, e


@leaf
def _reading(indices, exc, excat, excn, k, q, end):
    """How to read column k, entries q .. end - 1 (``_next_row``): whether a
    row stored whole may come past its first entry (``excn[k]`` of them do),
    and the row and the place in `exc` to start from.  Where none does, the
    row to start from is the first row less the first gap, so that adding
    the gaps alone reads every row: the caller then passes an `exc` of None,
    and the loop has no branch."""
    if indices.itemsize != 1:
        return False, uintp(0), uintp(0)
    e = uintp(excat[k])
    if excn[k] != 0:
        return True, uintp(0), e
    if q < end and indices[q] == 0:
        return False, uintp(exc[e]), e
    return False, uintp(0), e


@leaf
def _pattern(colstart, colstop, cuts, indices, exc, excat, j, out):
    """Write the rows of column j (block offsets added) to `out`, in the order
    stored; return how many."""
    m = 0
    e = _exceptions(indices, excat, j)
    for h in range(cuts.shape[0] + 1):
        base = uintp(h) << uintp(BLOCK_SHIFT)
        low, high = _block(colstart, colstop, cuts, j, h)
        row = uintp(0)
        for p in range(low, high):
            row, e = _next_row(indices, exc, p, row, e)
            out[m] = base + row
            m += 1
    return m


@njit(cache=True, nogil=True)
def column_survey(colstart, colstop, cuts, indices, exc, excat, data, lo, hi, flops, leaders):
    """For the columns j = lo .. hi-1, in one pass over their rows: ``flops[j]``,
    the expansion work (the summed lengths of the columns j reads), and
    ``leaders[j]``, the row of its largest entry other than j itself (the first
    such row on ties; j for a column holding nothing else).

    Column k's entries are ``colstart[k] .. colstop[k] - 1``, in row blocks
    split by `cuts` (``_block``), their rows as ``_pattern`` reads them.  The
    columns may be split among threads in any way.
    """
    longest = 0
    for j in range(lo, hi):
        longest = max(longest, colstop[j] - colstart[j])
    rows = np.empty(longest, dtype=np.int64)
    for j in range(lo, hi):
        f = 0
        best = np.float32(-1.0)
        leader = j
        start = colstart[j]
        for t in range(_pattern(colstart, colstop, cuts, indices, exc, excat, j, rows)):
            k = rows[t]
            f += colstop[k] - colstart[k]
            if k != j and data[start + t] > best:
                best = data[start + t]
                leader = k
        flops[j] = f
        leaders[j] = leader


@njit(cache=True, nogil=True)
def block_cuts(colstart, colstop, indices, blocks):
    """Where each column's rows (int32) cross into the next of `blocks` row blocks.

    ``cuts[h - 1, k]`` is the first entry of column k whose row is at least
    ``h * 2**BLOCK_SHIFT`` (h = 1 .. blocks - 1): entries ``cuts[h - 1, k] ..
    cuts[h, k] - 1`` hold column k's rows in block h.
    """
    n = colstart.size
    cuts = np.empty((max(blocks - 1, 0), n), dtype=np.int64)
    for k in range(n):
        low, high = colstart[k], colstop[k]
        for h in range(1, blocks):
            bound = h << BLOCK_SHIFT
            a, b = low, high
            while a < b:
                mid = (a + b) >> 1
                if indices[mid] < bound:
                    a = mid + 1
                else:
                    b = mid
            cuts[h - 1, k] = a
            low = a
    return cuts


@njit(cache=True, nogil=True)
def full_rows(colstart, colstop, cuts, indices, exc, excat, rows):
    """Write the rows of the stored entries of the columns given, block offsets
    added, to `rows` (in the order stored): int32, or uint16 for rows stored as
    gaps (one row block).  The columns may be any of the matrix's, their
    `colstart`, `colstop`, `cuts` and `excat` sliced alike."""
    for k in range(colstart.size):
        _pattern(colstart, colstop, cuts, indices, exc, excat, k, rows[colstart[k] :])


@njit(cache=True, nogil=True)
def copy_spans(src, dst, counts, src_idx, src_val, dst_idx, dst_val):
    """Copy span k of `counts[k]` entries (rows and values) from `src[k]` in
    `src_idx`, `src_val` to `dst[k]` in `dst_idx`, `dst_val`, for every k: the
    columns of a matrix gathered, or scattered to their places."""
    for k in range(counts.size):
        a, b = src[k], dst[k]
        for e in range(counts[k]):
            dst_idx[b + e] = src_idx[a + e]
            dst_val[b + e] = src_val[a + e]


@njit(cache=True, nogil=True)
def normalize_columns(indptr, data):
    """Make every column sum to one, in place (mclxMakeStochastic)."""
    for j in range(indptr.size - 1):
        s = 0.0
        for p in range(indptr[j], indptr[j + 1]):
            s += np.float64(data[p])
        if s != 0.0:
            for p in range(indptr[j], indptr[j + 1]):
                data[p] = np.float32(np.float64(data[p]) / s)


@njit(cache=True, nogil=True)
def with_max_loops(indptr, indices, data, out_idx, out_val):
    """The CSC arrays of a matrix whose loops are replaced, as mcl does by
    default: each column gets a loop of its largest off-diagonal value, or of
    1 when it has none above zero.  Rows stay ascending.

    `out_idx` and `out_val` receive the entries (room for one more a column
    than the matrix has, of the rows' type the caller wants); returns
    ``(indptr, count)``, the entries being their first `count`."""
    n = indptr.size - 1
    out_ptr = np.empty(n + 1, dtype=np.int64)
    q = 0
    for j in range(n):
        out_ptr[j] = q
        loop = np.float32(0.0)
        for p in range(indptr[j], indptr[j + 1]):
            if indices[p] != j and data[p] > loop:
                loop = data[p]
        if loop == 0.0:
            loop = np.float32(1.0)
        placed = False
        for p in range(indptr[j], indptr[j + 1]):
            i = indices[p]
            if i == j:
                continue
            if i > j and not placed:
                out_idx[q], out_val[q], q, placed = j, loop, q + 1, True
            out_idx[q], out_val[q], q = i, data[p], q + 1
        if not placed:
            out_idx[q], out_val[q], q = j, loop, q + 1
    out_ptr[n] = q
    return out_ptr, q


@leaf
def _inflate_vector(vals, lo, hi, power):
    """Raise vals[lo:hi] to `power` and rescale; return False if emptied."""
    s = 0.0
    for p in range(lo, hi):
        if power == 2.0:
            x = np.float64(vals[p])
            vals[p] = np.float32(x * x)
        else:
            vals[p] = np.float32(math.pow(np.float64(vals[p]), power))
        s += np.float64(vals[p])
    if s <= 0.0:
        return False
    for p in range(lo, hi):
        vals[p] = np.float32(np.float64(vals[p]) / s)
    return True


@njit(cache=True, nogil=True)
def inflate_columns(indptr, data, power):
    """Inflate every column in place; return the ids of columns emptied."""
    emptied = []
    for j in range(indptr.size - 1):
        if not _inflate_vector(data, indptr[j], indptr[j + 1], power):
            emptied.append(j)
            for p in range(indptr[j], indptr[j + 1]):
                data[p] = np.float32(0.0)
    return emptied


@leaf
def _select(a, m, r):
    """The value of rank r (0-based, ascending, with multiplicity) among a[:m].

    Quickselect with a median-of-three pivot and a three-way partition (ties,
    common among pruned values, end a round at once); reorders a[:m] in
    place and allocates nothing.
    """
    lo = 0
    hi = m - 1
    while lo < hi:
        x, y, z = a[lo], a[(lo + hi) >> 1], a[hi]
        pivot = max(min(x, y), min(max(x, y), z))
        lt, i, gt = lo, lo, hi
        while i <= gt:
            v = a[i]
            if v < pivot:
                a[i], a[lt] = a[lt], v
                lt += 1
                i += 1
            elif v > pivot:
                a[i], a[gt] = a[gt], v
                gt -= 1
            else:
                i += 1
        if r < lt:
            hi = lt - 1
        elif r > gt:
            lo = gt + 1
        else:
            return pivot
    return a[r]


@leaf
def _kth_largest(vals, n, limit, k, scratch, hist):
    """The k-th largest of vals[:n] among entries < limit, counted with multiplicity.

    Up to RADIX_BELOW entries by quickselect (``_select``); above, by radix
    select on the values' bits, mapped to unsigned keys in the values' order:
    a histogram of the top 11 bits (`hist`, RADIX_BUCKETS counters) finds the bucket
    that holds the rank, its entries are kept, and the next 11 and the last
    10 bits are counted among them.  Each pass is branch-free, where a
    quickselect's comparisons mispredict half the time, so the radix select
    pays on columns of thousands of entries.
    """
    m = 0
    for p in range(n):
        v = vals[p]
        scratch[m] = v
        m += v < limit
    if m < RADIX_BELOW:
        return _select(scratch, m, m - k)
    keys = scratch[:m].view(np.uint32)
    rank = m - k  # ascending, 0-based
    count = m
    top = np.uint32(0x80000000)
    for shift, width in ((21, 11), (10, 11), (0, 10)):
        digit = np.uint32((1 << width) - 1)
        for d in range(1 << width):
            hist[d] = 0
        for p in range(count):
            x = keys[p]
            if shift == 21:  # float bits to keys: negatives reversed below the positives
                x = np.uint32(x ^ (np.uint32(0xFFFFFFFF) if x & top else top))
                keys[p] = x
            hist[(x >> np.uint32(shift)) & digit] += 1
        d = 0
        while rank >= hist[d]:
            rank -= hist[d]
            d += 1
        kept = 0
        for p in range(count):  # the bucket's keys, moved to the front (kept <= p)
            x = keys[p]
            keys[kept] = x
            kept += ((x >> np.uint32(shift)) & digit) == d
        count = kept
    x = keys[0]
    return np.uint32(x ^ (top if x & top else np.uint32(0xFFFFFFFF))).view(np.float32)


@leaf
def _masked_mass(vals, n, bar):
    s = 0.0
    c = 0
    for p in range(n):
        if vals[p] >= bar:
            s += np.float64(vals[p])
            c += 1
    return s, c


@leaf
def _scan(n, acc, rows, vals, first, cut, recover, pct, kept_rows, kept_vals, marks, fused):
    """Move the sums ``acc[first + i]``, i = 0 .. n-1, that pruning reads
    into rows/vals or kept_rows/kept_vals (rows i ascending) and clear them;
    return the column's entry count and its ``_tally``.

    Unless `fused`, every non-zero sum goes to rows/vals, branch-free (a
    branch on them mispredicts when about half the rows are reached), and
    the column is measured after.  `fused`: the column is measured first,
    over all n rows, in the chains of a run's lane (``_measure_lanes``), a
    row not reached adding 0 to the tally, which changes no sum, and the
    rows at or above the cutoff are marked; then only what
    pruning reads is taken out: the marked rows, a few percent of them
    (``_survivors``), or where pruning recovers every non-zero sum.  That
    spares the entries' moves in a column that fills most rows (as the
    heavy columns of large community graphs do), but the tally's sum of
    squares is a chain of dependent additions, which then runs over all n
    rows: a column filling fewer than half of them is measured after the
    scan.  The pass is scalar code, its counts integers, rather than
    ``_measure_lanes`` with one lane, whose counts are floating-point sums
    in chains of their own.
    """
    if not fused:
        m = _nonzero_entries(n, acc, first, 1, rows, vals)
        tally = _tally(rows, vals, m, cut, kept_rows, kept_vals)
    else:
        m = 0
        kept = 0
        peak = 0.0
        squares = 0.0
        mass = 0.0
        for i in range(uintp(n)):
            s = acc[uintp(first) + i]
            x = np.float64(np.float32(s))
            present = s != 0.0
            above = present & ((cut < 0.0) | (x >= cut))
            _mark(marks, i, above)
            m += present
            kept += above
            peak = max(peak, x)
            squares += x * x
            mass += x if above else 0.0
        tally = (kept, peak, squares, mass)
        if _recovers(tally, recover, pct):
            _nonzero_entries(n, acc, first, 1, rows, vals)
        else:
            _survivors(n, acc, first, 1, marks, 0, kept_rows, kept_vals)
    for i in range(uintp(n)):
        acc[uintp(first) + i] = 0.0
    return m, tally


@leaf
def _tally(rows, vals, m, cut, kept_rows, kept_vals):
    """Measure an expanded column for pruning (mcl-spec d.4): the count of
    the entries at or above the cutoff (all when ``cut < 0``), listed in
    kept_rows/kept_vals; its largest value; its sum of squares; the cutoff
    survivors' mass.  Sums run over the entries in row order."""
    kept = 0
    peak = 0.0
    squares = 0.0
    mass = 0.0
    for t in range(m):
        x = np.float64(vals[t])
        kept_rows[kept] = rows[t]
        kept_vals[kept] = vals[t]
        above = (cut < 0.0) | (x >= cut)
        kept += above
        peak = max(peak, x)
        squares += x * x
        mass += x if above else 0.0
    return kept, peak, squares, mass


@leaf
def _gather(n, u, acc, touched, bits, rows, vals):
    """Move the sums of the u touched rows, ascending, into rows/vals; clear acc.

    A few rows are sorted.  More are put in order through `bits`, a bitmap
    of the n rows (all clear on entry and on return): a bit set per row,
    then the words between the lowest and highest row read in order, each
    set bit found by counting trailing zeros.  That is a pass over at most
    n / 64 words instead of about u log u comparisons, which mispredict
    (``_constants.SORT_BELOW``).
    """
    if u * SORT_BELOW < n:
        # its stack: the free items past the u rows (n - u > 4095, more than SORT_STACK)
        sort_by_key(touched, touched[:0], 0, u, touched[u:])
        for t in range(u):
            i = touched[t]
            rows[t] = i
            vals[t] = np.float32(acc[i])
            acc[i] = 0.0
        return u
    one = uintp(1)
    low, high = uintp(n), uintp(0)
    for t in range(u):
        i = uintp(touched[t])
        word = i >> uintp(6)
        bits[word] |= one << (i & uintp(63))
        low, high = min(low, word), max(high, word)
    c = 0
    for word in range(low, high + one):
        b = bits[word]
        if b:
            bits[word] = 0
            while b:
                i = (uintp(word) << uintp(6)) + trailing_zeros(b)
                rows[c] = i
                vals[c] = np.float32(acc[i])
                acc[i] = 0.0
                c += 1
                b &= b - one
    return c


@njit(cache=True, nogil=True)
def group_size(n):
    """How many heavy columns of an n-row matrix are expanded together."""
    return max(1, min(GROUP_MAX, GROUP_BYTES // (8 * max(n, 1))))


@njit(cache=True, nogil=True)
def run_size(n, wide, lanes_up_to, narrow_up_to):
    """How many consecutive heavy columns of an n-row matrix are taken as one run:
    where the vector path may be used, RUN if runs are `wide` and n is at most
    LANE_RUN_NODES, else LANES up to `lanes_up_to` nodes and NARROW_LANES up to
    `narrow_up_to` (the engine's limits from its L2 cache: ``_constants.lane_nodes``
    and ``narrow_nodes``); elsewhere `group_size`."""
    if wide and n <= LANE_RUN_NODES:
        return RUN
    if n <= lanes_up_to:
        return LANES
    return NARROW_LANES if n <= narrow_up_to else group_size(n)


def _data(context, builder, array_type, array, item=None):
    """IR: the data pointer of `array` (of numba type `array_type`), as a pointer to `item`s if given."""
    data = context.make_array(array_type)(context, builder, array).data
    return data if item is None else builder.bitcast(data, item.as_pointer())


def _at(builder, data, at, item):
    """IR: a pointer to the `item` (a byte, a vector) that starts at element `at` of `data`."""
    return builder.bitcast(builder.gep(data, [at]), item.as_pointer())


def _emit_prefetch(context, builder, array_type, array, at):
    """IR hinting that ``array[at]``'s cache line will be read soon (``llvm.prefetch``)."""
    i32 = ir.IntType(32)
    where = _at(builder, _data(context, builder, array_type, array), at, ir.IntType(8))
    # the intrinsic's name carries its pointer type: "p0" (opaque) or "p0i8"
    name = "llvm.prefetch." + ("p0" if str(where.type) == "ptr" else "p0i8")
    fn = cgutils.get_or_insert_function(builder.module, ir.FunctionType(ir.VoidType(), [where.type, i32, i32, i32]), name)
    # read, keep in all cache levels, data cache
    builder.call(fn, [where, ir.Constant(i32, 0), ir.Constant(i32, 3), ir.Constant(i32, 1)])


@intrinsic
def _prefetch_line(typingctx, indices, data, ahead, ahead_end):
    """If ahead < ahead_end, prefetch the cache lines of entry `ahead` of a
    matrix's rows and values and return ``ahead + LINE``; else return ahead.

    An intrinsic, so that the step is emitted inside the hot loop: a jitted
    function returning `ahead` is left a call by LLVM, once per product.
    """
    sig = types.uintp(indices, data, ahead, ahead_end)

    def codegen(context, builder, signature, args):
        _, _, at, end = args
        due = builder.icmp_unsigned("<", at, end)
        with builder.if_then(due):
            for ty, arr in zip(signature.args[:2], args[:2]):
                _emit_prefetch(context, builder, ty, arr, at)
        return builder.select(due, builder.add(at, ir.Constant(at.type, LINE)), at)

    return sig, codegen


@leaf
def _prefetch_rest(indices, data, ahead, ahead_end):
    """Prefetch the lines of entries ahead .. ahead_end - 1 not fetched yet."""
    while ahead < ahead_end:
        ahead = _prefetch_line(indices, data, ahead, ahead_end)


@leaf
def _add_products(indices, exc, reading, data, q, end, f, acc, ahead, ahead_end):
    """acc[i] += float32(f * M[i, k]) for the entries q .. end - 1 of a column
    k (mcl's dense path), its rows read as `reading` (``_reading``) says,
    prefetching entries ahead .. ahead_end - 1 (the next column read) a line
    per LINE products."""
    check, row, e = reading
    while q < end:
        stop = min(q + uintp(LINE), end)
        ahead = _prefetch_line(indices, data, ahead, ahead_end)
        if indices.itemsize == 1 and check:  # never for whole rows, which the compiler knows
            row, e = _add_line(indices, exc, row, e, data, q, stop, f, acc)
        else:
            row, e = _add_line(indices, None, row, e, data, q, stop, f, acc)
        q = stop
    _prefetch_rest(indices, data, ahead, ahead_end)


@leaf
def _add_line(indices, exc, row, e, data, q, stop, f, acc):
    """``_add_products`` for entries q .. stop - 1, from `row` and ``exc[e]``
    (``_next_row``); returns where the rows are then."""
    for r in range(q, stop):
        row, e = _next_row(indices, exc, r, row, e)
        acc[row] += np.float64(f * data[r])
    return row, e


@leaf
def _next_column(colstart, colstop, cuts, pattern, t, m):
    """The entry range of the column read after ``pattern[t]``, of the m
    columns a column reads (empty after the last).

    Also prefetches the start, stop and block cuts of the column read after
    that one: they are looked up at random, and once the columns streamed
    through the caches have evicted them, a miss there stalls the pipeline.
    """
    nxt = uintp(t) + uintp(1)
    if nxt < uintp(m):
        later = nxt + uintp(1)
        if later < uintp(m):
            col = uintp(pattern[later])
            _prefetch_line(colstart, colstop, col, col + uintp(1))
            for h in range(cuts.shape[0]):
                _prefetch_line(cuts[h], cuts[h], col, col + uintp(1))
        k = uintp(pattern[nxt])
        return uintp(colstart[k]), uintp(colstop[k])
    return uintp(0), uintp(0)


@intrinsic
def _add_lanes(typingctx, acc, base, factors, value):
    """``acc[base + b] += float64(factors[b] * value)`` for the lanes b of the
    tuple `factors` (LANES or NARROW_LANES), as one vector float32 multiply,
    widening and double add (lane by lane the scalar arithmetic; numba's SLP
    vectoriser, which would find this, is off)."""
    sig = types.void(acc, base, factors, value)

    def codegen(context, builder, signature, args):
        acc_v, base_v, factors_v, value_v = args
        width = signature.args[2].count
        data = _data(context, builder, signature.args[0], acc_v)
        wide = ir.VectorType(ir.DoubleType(), width)
        narrow = ir.VectorType(ir.FloatType(), width)
        f = v = ir.Constant(narrow, ir.Undefined)
        for b in range(width):
            lane = ir.Constant(ir.IntType(32), b)
            f = builder.insert_element(f, builder.extract_value(factors_v, b), lane)
            v = builder.insert_element(v, value_v, lane)
        where = _at(builder, data, base_v, wide)
        total = builder.fadd(builder.load(where, align=8), builder.fpext(builder.fmul(f, v), wide))
        builder.store(total, where, align=8)
        return context.get_dummy_value()

    return sig, codegen


@intrinsic(prefer_literal=True)
def _measure_lanes(typingctx, buf, first, stride, n, cut, tallies, marks, mark_at, lanes):
    """Measure the `lanes` (a constant: LANES or NARROW_LANES) interleaved
    columns ``buf[first + i * stride + b]`` (b < lanes, rows i < n) for
    pruning, in one pass and one vector operation per row for all of them:
    each column's entry count and ``_tally``'s measure, as ``_scan``
    measures a column alone.

    Lane b's figures go to ``tallies[f * RUN + first + b]`` for the
    ``TALLY_FIELDS`` fields f, and bit b of byte ``mark_at + i`` of `marks`
    says whether row i's sum is at or above the cutoff (``_survivors``).
    Each lane's sums run over the rows in order, a row not reached adding 0,
    which changes no sum: ``_tally``'s chains over the column's entries.  The
    lanes are independent chains, so that the pass is not bound by the
    latency of one addition a row, as a column alone is.
    """
    if not isinstance(lanes, types.IntegerLiteral):
        return None
    sig = types.void(buf, first, stride, n, cut, tallies, marks, mark_at, lanes)

    def codegen(context, builder, signature, args):
        buf_v, first_v, stride_v, n_v, cut_v, tallies_v, marks_v, mark_at_v, _ = args
        width = signature.args[8].literal_value
        wide = ir.VectorType(ir.DoubleType(), width)
        narrow = ir.VectorType(ir.FloatType(), width)
        byte = ir.IntType(8)

        def splat(value):
            vec = ir.Constant(wide, ir.Undefined)
            for b in range(width):
                vec = builder.insert_element(vec, value, ir.Constant(ir.IntType(32), b))
            return vec

        data = _data(context, builder, signature.args[0], buf_v)
        out = _data(context, builder, signature.args[5], tallies_v)
        mark_base = _data(context, builder, signature.args[6], marks_v, byte)
        zero, one = (splat(ir.Constant(ir.DoubleType(), value)) for value in (0.0, 1.0))
        cuts = splat(cut_v)
        no_cut = builder.fcmp_ordered("<", cuts, zero)
        fields = [cgutils.alloca_once_value(builder, zero) for _ in range(TALLY_FIELDS)]
        with cgutils.for_range(builder, n_v) as loop:
            at = builder.add(first_v, builder.mul(loop.index, stride_v))
            sums = builder.load(_at(builder, data, at, wide), align=8)
            x = builder.fpext(builder.fptrunc(sums, narrow), wide)  # the float32 values, widened
            present = builder.fcmp_unordered("!=", sums, zero)
            above = builder.and_(present, builder.or_(no_cut, builder.fcmp_ordered(">=", x, cuts)))
            flags = builder.bitcast(above, ir.IntType(width))
            if width < 8:
                flags = builder.zext(flags, byte)
            builder.store(flags, builder.gep(mark_base, [builder.add(mark_at_v, loop.index)]))
            count, kept, peak, squares, mass = [builder.load(field) for field in fields]
            updated = (
                builder.fadd(count, builder.select(present, one, zero)),
                builder.fadd(kept, builder.select(above, one, zero)),
                builder.select(builder.fcmp_ordered(">", x, peak), x, peak),
                builder.fadd(squares, builder.fmul(x, x)),
                builder.fadd(mass, builder.select(above, x, zero)),
            )
            for field, value in zip(fields, updated):
                builder.store(value, field)
        for f, field in enumerate(fields):
            at = builder.add(first_v, ir.Constant(first_v.type, f * RUN))
            builder.store(builder.load(field), _at(builder, out, at, wide), align=8)
        return context.get_dummy_value()

    return sig, codegen


@leaf
def _lane_tally(tallies, b):
    """Lane b's entry count and ``_tally`` measure, from ``_measure_lanes``."""
    return np.int64(tallies[b]), (
        np.int64(tallies[RUN + b]), tallies[2 * RUN + b], tallies[3 * RUN + b], tallies[4 * RUN + b]
    )


@intrinsic
def _mark(typingctx, marks, at, flag):
    """Byte `at` of the words `marks` := `flag` (``_measure_lanes``' marks, for one column)."""
    sig = types.void(marks, at, flag)

    def codegen(context, builder, signature, args):
        marks_v, at_v, flag_v = args
        byte = ir.IntType(8)
        base = _data(context, builder, signature.args[0], marks_v, byte)
        builder.store(builder.zext(flag_v, byte), builder.gep(base, [at_v]))
        return context.get_dummy_value()

    return sig, codegen


@leaf
def _survivors(n, acc, first, stride, marks, lane, rows, vals):
    """Move the sums ``acc[first + i * stride]`` whose row i is marked at bit
    `lane` into rows/vals (rows ascending); return their count.

    The marks are a byte a row, bit b for lane b of LANES interleaved
    columns (``_measure_lanes``; one column: bit 0, ``_mark``), those of
    lanes LANES and up in the words after the first n bytes' (rounded up to
    words).  Eight rows' marks are read as one word, and only the rows
    marked are read: a few percent of them in the columns that take this
    path.
    """
    words = (uintp(n) + uintp(7)) >> uintp(3)
    start = (uintp(lane) >> uintp(3)) * words  # LANES = 8 bits a byte
    bits = np.uint64(0x0101010101010101) << np.uint64(uintp(lane) & uintp(LANES - 1))
    m = 0
    for w in range(words):
        x = marks[start + w] & bits
        while x:
            i = (w << uintp(3)) + (uintp(trailing_zeros(x)) >> uintp(3))
            rows[m] = i
            vals[m] = np.float32(acc[uintp(first) + i * uintp(stride)])
            m += 1
            x &= x - np.uint64(1)
    return m


@leaf
def _nonzero_entries(n, acc, first, stride, rows, vals):
    """Move the non-zero sums ``acc[first + i * stride]`` into rows/vals (rows
    i ascending), leaving them in place; return their count.  Branch-free:
    every row is written at the next free slot, which advances only past
    non-zero sums."""
    m = 0
    for i in range(uintp(n)):
        s = acc[uintp(first) + i * uintp(stride)]
        rows[m] = i
        vals[m] = np.float32(s)
        m += s != 0.0
    return m


@leaf
def _head_row(n, indices, exc, heads, ends, at, excs, b):
    """Read the row of column b's entry ``heads[b]`` into ``at[b]`` (n past its
    last entry), ``at[b]`` holding the row before it, ``excs[b]`` where its next
    row stored whole is (``_next_row``)."""
    if heads[b] < ends[b]:
        row, e = _next_row(indices, exc, uintp(heads[b]), uintp(at[b]), uintp(excs[b]))
        at[b], excs[b] = row, e
    else:
        at[b] = n


@leaf
def _group_union(n, colstart, colstop, indices, exc, excat, data, cols, first, size, heads, ends, at, excs, ks, halves,
                 factors):
    """The union of the patterns of columns cols[first .. first+size-1], ascending.

    Fills ks[:u] with the rows k read, factors[:u, b] with M[k, cols[first+b]]
    (0 where that column does not hold k) and halves[:u] with a bit per half
    of LANES columns that holds k, and where one column b alone holds k, also
    ``LONE | b << 3``; returns u and the vector operations the run takes (the
    lengths of the columns read, once per half reading them).
    `heads`, `ends`, `at` and `excs` (a slot per column) hold the walk's
    entries, ends, rows and exceptions (``_head_row``).
    """
    for b in range(size):
        heads[b] = colstart[cols[first + b]]
        ends[b] = colstop[cols[first + b]]
        at[b], excs[b] = 0, _exceptions(indices, excat, cols[first + b])
        _head_row(n, indices, exc, heads, ends, at, excs, b)
    u = 0
    work = 0
    while True:
        k = n
        for b in range(size):
            k = min(k, at[b])
        if k == n:
            return u, work
        h = 0
        readers = reader = 0
        for b in range(size):
            if at[b] == k:
                factors[u, b] = data[heads[b]]
                heads[b] += 1
                _head_row(n, indices, exc, heads, ends, at, excs, b)
                h |= 1 << (b // LANES)
                readers += 1
                reader = b
            else:
                factors[u, b] = np.float32(0.0)
        factors[u, size:] = np.float32(0.0)
        ks[u] = k
        work += (colstop[k] - colstart[k]) * ((h & 1) + (h >> 1))
        halves[u] = h | (LONE | reader << 3 if readers == 1 else 0)
        u += 1


@leaf
def _lanes(factors, t, first):
    """factors[t, first : first + LANES] as a tuple (one vector register)."""
    return (factors[t, first], factors[t, first + 1], factors[t, first + 2], factors[t, first + 3],
            factors[t, first + 4], factors[t, first + 5], factors[t, first + 6], factors[t, first + 7])


@leaf
def _add_read(indices, exc, reading, data, q, end, ahead, ahead_end, buf, stride, shift, f, g):
    """For the entries q .. end - 1 of a column read, its rows read as
    `reading` (``_reading``) says, ``_add_lanes``
    into the interleaved accumulators ``buf[i * stride + shift ...]`` of each
    entry's row i, with the lanes' factors `f`, and also into the LANES after
    them with `g` unless it is None; prefetching entries ahead .. ahead_end -
    1 (the next column read) a line per LINE products.

    A column with no row stored whole past its first entry is read without a
    check an entry, in the same loop: a matrix of whole rows is always read so.
    """
    check, i, e = reading
    bits = uintp(trailing_zeros(uintp(stride)))
    while q < end:
        stop = min(q + uintp(LINE), end)
        ahead = _prefetch_line(indices, data, ahead, ahead_end)
        if indices.itemsize == 1 and check:  # never for whole rows, which the compiler knows
            i, e = _add_lanes_line(indices, exc, i, e, data, q, stop, buf, bits, shift, f, g)
        else:
            i, e = _add_lanes_line(indices, None, i, e, data, q, stop, buf, bits, shift, f, g)
        q = stop
    _prefetch_rest(indices, data, ahead, ahead_end)


@leaf
def _add_lanes_line(indices, exc, i, e, data, q, stop, buf, bits, shift, f, g):
    """``_add_read`` for entries q .. stop - 1 (a stride of ``2**bits``), from
    row `i` and ``exc[e]`` (``_next_row``); returns where the rows are then."""
    for r in range(q, stop):
        i, e = _next_row(indices, exc, r, i, e)
        row = (i << bits) + uintp(shift)
        _add_lanes(buf, row, f, data[r])
        if g is not None:
            _add_lanes(buf, row + uintp(LANES), g, data[r])
    return i, e


@leaf
def _expand_heavy(n, colstart, colstop, cuts, indices, exc, excat, excn, data, cols, first, size, group, flops, sharing,
                  lone, least, buf, acc, heads, ends, at, excs, ks, halves, factors):
    """Accumulate the heavy dense-path columns cols[first .. first+size-1] together.

    The columns read are visited once for the whole group, in ascending
    order, so every accumulator still receives its products over k
    ascending: each sum is the one a column expanded alone gets.  When each
    vector operation would serve at least `sharing` products (the run's
    `flops` over its operations; half as many on a run of at most
    NARROW_LANES columns, whose operations move half a line), the
    accumulators are interleaved in `buf` (row i's at ``stride i .. stride i +
    size - 1``) and each entry read is one vector operation per half of the
    run that reads it; otherwise column
    cols[first+b] has its own accumulator ``buf[b n : (b + 1) n]``, filled `group`
    columns at a time so that the accumulators being filled stay in L2.
    Returns the stride of the interleaved accumulators (RUN, or LANES for a
    run of at most LANES columns, whose accumulators then take 64 bytes a
    row, half as many cache lines, or NARROW_LANES for one of at most
    NARROW_LANES, 32 bytes a row), or 0 where the lanes were not used, and
    the sums ``_lone_reads`` summed again in mcl's order.
    Runs of several columns are taken only on matrices of one row block
    (`cuts` empty: ``run_size``).

    On the vector path, the columns read by one column b of the run alone
    (often most of them) are summed apart, in the one-column accumulator
    `acc`, where they take at least `lone` times n products (``_lone_reads``).
    """
    u, work = _group_union(
        n, colstart, colstop, indices, exc, excat, data, cols, first, size, heads, ends, at, excs, ks, halves, factors
    )
    stride = NARROW_LANES if size <= NARROW_LANES else LANES if size <= LANES else RUN
    if buf.size >= stride * n and flops * LANES >= sharing * work * min(stride, LANES):
        # `at`, free once the union is made, says which columns sum their lone reads apart
        _lone_runs(colstart, colstop, size, lone * n if least >= 0.0 else np.inf, ks, halves, u, at)
        for t in range(u):
            if halves[t] & LONE:
                continue
            lo = _lanes(factors, t, 0)
            hi = _lanes(factors, t, LANES)
            ahead, ahead_end = _next_column(colstart, colstop, cuts, ks, t, u)
            k = uintp(ks[t])
            q, end = uintp(colstart[k]), uintp(colstop[k])
            reading = _reading(indices, exc, excat, excn, k, q, end)
            if stride == NARROW_LANES:
                _add_read(indices, exc, reading, data, q, end, ahead, ahead_end, buf, stride, 0, lo[:NARROW_LANES],
                          None)
            elif halves[t] == 3:
                _add_read(indices, exc, reading, data, q, end, ahead, ahead_end, buf, stride, 0, lo, hi)
            else:  # one half reads the column
                low_half = halves[t] == 1
                _add_read(indices, exc, reading, data, q, end, ahead, ahead_end, buf, stride, 0 if low_half else LANES,
                          lo if low_half else hi, None)
        again = 0
        for b in range(size):
            if at[b]:
                again += _lone_reads(n, colstart, colstop, indices, exc, excat, excn, data, cols[first + b], b,
                                     least, buf, stride, acc, ks, halves, factors, u)
        return stride, again
    for low in range(0, size, group):
        high = min(size, low + group)
        t = _next_read(factors, 0, u, low, high)
        while t < u:
            following = _next_read(factors, t + 1, u, low, high)
            ahead, ahead_end = uintp(0), uintp(0)
            if following < u:
                ahead, ahead_end = uintp(colstart[ks[following]]), uintp(colstop[ks[following]])
            for b in range(low, high):
                if factors[t, b] != 0.0:
                    k = uintp(ks[t])
                    q, end = uintp(colstart[k]), uintp(colstop[k])
                    _add_products(indices, exc, _reading(indices, exc, excat, excn, k, q, end), data, q, end,
                                  factors[t, b], buf[b * n : (b + 1) * n], ahead, ahead_end)
                    ahead = ahead_end  # fetched once per column read
            t = following
    return 0, 0


@leaf
def _lone_runs(colstart, colstop, size, bar, ks, halves, u, lone):
    """Set ``lone[b]`` for the columns b of the run whose columns read by no
    other column of the run take at least `bar` products, and keep the
    ``LONE`` mark (``_group_union``) only on those reads."""
    for b in range(size):
        lone[b] = 0
    for t in range(u):
        if halves[t] & LONE:
            k = ks[t]
            lone[halves[t] >> 3] += colstop[k] - colstart[k]
    for b in range(size):
        lone[b] = lone[b] >= bar
    for t in range(u):
        if halves[t] & LONE and not lone[halves[t] >> 3]:
            halves[t] &= 3


@leaf
def _lone_reads(n, colstart, colstop, indices, exc, excat, excn, data, j, b, least, buf, stride, acc, ks, halves, factors,
                u):
    """Sum the columns read by column j (lane b of the run) alone, marked
    ``LONE``, into `acc`, then add each row's sum to the lane's
    ``buf[i * stride + b]``, which holds the sum of the other columns read;
    return how many sums were summed again in k order.

    The two partial sums added make a row's sum in another order than mcl's
    (k ascending).  The sum can then differ in its last bits, but only its
    rounding to float32 is ever used, and that is the same unless a float32
    rounding midpoint lies within the sums' error bound
    (``_near_midpoint``), which is rare: such a sum is summed again in k
    order (``_entry_in_order``).  Below ``_exact_below`` (of the matrix's
    `least` value) every partial sum in any order is exact, and so is the
    sum.
    """
    t = _next_lone(halves, factors, 0, u, b)
    while t < u:
        following = _next_lone(halves, factors, t + 1, u, b)
        ahead, ahead_end = uintp(0), uintp(0)
        if following < u:
            ahead, ahead_end = uintp(colstart[ks[following]]), uintp(colstop[ks[following]])
        k = uintp(ks[t])
        q, end = uintp(colstart[k]), uintp(colstop[k])
        _add_products(indices, exc, _reading(indices, exc, excat, excn, k, q, end), data, q, end, factors[t, b], acc,
                      ahead, ahead_end)
        t = following
    terms = colstop[j] - colstart[j]
    exact = _exact_below(least, data, uintp(colstart[j]), uintp(colstop[j]))
    again = 0
    for i in range(uintp(n)):
        x = acc[i]
        if x != 0.0:
            at = i * uintp(stride) + uintp(b)
            y = buf[at]
            s = y + x
            if y != 0.0 and s >= exact and _near_midpoint(s, terms):
                s = _entry_in_order(i, colstart, colstop, indices, exc, excat, excn, data, ks, factors, u, b)
                again += 1
            buf[at] = s
            acc[i] = 0.0
    return again


@leaf
def _exact_below(least, data, q, end):
    """The bound below which the sums of the products of a column, entries q
    .. end - 1 of the matrix, are exact in any order, `least` being the least
    value of the matrix.

    On mcl's dense path each product is rounded to float32, so it is a
    multiple of ``2**(e - 23)``, where ``2**e`` is the largest power of two
    at most the least product: `least` times the column's least (non-zero)
    value.  A sum of non-negative such products below
    ``2**(e + 30)``, and every partial sum of it, takes at most 53 bits: it
    is exact in any order.  The bound keeps a margin for a sum computed with
    rounding (at most ``2**-30`` of it: a column of fewer than 2**23 entries).
    """
    low = np.float32(np.inf)
    for p in range(q, end):
        f = data[p]
        if f != 0.0:
            low = min(low, f)
    product = np.float32(np.float32(least) * low)
    if product == 0.0:
        return 0.0
    return math.ldexp(1.0 - 2.0**-30, math.frexp(product)[1] - 1 + 30)


@leaf
def _next_lone(halves, factors, t, u, b):
    """The first of the union's rows t .. u-1 marked ``LONE`` and read by
    column b (u if none)."""
    while t < u:
        if halves[t] & LONE and factors[t, b] != 0.0:
            return t
        t += 1
    return u


@intrinsic
def _double_bits(typingctx, x):
    """The bits of the double `x`, as an int64."""
    sig = types.int64(types.float64)

    def codegen(context, builder, signature, args):
        return builder.bitcast(args[0], ir.IntType(64))

    return sig, codegen


@leaf
def _near_midpoint(s, terms):
    """Whether a sum `s` of `terms` non-negative doubles, each summed in some
    order, may round to another float32 than the same sum in another order.

    Two orders of such a sum differ by at most ``2 (terms - 1)`` units in
    the last place of `s` (each is within ``(terms - 1) 2**-53`` times the
    exact sum of it), and their float32 roundings differ only where a float32
    rounding midpoint (the 29 bits below a float32's lie at 2**28) is that
    close: within the double's own binade, as the midpoints of the next are
    2**27 units away.
    """
    low = _double_bits(s) & MIDPOINT_BITS
    return abs(low - (MIDPOINT_BITS + 1) // 2) <= 2 * terms + 2


@leaf
def _entry_in_order(i, colstart, colstop, indices, exc, excat, excn, data, ks, factors, u, b):
    """Row i's sum of lane b's products over the union's rows k ascending
    (mcl's order), each column read searched for row i: by bisection where
    its rows are stored whole (runs take only matrices of one row block),
    else read from its first entry on."""
    s = 0.0
    for t in range(u):
        f = factors[t, b]
        if f != 0.0:
            k = uintp(ks[t])
            q, end = uintp(colstart[k]), uintp(colstop[k])
            if indices.itemsize != 1:
                high = end
                while q < high:
                    mid = (q + high) >> uintp(1)
                    if uintp(indices[mid]) < i:
                        q = mid + uintp(1)
                    else:
                        high = mid
                row = uintp(indices[q]) if q < end else uintp(0)
            else:
                check, row, e = _reading(indices, exc, excat, excn, k, q, end)
                while q < end:
                    if check:
                        row, e = _next_row(indices, exc, q, row, e)
                    else:
                        row, e = _next_row(indices, None, q, row, e)
                    if row >= i:
                        break
                    q += uintp(1)
            if q < end and row == i:
                s += np.float64(f * data[q])
    return s


@leaf
def _next_read(factors, t, u, low, high):
    """The first of the union's rows t .. u-1 read by one of the columns low .. high-1
    (u if none)."""
    while t < u:
        for b in range(low, high):
            if factors[t, b] != 0.0:
                return t
        t += 1
    return u


@leaf
def _expand_light(n, colstart, colstop, cuts, indices, exc, excat, data, j, pattern, acc, touched, branch_free):
    """Expand column j with float32-rounded products (mcl's dense path), listing rows.

    Sums run over k ascending in a double accumulator; sums that are exactly
    zero are dropped, as in mcl.  The rows are listed when first reached --
    all weights are positive, so ``acc[i] == 0`` means "not reached yet", and
    a product that underflows to zero adds nothing: the u rows reached are
    ``touched[:u]``; returns u.  The rows of column j go to `pattern` first
    (``_pattern``).

    `branch_free`: every product's row is written at ``touched[u]`` (which
    has room for n + 1 rows), and u advances past a new one, instead of a
    branch on whether the row is new.  That pays where about half the
    products reach a new row, and the branch mispredicts; where nearly
    all or nearly none do, the branch is predicted and costs less.
    """
    u = 0
    m = _pattern(colstart, colstop, cuts, indices, exc, excat, j, pattern)
    first = uintp(colstart[j])
    for t in range(m):
        k = uintp(pattern[t])
        f = data[first + uintp(t)]
        ahead, ahead_end = _next_column(colstart, colstop, cuts, pattern, t, m)
        e = _exceptions(indices, excat, k)
        for h in range(cuts.shape[0] + 1):
            base = uintp(h) << uintp(BLOCK_SHIFT)
            q, end = _block(colstart, colstop, cuts, k, h)
            row = uintp(0)
            while q < end:
                stop = min(q + uintp(LINE), end)
                ahead = _prefetch_line(indices, data, ahead, ahead_end)
                for r in range(q, stop):
                    row, e = _next_row(indices, exc, r, row, e)
                    i = base + row
                    prod = np.float64(f * data[r])
                    a = acc[i]
                    new = (a == 0.0) & (prod != 0.0)
                    if new or branch_free:
                        touched[u] = i
                        u += new
                    acc[i] = a + prod
                q = stop
        _prefetch_rest(indices, data, ahead, ahead_end)
    return u


@leaf
def _expand_sparse(n, colstart, colstop, cuts, indices, exc, excat, data, j, pattern, acc, mark, touched):
    """Expand column j with exact double products (mcl's sparse path).

    Every row reached is an entry, even one whose sum rounds to a float32
    zero (possible when pruning is off and tiny values survive): the u rows
    reached are ``touched[:u]``; returns u.
    """
    u = 0
    m = _pattern(colstart, colstop, cuts, indices, exc, excat, j, pattern)
    first = uintp(colstart[j])
    for t in range(m):
        k = uintp(pattern[t])
        f = np.float64(data[first + uintp(t)])
        ahead, ahead_end = _next_column(colstart, colstop, cuts, pattern, t, m)
        e = _exceptions(indices, excat, k)
        for h in range(cuts.shape[0] + 1):
            base = uintp(h) << uintp(BLOCK_SHIFT)
            q, end = _block(colstart, colstop, cuts, k, h)
            row = uintp(0)
            while q < end:
                stop = min(q + uintp(LINE), end)
                ahead = _prefetch_line(indices, data, ahead, ahead_end)
                for r in range(q, stop):
                    row, e = _next_row(indices, exc, r, row, e)
                    i = base + row
                    if mark[i] == 0:
                        mark[i] = 1
                        touched[u] = i
                        u += 1
                    acc[i] += f * np.float64(data[r])
                q = stop
        _prefetch_rest(indices, data, ahead, ahead_end)
    for t in range(u):
        mark[touched[t]] = 0
    return u


@leaf
def _at_least(rows, vals, m, bar):
    """Keep the entries of rows/vals[:m] with values at least `bar`, in order; return how many."""
    c = 0
    for t in range(m):
        if vals[t] >= bar:
            rows[c] = rows[t]
            vals[c] = vals[t]
            c += 1
    return c


@leaf
def _recovers(tally, recover, pct):
    """Whether pruning recovers entries below the cutoff (mcl-spec d.4): too
    few survive it, with too little mass."""
    n_prune, _, _, mass_prune = tally
    return recover > 0 and n_prune < recover and mass_prune < pct


@leaf
def _prune_column(
    j, rows, vals, m, tally, kept_rows, kept_vals, select, recover, pct, inflation, cut, scratch, hist, stats
):
    """Prune, rescale and inflate one expanded column in place (mcl-spec d.4).

    `tally` is the column's measure (``_tally``), with the entries at or
    above the cutoff in kept_rows/kept_vals.  Returns the number of entries
    kept (now in rows/vals[:count]) and the column's chaos.
    """
    stats[STAT_EXPANDED] += m
    n_prune, maxval, center, mass_prune = tally
    mass_final = mass_prune
    n_kept = n_prune
    if recover == 0 and n_prune == 0:
        stats[STAT_EMERGENCY] += 1
        rows[0] = j
        vals[0] = np.float32(1.0)
        m = n_kept = 1
    elif _recovers(tally, recover, pct):
        stats[STAT_RECOVER] += 1
        rbar = 0.0
        if m > recover:
            rbar = np.float64(
                _kth_largest(vals, m, cut if cut >= 0.0 else np.inf, recover - n_prune, scratch, hist)
            )
        mass_final, n_kept = _masked_mass(vals, m, rbar)
        m = _at_least(rows, vals, m, rbar)
    else:
        m = n_prune  # the post-cutoff vector
        if select > 0 and n_prune > select:
            stats[STAT_SELECT] += 1
            sbar = np.float64(_kth_largest(kept_vals, m, np.inf, select, scratch, hist))
            mass_sel, n_sel = _masked_mass(kept_vals, m, sbar)
            mass_final, n_kept = mass_sel, n_sel
            bar = sbar
            if recover > 0 and n_sel < recover and mass_sel < pct:
                stats[STAT_RECOVER_AFTER_SELECT] += 1
                bar = 0.0
                if m > recover:
                    bar = np.float64(_kth_largest(kept_vals, m, sbar, recover - n_sel, scratch, hist))
                mass_final, n_kept = _masked_mass(kept_vals, m, bar)
            m = _at_least(kept_rows, kept_vals, m, bar)
        for t in range(m):
            rows[t] = kept_rows[t]
            vals[t] = kept_vals[t]
    if mass_final < stats[STAT_MIN_MASS]:
        stats[STAT_MIN_MASS] = mass_final
    # ---- rescale (not a loop put in by the emergency: its mass is 0) -------
    if mass_final != 0.0:
        for t in range(m):
            vals[t] = np.float32(np.float64(vals[t]) / mass_final)
    chaos = np.float64(np.float32((maxval - center) * n_kept))  # mcl keeps it as a float
    # ---- inflation --------------------------------------------------------
    if m > 0 and inflation != 0.0 and not _inflate_vector(vals, 0, m, inflation):
        stats[STAT_EMPTIED] += 1
        m = 0
    stats[STAT_KEPT] += m
    return m, chaos


@leaf
def _expand_alone(colstart, colstop, cuts, indices, exc, excat, excn, data, j, pattern, buf):
    """Accumulate the heavy column j, alone, into `buf` (mcl's dense path):
    one row block after the other, so that the block's part of the
    accumulator stays in L2 (rows stored as gaps come in one block)."""
    m = _pattern(colstart, colstop, cuts, indices, exc, excat, j, pattern)
    first = uintp(colstart[j])
    blocks = cuts.shape[0] + 1
    for h in range(blocks):
        low = colstart if h == 0 else cuts[h - 1]
        high = colstop if h == blocks - 1 else cuts[h]
        part = buf[uintp(h) << uintp(BLOCK_SHIFT) :]
        for t in range(m):
            ahead, ahead_end = _next_column(low, high, cuts[:0], pattern, t, m)
            k = uintp(pattern[t])
            q, end = uintp(low[k]), uintp(high[k])
            _add_products(indices, exc, _reading(indices, exc, excat, excn, k, q, end), data, q, end,
                          data[first + uintp(t)], part, ahead, ahead_end)


@leaf
def _emit(rows, vals, m, out_idx, out_val, at, counts, c, blocks):
    """Append the m entries of a computed column (rows/vals) to the output
    from position `at`, rows as offsets in their block, and count them per
    row block in ``counts[c]``."""
    for t in range(m):
        out_idx[at + t] = rows[t] & BLOCK_MASK if blocks > 1 else rows[t]
        out_val[at + t] = vals[t]
    if blocks > 1:  # rows ascending: block after block
        for t in range(m):
            counts[c, rows[t] >> BLOCK_SHIFT] += 1
    else:
        counts[c, 0] = m


@njit(cache=True, nogil=True)
def _line_aligned_zeros(count):
    """`count` zeroed doubles starting at a cache line (64 bytes).

    The interleaved accumulators of a run (``_expand_heavy``) are read and
    written a row (64 bytes) at a time: a row that straddles two lines costs
    two.  numba aligns arrays to 32 bytes only, so an allocation on an odd
    multiple of 32 would split every row of the run.
    """
    room = np.zeros(count + LANES)  # LANES doubles: one line
    skip = (LANES - room.ctypes.data // 8 % LANES) % LANES
    return room[skip : skip + count]


@njit(cache=True, nogil=True)
def work_arrays(n, run):
    """A thread's work arrays for ``expand_columns`` on an n-row matrix and
    runs of `run` heavy columns (``run_size``):
    accumulator, marks, row bitmap and row list (n + 1 rows) of one column; the rows of the
    column being expanded (the columns it reads); the heavy runs'
    accumulators (the first one when runs have one column); the expanded
    column's rows, values and partition scratch; the rows and values that
    survive its cutoff; the union walk's
    heads, ends, their rows and exceptions (``_head_row``), rows read, halves and factors; the selection's histogram
    (``_kth_largest``); the measures of a run's interleaved columns
    (``_measure_lanes``); the rows at or above the cutoff, a byte a row per
    LANES columns (``_survivors``).  Accumulators start zeroed."""
    heavy = n if run > 1 else 0
    acc = np.zeros(n)
    return (
        acc, np.zeros(n, dtype=np.uint8), np.zeros((n + 63) // 64, dtype=np.uint64), np.empty(n + 1, dtype=np.int32),
        np.empty(n, dtype=np.int32), _line_aligned_zeros(run * n) if run > 1 else acc,
        np.empty(n, dtype=np.int32), np.empty(n, dtype=np.float32), np.empty(n, dtype=np.float32),
        np.empty(n, dtype=np.int32), np.empty(n, dtype=np.float32),
        np.empty(run, dtype=np.int64), np.empty(run, dtype=np.int64), np.empty(run, dtype=np.int64),
        np.empty(run, dtype=np.int64), np.empty(heavy, dtype=np.int32), np.empty(heavy, dtype=np.uint8),
        np.empty((heavy, RUN), dtype=np.float32),
        np.empty(RADIX_BUCKETS, dtype=np.int32), np.empty(TALLY_FIELDS * RUN),
        np.zeros(max(1, run // LANES) * ((n + 7) // 8), dtype=np.uint64),
    )


@njit(cache=True, nogil=True)
def expand_columns(
    n_rule, n, colstart, colstop, indices, exc, excat, excn, data, flops, cuts, order, pos_lo, pos_hi, cut, select,
    recover, pct, inflation, lane_sharing, lone, least, run, room, work,
):
    """Expand, prune, rescale and inflate columns ``order[pos_lo .. pos_hi - 1]``.

    Parameters
    ----------
    n_rule : int
        The node count in mcl's dense-path rule ``10 * flops_j >= n_rule``:
        the whole graph's, also when this matrix is one of its components.
    n : int
        Number of rows (= columns) of the matrix.
    colstart, colstop, indices, exc, excat, excn, data : arrays
        The column-stochastic matrix: column k's rows and values are
        ``indices[colstart[k] : colstop[k]]`` and ``data[...]`` (int32 or
        uint16, float32), rows ascending.  The columns may be stored in any
        order (for a CSC matrix, ``indptr[:-1]`` and ``indptr[1:]``).  Rows
        stored as one-byte gaps (uint8, one row block) have those after a gap
        of 256 or more (or a first row of 0) stored whole in `exc` (uint16),
        column k's from ``excat[k]`` on, ``excn[k]`` of them past its first
        entry (``_next_row``, ``_reading``); other rows take an empty `exc` of
        their own type and empty `excat` and `excn`.
    flops : int64 array
        Per column, the expansion work (``column_survey``).
    cuts : int64 array, shape (blocks - 1, n)
        Where each column's row blocks after the first start (``_block``;
        ``block_cuts`` for an int32 matrix): in block h a row is
        ``h * 2**BLOCK_SHIFT`` plus the offset stored in `indices`.  No rows:
        one block, rows stored whole.  A heavy column expanded alone fills
        its accumulator one block after the other, so that the block being
        filled stays in L2; each row still receives its products over k
        ascending.
    order : int64 array
        The columns in the order they are computed.  Heavy columns next to
        each other in it are expanded together, and do best when their
        patterns overlap (``column_survey``' leaders); no column's result depends
        on the order.
    pos_lo, pos_hi : int
        The positions in `order` to compute.
    cut : float
        The cutoff ``0.99999 / P``; a negative value means no cutoff.
    select, recover : int
        mcl's S and R (0 disables).
    pct : float
        Recovery mass threshold in [0, 1).
    inflation : float
        The inflation applied to the pruned, rescaled column; 0 leaves the
        column uninflated (an inflation sweep inflates copies itself).
    lane_sharing : float
        Runs of heavy columns take the vector path when each vector
        operation serves at least this many products (``LANE_SHARING``; ``inf``
        never, 0 always).  The result is the same either way.
    lone : float
        On the vector path, a column of a run sums the columns that it alone
        reads apart when they take at least this many times n products
        (``LONE_READS``; ``inf`` never, 0 always).  The result is the same
        either way.
    least : float
        The least value of the matrix, which bounds where a run's sums are
        exact in any order (``_exact_below``); where it is negative no
        column's sums are split (`lone` is then ignored).
    run : int
        The most heavy columns expanded together (``run_size``); the same
        as the work arrays were made for.
    room : int
        Entries the output starts with room for: an estimate of the kept
        entries of the columns, at least their count (ties kept by pruning
        can exceed it, and the output then grows).  Untouched room costs
        address space, not memory.
    work : tuple
        The calling thread's work arrays, from ``work_arrays(n, run)``; returned
        as received (accumulators zeroed).

    Returns
    -------
    counts : int64 array, shape (pos_hi - pos_lo, blocks)
        Entries kept per column and row block, in the order computed.
    out_idx, out_val : arrays
        The kept entries, column after column in the order computed, rows
        ascending (of `exc`'s type: offsets in their block; ``gap_rows``
        stores them as gaps).
    chaos : float
        The largest chaos of the columns (-inf for no column).
    stats : float64 array
        Counters, see the ``STAT_*`` slots.
    """
    out_idx = np.empty(max(room, 1), dtype=exc.dtype)
    out_val = np.empty(out_idx.size, dtype=np.float32)
    stats = np.zeros(N_STATS, dtype=np.float64)
    stats[STAT_MIN_MASS] = np.inf
    blocks = cuts.shape[0] + 1
    counts = np.zeros((pos_hi - pos_lo, blocks), dtype=np.int64)
    carry = np.zeros(3, dtype=np.int64)  # a run of heavy columns under way (see ``_columns``)
    pos, n_out = pos_lo, 0
    chaos_max = -np.inf  # mcl's maximum can be negative: (max - sum of squares) < 0
    while True:
        # `_columns` allocates nothing: it stops at a column that does not fit the output, which grows here
        pos, n_out, chaos, m = _columns(
            n_rule, n, colstart, colstop, indices, exc, excat, excn, data, flops, cuts, order, pos, pos_lo, pos_hi, cut,
            select, recover, pct, inflation, lane_sharing, lone, least, run, work, out_idx, out_val, n_out, counts,
            stats, carry,
        )
        chaos_max = max(chaos_max, chaos)
        if pos == pos_hi:
            return counts, out_idx[:n_out], out_val[:n_out], chaos_max, stats
        out_idx, out_val = _grown(out_idx, out_val, n_out, n_out + m)
        rows, vals = work[6], work[7]  # where `_columns` left that column
        _emit(rows, vals, m, out_idx, out_val, n_out, counts, pos - pos_lo, blocks)
        n_out += m
        pos += 1


@leaf
def _columns(
    n_rule, n, colstart, colstop, indices, exc, excat, excn, data, flops, cuts, order, pos, pos_lo, pos_hi, cut, select,
    recover, pct, inflation, lane_sharing, lone, least, run, work, out_idx, out_val, n_out, counts, stats, carry,
):
    """``expand_columns``' work, from position `pos` of `order`, the output
    holding `n_out` entries, until the last column or one whose entries do
    not fit the output.

    Returns the position and output size reached, the largest chaos, and
    the entry count of the column at that position, computed into the work
    arrays' rows and values but not written out (-1 after the last column).
    A run of heavy columns may then be under way: `carry` holds its size,
    whether its accumulators are interleaved (``_expand_heavy``) and how many
    of its columns are left, so that the next call goes on with it.
    """
    chaos_max = -np.inf
    (acc, mark, bits, touched, pattern, buf, rows, vals, scratch, kept_rows, kept_vals, heads, ends, at, excs, ks,
     halves, factors, hist, tallies, marks) = work
    blocks = cuts.shape[0] + 1
    size, lanes, left = carry[0], carry[1], carry[2]
    group = group_size(n)
    full = True  # the last heavy column filled most rows
    branch_free = False  # how the next light column lists its rows (``_expand_light``)
    while pos < pos_hi:
        if left == 0:
            # the run of heavy columns next in `order` on mcl's dense path, at most `run` long
            size = 0
            run_flops = 0
            while size < run and pos + size < pos_hi:
                f = flops[order[pos + size]]
                if f * 10 < n_rule or f * 2 < n:
                    break
                run_flops += f
                size += 1
            lanes = 0
            if size > 1:
                lanes, again = _expand_heavy(
                    n, colstart, colstop, cuts, indices, exc, excat, excn, data, order, pos, size, group, run_flops,
                    lane_sharing, lone, least, buf, acc, heads, ends, at, excs, ks, halves, factors,
                )
                stats[STAT_IN_ORDER] += again
                words = (n + 7) >> 3
                if lanes == NARROW_LANES:
                    _measure_lanes(buf, uintp(0), uintp(lanes), uintp(n), cut, tallies, marks, uintp(0), NARROW_LANES)
                for half in range(0, size if lanes > NARROW_LANES else 0, LANES):
                    _measure_lanes(buf, uintp(half), uintp(lanes), uintp(n), cut, tallies, marks,
                                   uintp(half * words), LANES)
            elif size == 1:
                _expand_alone(colstart, colstop, cuts, indices, exc, excat, excn, data, order[pos], pattern, buf)
            left = max(size, 1)
        j = order[pos]
        if size > 0:
            # heavy column b of the run: lane b of the interleaved accumulators, measured with the run's
            # other lanes, whose entries are taken out (all of them only where pruning recovers) and then
            # cleared with the last lane's; or buf[b * n : (b + 1) * n], measured in the scan if the heavy
            # column before filled most rows
            b = size - left
            if lanes:
                m, tally = _lane_tally(tallies, b)
                if _recovers(tally, recover, pct):
                    _nonzero_entries(n, buf, b, lanes, rows, vals)
                else:
                    _survivors(n, buf, b, lanes, marks, b, kept_rows, kept_vals)
                if left == 1:
                    for i in range(uintp(lanes * n)):
                        buf[i] = 0.0
            else:
                m, tally = _scan(n, buf, rows, vals, b * n, cut, recover, pct, kept_rows, kept_vals, marks, full)
                full = 2 * m > n
            stats[STAT_DENSE_PATH] += 1
            stats[STAT_LANES] += lanes > 0
        else:
            light = flops[j] * 10 >= n_rule  # mcl's rule for its dense product path
            if light:
                u = _expand_light(
                    n, colstart, colstop, cuts, indices, exc, excat, data, j, pattern, acc, touched, branch_free
                )
                # the next light column (likely of the same community) lists its rows as this one would have
                # been best listed: branch-free if a quarter to three quarters of its products reached a new row
                branch_free = flops[j] < 4 * u < 3 * flops[j]
                stats[STAT_DENSE_PATH] += 1
            else:
                u = _expand_sparse(
                    n, colstart, colstop, cuts, indices, exc, excat, data, j, pattern, acc, mark, touched
                )
            # from a quarter of the rows reached on, reading the whole accumulator costs less than putting
            # the rows in order (``_gather``); below, ordering them costs less
            if light and u * 4 > n:
                m, tally = _scan(n, acc, rows, vals, 0, cut, recover, pct, kept_rows, kept_vals, marks, 2 * u > n)
            else:
                m = _gather(n, u, acc, touched, bits, rows, vals)
                tally = _tally(rows, vals, m, cut, kept_rows, kept_vals)
        m, chaos = _prune_column(
            j, rows, vals, m, tally, kept_rows, kept_vals, select, recover, pct, inflation, cut, scratch, hist, stats
        )
        chaos_max = max(chaos_max, chaos)
        left -= 1
        if n_out + m > out_idx.size:
            carry[0], carry[1], carry[2] = size, lanes, left
            return pos, n_out, chaos_max, m
        _emit(rows, vals, m, out_idx, out_val, n_out, counts, pos - pos_lo, blocks)
        n_out += m
        pos += 1
    return pos, n_out, chaos_max, -1


@njit(cache=True, nogil=True)
def _grown(out_idx, out_val, n_out, need):
    """Copies of out_idx/out_val[:n_out] with room for at least `need` entries."""
    cap = out_idx.size
    while cap < need:
        cap *= 2
    grown_idx = np.empty(cap, dtype=out_idx.dtype)
    grown_val = np.empty(cap, dtype=np.float32)
    grown_idx[:n_out] = out_idx[:n_out]
    grown_val[:n_out] = out_val[:n_out]
    return grown_idx, grown_val


@njit(cache=True, nogil=True)
def gap_rows(counts, rows, gaps, exc, per, inner):
    """Rows as one-byte gaps: the form ``_next_row`` reads.

    `rows` (uint16, one row block) holds columns of ``counts[c]`` entries
    each, rows ascending within a column.  With `gaps` empty, count per
    column the rows to be stored whole (a gap of 0 or 256 or more) into
    `per`, and those past the column's first entry into `inner` (both
    zeroed).  Else write each entry's gap to `gaps` (uint8, 0 for a row
    stored whole) and the rows stored whole to `exc`, sized from `per`.
    `gaps` may be the memory of `rows` itself: an entry's gap is written
    after its row is read, at or before it.
    """
    fill = gaps.size > 0
    p = e = 0
    for c in range(counts.size):
        prev = 0
        for t in range(counts[c]):
            row = np.int64(rows[p])
            whole = row == prev or row - prev > 255
            if fill:
                gaps[p] = 0 if whole else row - prev
                if whole:
                    exc[e] = row
                    e += 1
            elif whole:
                per[c] += 1
                if t > 0:
                    inner[c] += 1
            prev = row
            p += 1
