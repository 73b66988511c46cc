"""The GPU engine's kernels (numba-cuda), written to mcl's arithmetic contract.

Every kernel reads an iterand through three arrays: column ``k`` holds the
entries ``rows[start[k] : start[k] + length[k]]`` (int32, ascending) and
``vals[...]`` (float32).  The start matrix is CSC (``start = indptr[:-1]``);
the pruned iterands are ELLPACK-R slabs (``start[k] = k * W``) with an
overflow pool after the slab for the columns longer than ``W``
(``netmcl.engines.gpu._engine``).

:func:`expand_prune` does a whole column per thread block, as mcl does it
(``mcl-spec.md`` d.4 and d.9):

* **expansion**: the block's threads own disjoint stripes of rows of one
  dense float64 accumulator per block; each thread walks the entries
  ``(k, f)`` of column ``j`` in ascending ``k`` and adds the products of
  the part of column ``k`` that falls in its stripe (found by binary search:
  rows are ascending).  Every sum is thus formed in ascending ``k`` by one
  thread, without atomics and without a barrier per ``k``.  On mcl's dense
  path (``10 * flops_j >= n_rule``) a product is rounded to float32 before it
  is added (:func:`_dense_product`); otherwise it is exact in float64
  (:func:`_exact_product`).
* the stripes write their entries, ascending, to the column's staging slots
  (rows reached; on the dense path only non-zero sums), rounded to float32.
* one thread then measures, prunes, rescales and inflates the column
  (:func:`_prune`, :func:`_inflate`): every sum there is sequential in row
  order, as in mcl.

``pow`` is the one step that is not IEEE basic arithmetic: on a device,
``math.pow`` is libdevice's ``__nv_pow`` (within 2 ulp of the exact power),
while mcl and the CPU engine call the C library's ``pow``.  Both are rounded
to float32, so they can differ only where the float64 power lies within a few
of its ulps of a float32 rounding midpoint.  :func:`_inflate` checks every
power for that (:func:`_ambiguous`) and leaves such a column un-inflated,
flagged, for the host to inflate with the CPU engine's kernel.  An inflation
of exactly 2 squares the value instead (exact in float64, and equal to
``pow``).  In numba's CUDA simulator ``math.pow`` is the C library's, so the
check never fires there unless asked to (``pow_check=ALWAYS``).

The interpretation of the limit runs here too (``GpuEngine.clusters``):
:func:`attractor_dag` marks the attractor DAG's entries in place, a column
per thread, with the host's arithmetic (``netmcl.interpret``);
:func:`count_arcs` and :func:`gather_arcs` lay chosen DAG arcs out as a CSC
pattern (for the components of the attractor systems, and for the few
nodes in several systems); :func:`spread_clusters` is one round of the
memberships' fixed point.

The kernels are cached on disk (``cache=True``): a process on a device
compiles them once per machine, not once per run (about 15 s).

No fused multiply-add reaches a rounding that the contract forbids, and no
division is approximate: ``tests/test_gpu.py`` compiles every kernel for
sm_90 and reads the PTX.
"""

import math

import numba
from numba import cuda

#: the most threads a block may have (CUDA's limit)
MAX_THREADS = 1024

#: pow_check values: never check the powers, check them (the default), flag every column (tests the host path)
NEVER, CHECK, ALWAYS = 0, 1, 2

#: what :func:`_inflate` returns
INFLATED, EMPTIED, PENDING = 1, 0, 2

#: pruning branches, as out_branch records them
PLAIN, RECOVERED, SELECTED, SELECTED_RECOVERED, EMERGENCY = 0, 1, 2, 3, 4

#: a float64 power within this relative distance (2**-49: at least 8 of its
#: ulps, against libdevice's 2 and glibc's < 1) of a float32 rounding midpoint
#: may round otherwise than the C library's ``pow``
POW_MARGIN = 2.0**-49


@cuda.jit(device=True)
def _dense_product(f, v):
    """mcl's dense path: the float32 product, then widened (``expand.c matrix_vector_array``)."""
    p = numba.float32(numba.float32(f) * numba.float32(v))
    return numba.float64(p)


