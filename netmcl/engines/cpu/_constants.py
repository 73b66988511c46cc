"""Constants shared by the CPU kernels and the engine that calls them (no numba here:
the engine imports them without loading numba)."""

# Slots of the per-chunk statistics vector returned by ``expand_columns``.
STAT_EXPANDED = 0  # entries of the expanded (unpruned) columns
STAT_KEPT = 1  # entries kept after pruning
STAT_RECOVER = 2  # columns that took the recovery branch
STAT_SELECT = 3  # columns that took the selection branch
STAT_RECOVER_AFTER_SELECT = 4  # columns recovered after selection
STAT_EMERGENCY = 5  # columns replaced by a loop (R == 0 and nothing kept)
STAT_DENSE_PATH = 6  # columns expanded on mcl's float32-product path
STAT_EMPTIED = 7  # columns emptied by inflation (sum of powers <= 0)
STAT_LANES = 8  # dense-path columns expanded together on the vector path
STAT_IN_ORDER = 9  # sums of a run's lone reads summed again in mcl's order (``_kernels._lone_reads``)
STAT_MIN_MASS = 10  # smallest kept mass (before rescaling) of a column
N_STATS = 11
#: what the CPU kernels measure of each column of a run at once, in runs of RUN
#: doubles: the entries, those at or above the cutoff, the largest, the sum of
#: squares, the mass at or above the cutoff
TALLY_FIELDS = 5

#: the mark ``_kernels._group_union`` gives a column read by one column of a run alone
LONE = 4
#: the bits of a double below a float32's 24 (a float32 rounding midpoint has 2**28 there)
MIDPOINT_BITS = (1 << 29) - 1

#: int32 rows or float32 values in one 64-byte cache line
LINE = 16
#: bytes of double accumulators that heavy columns expanded together may use:
#: they then read each column of the matrix once for the whole group, and the
#: accumulators stay within a core's L2 cache
GROUP_BYTES = 1 << 19
#: most heavy columns expanded together on the scalar path, and the lanes of
#: one vector operation (eight doubles: one cache line, one AVX-512 register)
GROUP_MAX = LANES = 8
#: heavy columns expanded together on the vector path: two halves of LANES
RUN = 2 * LANES
#: at most this many nodes have the heavy columns of their matrix taken LANES at a
#: time, and only where their interleaved accumulators, 64 bytes a row, take at
#: most half a core's L2 cache (``lane_nodes``; at 50k nodes, 3.2 MB, gen-50k's
#: second iteration took 31 s against 22 s on an Intel Xeon's 2 MB)
LANE_NODES = 1 << 14
#: heavy columns expanded together on the vector path on matrices past
#: ``lane_nodes``: half a line a row
NARROW_LANES = LANES // 2
#: at most this many nodes (one row block) have the heavy columns of their matrix
#: taken NARROW_LANES at a time, and only where their interleaved accumulators,
#: 32 bytes a row, fit a core's L2 cache (``narrow_nodes``)
NARROW_RUN_NODES = 1 << 16
#: largest matrix whose heavy columns are taken RUN at a time where runs are
#: wide (`WIDE_RUNS`): their interleaved accumulators then take 128 bytes a row,
#: at most 1 MB; larger matrices take shorter runs (gen-10k's second iteration:
#: 5.7 s against 6.0 s with RUN)
LANE_RUN_NODES = 1 << 13
#: the L2 cache of a core where the operating system does not say (an Intel
#: Xeon's, on which LANE_NODES and NARROW_RUN_NODES were measured)
L2_DEFAULT = 2 << 20


