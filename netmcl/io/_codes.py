"""Codes the byte scanners (:mod:`._scan`) report, and the conversion of the
values they leave to Python.  No numba here: the readers import this module
without loading numba."""

import numpy as np

# value status of a record
V_FAST = 0  #: value parsed here
V_MISSING = 1  #: no value on the line (mcl uses 1.0)
V_SLOW = 2  #: well-formed number, to be converted with Python's float()

# error codes
E_NONE = 0
E_ONE_FIELD = 1  #: a line with a single label
E_EMPTY_LABEL = 2  #: an empty or blank label (line starting with a TAB)
E_BAD_NUMBER = 3  #: a value that is not a decimal number
E_NONFINITE = 4  #: nan or inf
E_NEGATIVE = 5  #: a negative value
E_TOO_LARGE = 6  #: a value above float32's range (set by the caller)
E_SYNTAX = 7  #: native format: unexpected text
E_NEG_INDEX = 8  #: native format: negative index
E_EOF = 9  #: native format: file ends inside the matrix

# slots of the label-file scanner's state, carried from one block of the file to the next
S_LABELS = 0  #: labels numbered so far
S_NAME_BYTES = 1  #: bytes of their text kept
S_LINE = 2  #: lines read
S_FIRST_LINE = 3  #: the first line with an edge (0: none yet)
S_HEADER = 4  #: 1 while a header line is still to be skipped
N_STATE = 5

POW10 = np.array([10.0**k for k in range(23)], dtype=np.float64)
#: the largest float32: mcl stores weights as float32
FLT_MAX = float(np.finfo(np.float32).max)


def convert_slow(data, values, slow, starts, ends):
    """Convert in place, with Python's float(), the values ``values[slow]`` the
    scanner left (status V_SLOW); ``starts``/``ends`` are their byte spans.

    Returns the position in `slow` of the first value above the largest
    float32, or -1.
    """
    if not slow.size:
        return -1
    exact = np.array([float(data[a:b]) for a, b in zip(starts.tolist(), ends.tolist())])
    too_large = np.flatnonzero(exact > FLT_MAX)
    if too_large.size:
        return int(too_large[0])
    values[slow] = exact  # rounded once, to float32 values as mcl rounds them
    return -1