@cuda.jit(device=True)
def _exact_product(f, v):
    """mcl's sparse path: the product of two floats, exact in float64 (``compose.c mclxVectorCompose``)."""
    return numba.float64(f) * numba.float64(v)


@cuda.jit(device=True)
def _lower_bound(rows, lo, hi, row):
    """The first position in rows[lo:hi] (ascending) holding a row >= `row`."""
    while lo < hi:
        mid = (lo + hi) >> 1
        if rows[mid] < row:
            lo = mid + 1
        else:
            hi = mid
    return lo


@cuda.jit(device=True)
def _ambiguous(d):
    """Whether the float64 `d` lies so near a float32 rounding midpoint that
    another correct-to-a-few-ulps ``pow`` could round to another float32."""
    step = d * numba.float64(POW_MARGIN)
    return numba.float32(d - step) != numba.float32(d + step)


@cuda.jit(device=True)
def _kth_largest(vals, o, m, limit, k, sel, sb):
    """The k-th largest of vals[o:o+m] among the entries < `limit` (float64),
    counted with multiplicity (mcl's ``mclvKBar``), as float64.

    Quickselect with a median-of-three pivot and a three-way partition, on a
    copy in sel[sb:], by one thread.
    """
    c = 0
    for p in range(m):
        v = vals[o + p]
        if numba.float64(v) < limit:
            sel[sb + c] = v
            c += 1
    r = c - k  # rank, ascending, 0-based
    lo = 0
    hi = c - 1
    while lo < hi:
        x = sel[sb + lo]
        y = sel[sb + ((lo + hi) >> 1)]
        z = sel[sb + hi]
        pivot = max(min(x, y), min(max(x, y), z))
        lt = lo
        i = lo
        gt = hi
        while i <= gt:
            v = sel[sb + i]
            if v < pivot:
                sel[sb + i] = sel[sb + lt]
                sel[sb + lt] = v
                lt += 1
                i += 1
            elif v > pivot:
                sel[sb + i] = sel[sb + gt]
                sel[sb + gt] = v
                gt -= 1
            else:
                i += 1
        if r < lt:
            hi = lt - 1
        elif r > gt:
            lo = gt + 1
        else:
            return numba.float64(pivot)
    return numba.float64(sel[sb + r])


@cuda.jit(device=True)
def _keep_at_least(rows, vals, o, m, bar):
    """Keep the entries of column slots o..o+m-1 whose values are >= `bar`
    (float64), in order; return their count and mass (float64, ascending)."""
    c = 0
    mass = numba.float64(0.0)
    for p in range(m):
        v = vals[o + p]
        x = numba.float64(v)
        if x >= bar:
            rows[o + c] = rows[o + p]
            vals[o + c] = v
            mass += x
            c += 1
    return c, mass


@cuda.jit(device=True)
def _inflate(vals, o, m, power, pow_check, sel, sb):
    """Raise vals[o:o+m] to `power` and rescale (mcl's ``mclvInflate``), one thread.

    Returns INFLATED; EMPTIED when the powers sum to <= 0; PENDING when a
    power is ambiguous (:func:`_ambiguous`) or every column is to be flagged:
    the values are then left as they were, for the host.
    """
    s = numba.float64(0.0)
    if power == 2.0:
        for p in range(m):
            x = numba.float64(vals[o + p])
            q = numba.float32(x * x)
            vals[o + p] = q
            s += numba.float64(q)
    else:
        if pow_check == ALWAYS:
            return PENDING
        for p in range(m):
            d = math.pow(numba.float64(vals[o + p]), power)
            if pow_check == CHECK and _ambiguous(d):
                return PENDING
            sel[sb + p] = numba.float32(d)
        for p in range(m):
            q = sel[sb + p]
            vals[o + p] = q
            s += numba.float64(q)
    if s <= 0.0:
        return EMPTIED
    for p in range(m):
        vals[o + p] = numba.float32(numba.float64(vals[o + p]) / s)
    return INFLATED


@cuda.jit(device=True)
def _rescale(vals, o, m, mass):
    """vals[o:o+m] divided by `mass` in float64, rounded to float32 (mcl's ``mclvScale``)."""
    for p in range(m):
        vals[o + p] = numba.float32(numba.float64(vals[o + p]) / mass)


