"""Constants shared by the CPU kernels and the engine that calls them (no numba here:
the engine imports them without loading numba).

Heavy columns are expanded together, in runs, into interleaved double
accumulators: a run reads each entry of the columns its members share once
for all of them.  A run's accumulators take 8 bytes a row per column, so the
run length falls as the matrix grows, to keep them in a core's L2 cache
(``lane_nodes``, ``narrow_nodes``); past that a heavy column is expanded alone.

A matrix of more than 65,536 nodes and at most BLOCK_MAX blocks keeps its
rows as uint16 offsets within blocks of 2**BLOCK_SHIFT rows: a column's entries are stored block after
block, and the iterand's ``cuts`` say where each block after the first
starts.  An entry then takes 6 bytes instead of 8, and a heavy column,
expanded alone, fills its accumulator one block (512 KB of doubles) after the
other, so that the block being filled stays in L2.
"""

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
#: accumulator bytes of heavy columns expanded together on the scalar path: more share each read, until L2 spills
GROUP_BYTES = 1 << 19
#: most heavy columns expanded together on the scalar path, and the lanes of
#: one vector operation (eight doubles: one 64-byte cache line, one 512-bit register)
GROUP_MAX = LANES = 8
#: heavy columns expanded together on the vector path: two halves of LANES
RUN = 2 * LANES
#: most nodes in runs of LANES (64 bytes a row, in half of L2: ``lane_nodes``): runs share reads until they spill
LANE_NODES = 1 << 14
#: heavy columns expanded together on the vector path on matrices past
#: ``lane_nodes``: half a line a row
NARROW_LANES = LANES // 2
#: most nodes (one row block) in runs of NARROW_LANES (32 bytes a row, in L2: ``narrow_nodes``): the same trade
NARROW_RUN_NODES = 1 << 16
#: most nodes in runs of RUN where runs are wide (128 bytes a row, at most 1 MB): longer runs share more, in more cache
LANE_RUN_NODES = 1 << 13
#: a core's L2 cache where the operating system does not say: larger takes longer runs, which spill on a smaller cache
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

    Their accumulators, 32 bytes a row, then fit the whole cache: a run of
    four still reads each shared entry once for all four, where a run of
    LANES, twice the bytes, would spill out of L2.

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


#: runs of RUN share each read among twice the columns, in twice the bytes: AMD's cores gain from it, Intel's lose
WIDE_RUNS = _amd()
#: products a vector operation must serve for the vector path (half in runs of NARROW_LANES): lower adds more zeros
LANE_SHARING = 1.5
#: a run's column sums its lone reads apart past this many times n products: 8 rows a line, against one more pass
LONE_READS = 16
#: u of n rows are sorted if u * SORT_BELOW < n, else ordered by a bitmap: u log u compares against n / 64 words
SORT_BELOW = 4096
#: quickselect below this many entries, radix select above: mispredicted compares against three histograms' fixed cost
RADIX_BELOW = 512
#: the radix select's histogram, 11 bits of the keys a pass: fewer passes against more counters to clear and scan
RADIX_BUCKETS = 1 << 11
#: log2 of a row block's rows: 16, all that a uint16 offset addresses (the module's docstring)
BLOCK_SHIFT = 16
BLOCK_MASK = (1 << BLOCK_SHIFT) - 1
#: most row blocks (262,144 nodes), past which rows stay int32: each block splits every column read once more
BLOCK_MAX = 4