def lane_nodes(l2):
    """The largest matrix whose heavy columns are taken LANES at a time, for an
    L2 cache of `l2` bytes: 16,384 nodes on 2 MB, 4,096 on 512 KB.

    Examples
    --------
    >>> lane_nodes(2 << 20), lane_nodes(512 << 10)
    (16384, 4096)
    """
    return min(LANE_NODES, l2 // (2 * LANES * 8))


def narrow_nodes(l2):
    """The largest matrix whose heavy columns are taken NARROW_LANES at a time,
    for an L2 cache of `l2` bytes: 65,536 nodes on 2 MB, 16,384 on 512 KB.
    Measured, whole runs at 1 thread: on an Intel Xeon's 2 MB, the 50k-node
    generated graph's second iteration took 44-48 s against 53-55 s for
    columns expanded alone; on an AMD EPYC's Zen 3 core (512 KB), the 10k-node
    generated graph and BioNEV's STRING network took 0.93x the time of runs of
    LANES, which overflow it, while the 50k-node graph, whose runs of four
    would overflow it too, took 1.03x the time of columns alone in them (3
    pairs; 0.88-0.92x inside one process).

    Examples
    --------
    >>> narrow_nodes(2 << 20), narrow_nodes(512 << 10)
    (65536, 16384)
    """
    return min(NARROW_RUN_NODES, l2 // (NARROW_LANES * 8))


def _amd():
    """Whether this machine's CPU is AMD's (False where there is no /proc/cpuinfo)."""
    try:
        with open("/proc/cpuinfo", "rb") as f:
            return b"AuthenticAMD" in f.read(4096)
    except OSError:
        return False


#: whether runs of RUN are taken at all: on AMD's cores (Zen, sessions 5-14),
#: where they were measured to pay; on Intel's (an Emerald Rapids Xeon, whole
#: runs at 1 thread) runs of LANES are 4-7 % faster on Krogan, ProCope
#: combined and the dense STRING-like graph
WIDE_RUNS = _amd()
#: the vector path pays when each vector operation serves at least this many
#: of the run's products (measured, whole runs at 1 thread: 1.5 beats 2 by up
#: to 10 % on the dense STRING-like graph and ties elsewhere; 3 loses 10-40 %),
#: and runs of NARROW_LANES, whose operations move half a line, half as many
#: (on the 50k-node generated graph they serve 1.36, and take 0.83x the time
#: of columns expanded alone)
LANE_SHARING = 1.5
#: on the vector path, a column of a run sums the columns read by it alone apart,
#: in a one-column accumulator, when they take at least this many times n
#: products: then the accumulator's rows, 8 to a cache line, take 0.73 lines an
#: entry read on gen-10k instead of 1, and the interleaved rows are read again
#: once (whole runs alternated at 1 thread, session 42: gen-10k 0.90-0.92x the
#: time, Krogan 0.93x, ProCope combined 0.92-0.94x, BioNEV 0.95-0.97x; with every
#: column's lone reads summed apart, BioNEV 1.02-1.04x, the STRING-like graph 1.02x)
LONE_READS = 16
#: a column of u rows out of n is put in row order by sorting its rows when
#: u * SORT_BELOW < n, else through a bitmap of the n rows: sorting costs
#: about 30 ns a row at these sizes, a bitmap about 0.5 ns per 64 rows
SORT_BELOW = 4096
#: pruning finds the k-th largest of fewer entries than this by quickselect, of more by
#: radix select, whose fixed cost (three histograms of up to 2,048 counters) is then paid back
RADIX_BELOW = 512
#: the radix select's histogram: 11 bits of the keys a pass
RADIX_BUCKETS = 1 << 11
#: a matrix of more than 65,536 nodes keeps its rows as uint16 offsets within
#: blocks of 2**BLOCK_SHIFT rows: a column's entries are stored block after
#: block, and the iterand's ``cuts`` say where each block after the first
#: starts.  An entry then takes 6 bytes instead of 8, and a heavy column,
#: expanded alone, fills its accumulator one block (512 KB of doubles) after
#: the other, so that the block being filled stays in L2 (gen-200k's second
#: iteration, 600 columns alternated in one process: 0.92x the time of int32
#: rows filled in 4 row ranges)
BLOCK_SHIFT = 16
BLOCK_MASK = (1 << BLOCK_SHIFT) - 1
#: at most this many blocks (262,144 nodes); a larger matrix keeps int32 rows in
#: one block (the 1M-node graph filled in 16 row ranges had used a quarter more
#: CPU than with one when it was stopped unfinished)
BLOCK_MAX = 4