@cuda.jit(device=True)
def _chaos(maxval, center, kept):
    """A column's chaos, rounded to float32 as mcl keeps it."""
    return numba.float64(numba.float32((maxval - center) * numba.float64(kept)))


@cuda.jit(device=True)
def _prune(j, rows, vals, o, m, cut, select, recover, pct, sel, sb):
    """Measure and prune the expanded column j in slots o..o+m-1 (mcl-spec d.4), one thread.

    Returns the kept count (the kept entries now first, in order), the
    branch taken, the final mass, and the chaos.
    """
    n_prune = 0
    maxval = numba.float64(0.0)
    center = numba.float64(0.0)
    mass_prune = numba.float64(0.0)
    for p in range(m):
        x = numba.float64(vals[o + p])
        maxval = max(maxval, x)
        center += x * x
        if cut < 0.0 or x >= cut:
            n_prune += 1
            mass_prune += x
    branch = PLAIN
    mass_final = mass_prune
    n_kept = n_prune
    if recover == 0 and n_prune == 0:  # "Emergency measure: added loop"
        branch = EMERGENCY
        rows[o] = j
        vals[o] = numba.float32(1.0)
        m = 1
        n_kept = 1
    elif recover > 0 and n_prune < recover and mass_prune < pct:  # recovery from the whole column
        branch = RECOVERED
        rbar = numba.float64(0.0)
        if m > recover:
            limit = cut if cut >= 0.0 else math.inf
            rbar = _kth_largest(vals, o, m, limit, recover - n_prune, sel, sb)
        m, mass_final = _keep_at_least(rows, vals, o, m, rbar)
        n_kept = m
    else:
        if cut >= 0.0:  # the post-cutoff vector
            m, mass_prune = _keep_at_least(rows, vals, o, m, cut)
        if select > 0 and n_prune > select:
            branch = SELECTED
            sbar = _kth_largest(vals, o, m, math.inf, select, sel, sb)
            bar = sbar
            n_sel = 0
            mass_sel = numba.float64(0.0)
            for p in range(m):
                x = numba.float64(vals[o + p])
                if x >= sbar:
                    n_sel += 1
                    mass_sel += x
            if recover > 0 and n_sel < recover and mass_sel < pct:  # recovery from the post-cutoff vector
                branch = SELECTED_RECOVERED
                bar = numba.float64(0.0)
                if m > recover:
                    bar = _kth_largest(vals, o, m, sbar, recover - n_sel, sel, sb)
            m, mass_final = _keep_at_least(rows, vals, o, m, bar)
            n_kept = m
    if mass_final != 0.0:
        _rescale(vals, o, m, mass_final)
    return m, branch, mass_final, _chaos(maxval, center, n_kept)


@cuda.jit(cache=True)
def pow_probe(x, power, out, flagged):
    """out[i] = float32(pow(x[i], power)) as the engine computes it, and whether
    :func:`_ambiguous` flags it: how the tests compare the device's ``pow``
    with the C library's."""
    for i in range(cuda.grid(1), x.size, cuda.gridsize(1)):
        d = math.pow(numba.float64(x[i]), power)
        out[i] = numba.float32(d)
        flagged[i] = 1 if _ambiguous(d) else 0


@cuda.jit(cache=True)
def survey(n, start, length, rows, flops):
    """flops[j] = the summed lengths of the columns that column j reads (its expansion work)."""
    for j in range(cuda.grid(1), n, cuda.gridsize(1)):
        s = 0
        a = start[j]
        for q in range(length[j]):
            s += length[rows[a + q]]
        flops[j] = s


@cuda.jit(cache=True)
def copy_spans(ncols, src_start, length, dst_start, src_rows, src_vals, dst_rows, dst_vals):
    """Copy column c's `length[c]` entries from src_start[c] to dst_start[c], c < ncols."""
    for c in range(cuda.grid(1), ncols, cuda.gridsize(1)):
        a = src_start[c]
        b = dst_start[c]
        for q in range(length[c]):
            dst_rows[b + q] = src_rows[a + q]
            dst_vals[b + q] = src_vals[a + q]


@cuda.jit(cache=True)
def inflate_columns(n, start, length, vals, power, pow_check, sel, status):
    """Inflate every column in place (the second half of an iteration run
    without inflation); status[c]: :func:`_inflate`'s answer.  sel: float32
    scratch of n entries per thread of the grid."""
    g = cuda.grid(1)
    for c in range(g, n, cuda.gridsize(1)):
        status[c] = INFLATED
        if length[c] > 0:
            status[c] = _inflate(vals, start[c], length[c], power, pow_check, sel, g * n)


@cuda.jit(cache=True)
def expand_prune(
    n, n_rule, start, length, rows, vals, flops, col_lo, col_hi, stage_at, st_rows, st_vals, acc, mark, sel,
    tally, cut, select, recover, pct, power, pow_check,
    out_kept, out_chaos, out_expanded, out_branch, out_dense, out_status, out_mass,
):
    """Expand, prune, rescale and inflate columns col_lo..col_hi-1, a column per block.

    Column c's expansion goes to st_rows/st_vals from stage_at[c - col_lo]
    (room for min(n, flops[c]) entries, at least one); its kept entries stay
    there, first.  acc (float64) and mark (uint8) hold n entries per block
    of the grid, zero on entry and on return; sel (float32) n per block;
    tally (int64) a slot per thread of the grid, where each thread leaves its
    count of the column's entries for the block to lay them out (global
    memory, not shared: numba's simulator can hand two threads of a block
    different copies of a shared array, and a slot per thread costs nothing
    beside the column's expansion).
    power == 0: no inflation.  Per column: out_kept, out_chaos, out_expanded
    (entries before pruning), out_branch, out_dense (1: mcl's dense path),
    out_status (:func:`_inflate`'s answer), out_mass (the kept mass before
    rescaling).
    """
    t = cuda.threadIdx.x
    threads = cuda.blockDim.x
    b = cuda.blockIdx.x
    base = b * n
    slots = b * threads
    lo_row = (t * n) // threads
    hi_row = ((t + 1) * n) // threads
    for c in range(col_lo + b, col_hi, cuda.gridDim.x):
        dense = 10 * flops[c] >= n_rule
        first = start[c]
        for q in range(length[c]):  # k ascending
            k = rows[first + q]
            f = vals[first + q]
            end = start[k] + length[k]
            a = _lower_bound(rows, start[k], end, lo_row)
            while a < end and rows[a] < hi_row:
                i = rows[a]
                if dense:
                    acc[base + i] += _dense_product(f, vals[a])
                else:
                    acc[base + i] += _exact_product(f, vals[a])
                mark[base + i] = 1
                a += 1
        count = 0
        for i in range(lo_row, hi_row):
            if mark[base + i] != 0 and (not dense or acc[base + i] != 0.0):
                count += 1
        tally[slots + t] = count
        cuda.syncthreads()
        o = stage_at[c - col_lo]
        at = o
        for u in range(t):
            at += tally[slots + u]
        for i in range(lo_row, hi_row):
            if mark[base + i] != 0:
                s = acc[base + i]
                if not dense or s != 0.0:
                    st_rows[at] = i
                    st_vals[at] = numba.float32(s)
                    at += 1
                acc[base + i] = 0.0
                mark[base + i] = 0
        cuda.syncthreads()
        if t == 0:
            m = 0
            for u in range(threads):
                m += tally[slots + u]
            kept, branch, mass, chaos = _prune(c, st_rows, st_vals, o, m, cut, select, recover, pct, sel, base)
            status = INFLATED
            if kept > 0 and power != 0.0:
                status = _inflate(st_vals, o, kept, power, pow_check, sel, base)
                if status == EMPTIED:
                    kept = 0
            out_kept[c] = kept
            out_chaos[c] = chaos
            out_expanded[c] = m
            out_branch[c] = branch
            out_dense[c] = 1 if dense else 0
            out_status[c] = status
            out_mass[c] = mass
        cuda.syncthreads()


# ---------------------------------------------------------------------------
# interpretation of the limit on the device (``GpuEngine.clusters``)

if getattr(numba.config, "ENABLE_CUDASIM", 0):
    @cuda.jit(device=True)
    def _mul_rn(a, b):
        """a * b in float64, rounded on its own (the simulator's NumPy product is)."""
        return numba.float64(a) * numba.float64(b)

    @cuda.jit(device=True)
    def _add_rn(a, b):
        return numba.float64(a) + numba.float64(b)
else:
    from numba.cuda import libdevice

    @cuda.jit(device=True)
    def _mul_rn(a, b):
        """a * b in float64, rounded on its own: ``mul.rn`` is never contracted into a
        fused multiply-add (libdevice's functions are stubs in the simulator, hence two versions)."""
        return libdevice.dmul_rn(numba.float64(a), numba.float64(b))

    @cuda.jit(device=True)
    def _add_rn(a, b):
        return libdevice.dadd_rn(numba.float64(a), numba.float64(b))


@cuda.jit(cache=True)
def attractor_dag(n, start, length, rows, vals, keep, attractor):
    """mcl's attractor DAG of the limit, a column per thread (``netmcl.interpret._attractor_dag``).

    keep[slot] = 1 for the entries of column j at or above its bar
    (``0.999 * diag + 0.001 * max`` when the diagonal is below the column's
    maximum, else ``diag / 1.01``; products and sum rounded one by one, as
    NumPy does) whose value, the column then normalised, is at least
    ``1 / (kept + 1)``; 0 for the others.  attractor[j] = 1 when the
    diagonal entry is kept.
    """
    for j in range(cuda.grid(1), n, cuda.gridsize(1)):
        o = start[j]
        m = length[j]
        colmax = numba.float64(0.0)
        diag = numba.float64(0.0)
        for p in range(m):
            x = numba.float64(vals[o + p])
            if x > colmax:
                colmax = x
            if rows[o + p] == j:
                diag = x
        if diag < colmax:
            bar = _add_rn(_mul_rn(numba.float64(0.999), diag), _mul_rn(numba.float64(0.001), colmax))
        else:
            bar = diag / numba.float64(1.01)
        count = 0
        mass = numba.float64(0.0)
        for p in range(m):
            x = numba.float64(vals[o + p])
            if x >= bar:
                count += 1
                mass += x
        if mass == 0.0:
            mass = numba.float64(1.0)
        least = numba.float64(1.0) / (numba.float64(count) + numba.float64(1.0))
        loop = 0
        for p in range(m):
            x = numba.float64(vals[o + p])
            k = 0
            if x >= bar and numba.float64(numba.float32(x / mass)) >= least:
                k = 1
                if rows[o + p] == j:
                    loop = 1
            keep[o + p] = k
        attractor[j] = loop


@cuda.jit(cache=True)
def count_arcs(n, start, length, rows, keep, colsel, rowsel, counts):
    """counts[j]: the kept entries of column j in rows i with rowsel[i], when colsel[j] (else 0)."""
    for j in range(cuda.grid(1), n, cuda.gridsize(1)):
        c = 0
        if colsel[j] != 0:
            o = start[j]
            for p in range(length[j]):
                if keep[o + p] != 0 and rowsel[rows[o + p]] != 0:
                    c += 1
        counts[j] = c


@cuda.jit(cache=True)
def gather_arcs(n, start, length, rows, keep, colsel, rowsel, at, out):
    """The rows :func:`count_arcs` counts, column j's from out[at[j]], ascending: a CSC pattern."""
    for j in range(cuda.grid(1), n, cuda.gridsize(1)):
        if colsel[j] != 0:
            o = start[j]
            w = at[j]
            for p in range(length[j]):
                i = rows[o + p]
                if keep[o + p] != 0 and rowsel[i] != 0:
                    out[w] = i
                    w += 1


@cuda.jit(cache=True)
def spread_clusters(n, start, length, rows, keep, attractor, first, last, changed):
    """One round of the memberships' fixed point: a node that is no attractor
    takes the smallest (first) and largest (last) cluster of the nodes its DAG
    column points to.  Each thread writes its own node only; the host repeats
    the rounds until none changes anything."""
    for d in range(cuda.grid(1), n, cuda.gridsize(1)):
        if attractor[d] == 0:
            f = first[d]
            g = last[d]
            o = start[d]
            for p in range(length[d]):
                if keep[o + p] != 0:
                    i = rows[o + p]
                    if first[i] < f:
                        f = first[i]
                    if last[i] > g:
                        g = last[i]
            if f != first[d] or g != last[d]:
                first[d] = f
                last[d] = g
                changed[0] = 1
