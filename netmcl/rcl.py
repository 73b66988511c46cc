"""RCL: multi-resolution consensus clustering from a set of clusterings, as mcl's ``rcl`` computes it.

Restricted contingency linkage (RCL) turns several clusterings of one network
(for instance mcl at a range of inflations) into one hierarchy of nested
consensus clusters, and cuts it at chosen *resolutions* (cluster sizes).  The
three steps are those of ``rcl setup / tree / select`` (mcl 22-282):

1. **The RCL network** (``clm vol -write-rcl``).  Every edge ``i - j`` of the
   network gets a weight from each pair of clusterings ``(P, Q)``: when ``i``
   and ``j`` are together in a cluster ``A`` of ``P`` and in a cluster ``B`` of
   ``Q``, the pair adds ``|A & B| / min(|A|, |B|)``; otherwise nothing.  The
   weight is ``1000`` times the mean over all pairs (written with six
   significant digits); an edge no pair supports gets ``0.0111111``.
2. **The tree** (``clm close --sl``): single linkage over the RCL network,
   edges taken by decreasing weight (equal weights: by smaller, then larger
   node index); each join that merges two components is a tree node
   ``L<k>_<size>``, nodes without edges are tree roots ``sgl_<node>``.
3. **Selection** (``rcl-select.pl``): for each resolution ``R``, from the
   largest down, a tree node is split as long as one of its two branches
   still holds a split of two subtrees both larger than ``R / 2`` (joins
   within 0.2 of the weight of both branches count as no split); the nodes
   where the descent stops are the clusters at ``R``.  The clusters at all
   resolutions nest, and form the hierarchy.

Where ``rcl`` lists clusters of equal size in an order that changes from run
to run, netmcl lists them by their smallest node index (smallest first); every
other order is rcl's.

Examples
--------
>>> import networkx as nx
>>> import netmcl
>>> G = nx.karate_club_graph()
>>> runs = [netmcl.mcl(G, inflation=i) for i in (1.4, 2, 3, 5)]
>>> res = rcl(G, runs, resolutions=[2, 4, 8])       # netmcl.rcl
>>> {r: c.sizes for r, c in res.clusterings.items()}
{2: [11, 10, 4, 4, 3, 1, 1], 4: [14, 11, 4, 3, 1, 1], 8: [34]}
"""

import logging
import math
import os

import numpy as np

from .exceptions import InputFileError, NotAPartitionError, ParameterError

__all__ = ["rcl", "RclResult", "RclTree", "rcl_network", "rcl_tree", "select", "read_join_order"]

log = logging.getLogger("netmcl")

#: the weight of an edge of the network that no pair of clusterings supports (clm vol's value)
UNSUPPORTED_WEIGHT = "0.0111111"
#: a join within this much of both its branches' join values is not a split (rcl-select.pl's epsilon)
EQUIJOIN_EPSILON = 0.2

JOIN_ORDER_HEADER = "link\tval\tNID\tANN\tBOB\txcsz\tycsz\txycsz\tiss\tlss\tannid\tbobid"


# ---------------------------------------------------------------------------
# step 1: the RCL network
# ---------------------------------------------------------------------------

def _memberships(clusterings, n):
    """Each clustering as an array node -> cluster number; every node in exactly one cluster."""
    out = []
    for k, cl in enumerate(clusterings):
        clusters = cl.index_clusters if hasattr(cl, "index_clusters") else cl
        mem = np.full(n, -1, dtype=np.int64)
        for c, members in enumerate(clusters):
            members = np.asarray(list(members) if not isinstance(members, np.ndarray) else members, dtype=np.int64)
            if members.size and (members.min() < 0 or members.max() >= n):
                raise ParameterError(
                    f"Clustering {k + 1} holds node {int(members.max() if members.max() >= n else members.min())}, "
                    f"but the network has nodes 0 .. {n - 1}."
                )
            if (mem[members] >= 0).any():
                raise NotAPartitionError(f"Clustering {k + 1} puts a node in more than one cluster; rcl needs partitions.")
            mem[members] = c
        if (mem < 0).any():
            raise NotAPartitionError(
                f"Clustering {k + 1} leaves {int((mem < 0).sum())} of the {n} nodes out (node {int(np.argmax(mem < 0))} "
                "first); rcl needs clusterings of all nodes of the network."
            )
        out.append(mem)
    return out


def _format_g6(values):
    """Values as C's ``%g`` writes them (six significant digits)."""
    return [f"{v:g}" for v in values.tolist()]


def rcl_network(n, src, dst, clusterings, *, self_compare=False):
    """The RCL weights of the edges ``src[k] - dst[k]`` (``clm vol -write-rcl``).

    Parameters
    ----------
    n : int
        Number of nodes.
    src, dst : array_like of int
        The edges, each once (``src < dst``), loops left out.
    clusterings : list
        At least two partitions of the nodes: :class:`~netmcl.Clustering`
        objects or lists of lists of node indices.
    self_compare : bool
        Also compare each clustering with itself (rcl's ``-D``), which adds
        the plain co-occurrence count.

    Returns
    -------
    text : list of str
        Each weight as ``clm vol`` writes it.
    weights : numpy.ndarray of float32
        The weights as the next step reads them back.

    Examples
    --------
    >>> text, w = rcl_network(4, [0, 1, 2], [1, 2, 3], [[[0, 1], [2, 3]], [[0, 1, 2], [3]]])
    >>> text
    ['1000', '0.0111111', '0.0111111']
    """
    src = np.asarray(src, dtype=np.int64)
    dst = np.asarray(dst, dtype=np.int64)
    mems = _memberships(clusterings, n)
    if len(mems) < 2:
        raise ParameterError(f"rcl needs at least two clusterings. Got {len(mems)}.")
    # clm vol's arithmetic as far as its output shows it: float32 shares summed in float32 over the
    # pairs (a, b) for b = 1, 2, ... and a < b, then scaled by 1000 / pairs in double precision (about
    # one weight in a thousand still differs from clm vol's in the sixth significant digit)
    pairs = [(a, b) for b in range(len(mems)) for a in range(b)]
    if self_compare:
        pairs += [(a, a) for a in range(len(mems))]
    total = np.zeros(src.size, dtype=np.float32)
    for a, b in pairs:
        ma, mb = mems[a], mems[b]
        both = (ma[src] == ma[dst]) & (mb[src] == mb[dst])
        if not both.any():
            continue
        size_a = np.bincount(ma)
        size_b = np.bincount(mb)
        key = ma * (int(mb.max()) + 1) + mb
        _, inverse, counts = np.unique(key, return_inverse=True, return_counts=True)
        meet = counts[inverse]                      # |A & B| for each node's pair of clusters
        i = src[both]
        share = meet[i].astype(np.float32) / np.minimum(size_a[ma[i]], size_b[mb[i]]).astype(np.float32)
        total[both] = total[both] + share
    text = _format_g6(total.astype(np.float64) * 1000 / len(pairs))
    for k in np.flatnonzero(total == 0).tolist():
        text[k] = UNSUPPORTED_WEIGHT
    return text, np.array([np.float32(t) for t in text], dtype=np.float32)


# ---------------------------------------------------------------------------
# step 2: the single-linkage tree
# ---------------------------------------------------------------------------

class RclTree:
    """The single-linkage join order of the RCL network (``clm close --sl``'s output).

    Attributes
    ----------
    lines : list of tuple
        One per join, in join order: ``(val, name, ann, bob, xcsz, ycsz,
        xycsz, iss, lss, annid, bobid)`` with ``val`` the join weight as
        written (``%.2f``; ``1000.0`` for a node without edges) and
        ``annid``/``bobid`` the edge's nodes (``-`` for a node without edges).
    first_value : list of tuple
        ``(node, weight)`` in the order nodes first join (``clm close
        -write-sl-list``); nodes without edges last with ``0.0``.
    n : int
        Number of nodes.
    """

    def __init__(self, n, lines, first_value):
        self.n = n
        self.lines = lines
        self.first_value = first_value

    def join_order_text(self):
        """The join order file, as ``clm close --sl`` writes it."""
        out = [JOIN_ORDER_HEADER + "\n"]
        for k, line in enumerate(self.lines, start=1):
            out.append(f"{k}\t" + "\t".join(str(x) for x in line) + "\n")
        return "".join(out)

    def node_values_text(self, labels):
        """The node list file (``-write-sl-list``): label and the weight at which it first joined."""
        return "".join(f"{labels[i]}\t{v}\n" for i, v in self.first_value)


def rcl_tree(n, src, dst, weights):
    """Single linkage over the RCL network: :class:`RclTree` (``clm close --sl``).

    Examples
    --------
    >>> t = rcl_tree(4, [0, 1], [1, 2], np.array([1000, 500], dtype=np.float32))
    >>> print(t.join_order_text(), end="")  # doctest: +NORMALIZE_WHITESPACE
    link val NID ANN BOB xcsz ycsz xycsz iss lss annid bobid
    1 1000.00 L1_2 leaf_0 leaf_1 1 1 2 1 1 0 1
    2 500.00 L2_3 L1_2 leaf_2 2 1 3 1 1 1 2
    3 1000.0 sgl_3 leaf_3 leaf_3 1 1 1 0 0 - -
    """
    src = np.asarray(src, dtype=np.int64)
    dst = np.asarray(dst, dtype=np.int64)
    weights = np.asarray(weights, dtype=np.float32)
    order = np.lexsort((dst, src, -weights.astype(np.float64)))
    parent = list(range(n))
    name = [f"leaf_{i}" for i in range(n)]
    size = [1] * n
    lss = [0] * n
    joined = [False] * n

    def find(x):
        root = x
        while parent[root] != root:
            root = parent[root]
        while parent[x] != root:
            parent[x], x = root, parent[x]
        return root

    lines, first = [], []
    for e in order.tolist():
        i, j = int(src[e]), int(dst[e])
        ri, rj = find(i), find(j)
        if ri == rj:
            continue
        val = f"{float(weights[e]):.2f}"
        for v in (i, j):
            if not joined[v]:
                joined[v] = True
                first.append((v, val))
        k = len(lines) + 1
        xs, ys = size[ri], size[rj]
        iss = min(xs, ys)
        new_lss = max(lss[ri], lss[rj], iss)
        node = f"L{k}_{xs + ys}"
        lines.append((val, node, name[ri], name[rj], xs, ys, xs + ys, iss, new_lss, i, j))
        parent[rj] = ri
        size[ri] = xs + ys
        lss[ri] = new_lss
        name[ri] = node
    has_edge = np.zeros(n, dtype=bool)
    has_edge[src] = True
    has_edge[dst] = True
    for v in np.flatnonzero(~has_edge).tolist():
        lines.append(("1000.0", f"sgl_{v}", f"leaf_{v}", f"leaf_{v}", 1, 1, 1, 0, 0, "-", "-"))
        first.append((v, "0.0"))
    return RclTree(n, lines, first)


def read_join_order(path):
    """Read a join order file (``rcl.join-order``, as ``clm close --sl`` writes it) as an :class:`RclTree`.

    Examples
    --------
    >>> import io
    >>> t = rcl_tree(3, [0], [1], np.array([1000], dtype=np.float32))
    >>> back = read_join_order(io.BytesIO(t.join_order_text().encode()))
    >>> back.n, back.join_order_text() == t.join_order_text()
    (3, True)
    """
    from .io._files import display_name, read_input_bytes

    name = display_name(path)
    text = read_input_bytes(path).decode("utf-8", "surrogateescape").splitlines()
    if not text or text[0] != JOIN_ORDER_HEADER:
        raise InputFileError(name, "Not a join order file: the first line must be clm close --sl's header.", line=1,
                             value=text[0] if text else "")
    lines = []
    leaves = set()
    for no, line in enumerate(text[1:], start=2):
        f = line.split("\t")
        if len(f) != 12:
            raise InputFileError(name, f"Expected 12 tab-separated fields, found {len(f)}.", line=no, value=line)
        try:
            float(f[1])
            ints = [int(x) for x in f[5:10]]
            ids = [f[10], f[11]] if f[10] == "-" else [int(f[10]), int(f[11])]
        except ValueError:
            raise InputFileError(name, "The value and the sizes must be numbers.", line=no, value=line) from None
        lines.append((f[1], f[2], f[3], f[4], *ints, *ids))
        for leaf in (f[3], f[4]):
            if leaf.startswith("leaf_"):
                leaves.add(int(leaf[5:]))
    return RclTree(len(leaves), lines, [])


# ---------------------------------------------------------------------------
# step 3: selection at resolutions (rcl-select.pl)
# ---------------------------------------------------------------------------

def _next_letter(s):
    """Perl's string increment for capitals: A -> B, Z -> AA, AZ -> BA."""
    chars = list(s)
    k = len(chars) - 1
    while k >= 0:
        if chars[k] != "Z":
            chars[k] = chr(ord(chars[k]) + 1)
            return "".join(chars)
        chars[k] = "A"
        k -= 1
    return "A" + "".join(chars)


class _Node:
    __slots__ = ("name", "size", "ann", "bob", "iss", "lss", "val", "ival", "items", "low", "sy_tag")

    def __init__(self, name, size, ann, bob, iss, lss, val, low):
        self.name = name
        self.size = size
        self.ann = ann
        self.bob = bob
        self.iss = iss
        self.lss = lss
        self.val = val          # as written in the join order (text)
        self.ival = int(float(val) + 0.5)
        self.items = None
        self.low = low          # smallest node below: the tie-break among equal sizes
        self.sy_tag = None


def _by_size(nodes, names):
    """Names sorted by decreasing size, equal sizes by smallest node (netmcl's fixed order)."""
    return sorted(names, key=lambda x: (-nodes[x].size, nodes[x].low))


def _stable_by_size(nodes, names):
    """Names sorted by decreasing size, equal sizes kept in list order (as rcl-select.pl's stable sort)."""
    return sorted(names, key=lambda x: -nodes[x].size)


class _Selection:
    """rcl-select.pl's computation on a join order, for sorted resolutions."""

    def __init__(self, tree, resolutions):
        self.resolutions = sorted(resolutions)
        self.reslimit = self.resolutions[0]
        nodes = {"humdrum": _Node("humdrum", 0, None, None, 0, 0, "1000", math.inf)}
        nodes["humdrum"].items = []
        top = {}
        n_leaves = 0
        for line in tree.lines:
            val, up, ann, bob, xcsz, ycsz = line[:6]
            for leaf, sz in ((ann, xcsz), (bob, ycsz)):
                if sz == 1 and leaf not in nodes and leaf.startswith("leaf_"):
                    v = int(leaf[5:])
                    nd = _Node(leaf, 1, None, None, 0, 0, "1000", v)
                    nd.items = [v]
                    nodes[leaf] = nd
                    n_leaves += 1
            if ann == bob:
                bob = "humdrum"
            if up in nodes:
                raise ParameterError(f"The join order names tree node {up} twice.")
            a, b = nodes[ann], nodes[bob]
            fval = float(val)
            equijoin = (not up.startswith("sgl_")) and fval + EQUIJOIN_EPSILON >= float(a.val) \
                and fval + EQUIJOIN_EPSILON >= float(b.val)
            iss = 0 if equijoin else min(a.size, b.size)
            nodes[up] = _Node(up, a.size + b.size, ann, bob, iss, max(a.lss, b.lss, iss), val, min(a.low, b.low))
            top.pop(ann, None)
            top.pop(bob, None)
            top[up] = True
        self.nodes = nodes
        self.n_leaves = n_leaves
        self.toplevel = _by_size(nodes, [t for t in top if nodes[t].size > 0])
        self._pick()
        self._collect()

    def _pick(self):
        nodes = self.nodes
        stack = list(self.toplevel)
        self.stacks = {}
        for res in sorted(self.resolutions, reverse=True):
            clustering = []
            while stack:
                name = stack.pop()
                nd = nodes[name]
                if nd.size == 1 or (2 * nodes[nd.ann].lss <= res and 2 * nodes[nd.bob].lss <= res):
                    clustering.append(name)
                else:
                    stack.append(nd.ann)
                    stack.append(nd.bob)
            # netmcl's fixed order of equal sizes, so that later steps (stable sorts) see it
            clustering = _by_size(nodes, clustering)
            self.stacks[res] = clustering
            stack = list(clustering)

    def _collect(self):
        nodes = self.nodes
        pick = {}
        self.datasizes = []
        for res in self.resolutions:
            datasize = 0
            for name in _stable_by_size(nodes, self.stacks[res]):
                entry = pick.setdefault(name, {"children": []})
                items = []
                todo = [name]
                while todo:
                    cur = todo.pop()
                    nd = nodes[cur]
                    if nd.items is not None:
                        items.extend(nd.items)
                        if cur != name:
                            entry["children"].append(cur)
                    else:
                        todo.append(nd.ann)
                        todo.append(nd.bob)
                items.sort()
                if nodes[name].items is None:
                    nodes[name].items = items
                datasize += nodes[name].size
            self.datasizes.append(datasize)
        # levels, from the coarsest clusters down (this also enters every child into `pick`)
        def set_level(name, level):
            entry = pick.setdefault(name, {"children": []})
            entry["level"] = level
            for child in entry["children"]:
                set_level(child, level + 1)

        for name in _stable_by_size(nodes, self.stacks[self.resolutions[-1]]):
            set_level(name, 1)
        self.pick = pick

    # --- outputs -----------------------------------------------------------

    def resdot_text(self):
        nodes, pick = self.nodes, self.pick
        out = []
        order = _by_size(nodes, pick)
        for n in order:
            size = nodes[n].size
            total = sum(nodes[c].size for c in pick[n]["children"])
            pct = str(int(100 * (size - total) / size)) if total else "0"
            out.append(f"node\t{n}\t{nodes[n].val}\t{size}\t{pct}\n")
        for n1 in order:
            for n2 in _stable_by_size(nodes, pick[n1]["children"]):
                out.append(f"link\t{n1}\t{n2}\n")
        return "".join(out)

    def _toplevel_names(self):
        return _by_size(self.nodes, [n for n, e in self.pick.items()
                                     if e.get("level") == 1 and self.nodes[n].size >= self.reslimit])

    def hierarchy_text(self):
        nodes, pick = self.nodes, self.pick
        datasize = self.datasizes[0]
        top = self._toplevel_names()
        topsum = sum(nodes[n].size for n in top)
        pres = f"{100 * (datasize - topsum) / datasize:.1f}" if topsum else "-"
        down = min((nodes[n].ival for n in top), default="")
        out = ["level\tsize\tjoinval\tresidual\tup\tdown\tnesting\telements\n",
               f"0\t{datasize}\t0\t{pres}\t0\t{down}\troot\t-\n"]
        self.rows = []

        def visit(level, path, ni, parent):
            nd = nodes[ni]
            children = [c for c in pick[ni]["children"] if nodes[c].size >= self.reslimit]
            up = nd.ival - nodes[parent].ival if parent else nd.ival
            down = min(nodes[c].ival - nd.ival for c in children) if children else "-"
            total = sum(nodes[c].size for c in children)
            pres = f"{100 * (nd.size - total) / nd.size:.1f}" if total else "-"
            tag = "::".join(path + [ni])
            out.append(f"{level}\t{nd.size}\t{nd.ival}\t{pres}\t{up}\t{down}\t{tag}\t"
                       + " ".join(map(str, nd.items)) + "\n")
            self.rows.append((level, ni, parent or None))
            for nj in _stable_by_size(nodes, children):
                visit(level + 1, path + [ni], nj, ni)

        for n in top:
            visit(1, [], n, "")
        return "".join(out)

    def summary_text(self):
        nodes, pick = self.nodes, self.pick
        top = self._toplevel_names()
        covered = {v for n in top for v in nodes[n].items}
        missing = [v for v in range(self.n_leaves) if v not in covered]
        out = ["level\ttree\ttype\tjoinval\tN1\tN2\tnesting\telements\n",
               f"1\troot\tresidual\t0\t{self.n_leaves}\t{len(missing)}\tA\t" + " ".join(map(str, missing)) + "\n"]

        def visit(level, ni, parent, prefix):
            nd = nodes[ni]
            nd.sy_tag = prefix
            children = [c for c in pick[ni]["children"] if nodes[c].size >= self.reslimit]
            n1 = nodes[parent].size if parent else self.n_leaves
            if not children:
                if nd.items:
                    out.append(f"{level}\t{ni}\tcls\t{nd.ival}\t{n1}\t{len(nd.items)}\t{prefix}\t"
                               + " ".join(map(str, nd.items)) + "\n")
                return
            inside = {v for c in children for v in nodes[c].items}
            rest = [v for v in nd.items if v not in inside]
            index = "A"
            out.append(f"{level + 1}\t{ni}\tresidual\t{nd.ival}\t{len(nd.items)}\t{len(rest)}\t{prefix}_{index}\t"
                       + " ".join(map(str, rest)) + "\n")
            index = _next_letter(index)
            for nj in _stable_by_size(nodes, children):
                visit(level + 1, nj, ni, f"{prefix}_{index}")
                index = _next_letter(index)

        index = "A"
        for n in top:
            index = _next_letter(index)
            visit(1, n, "", index)
        return "".join(out)

    def info_text(self, res):
        nodes = self.nodes
        out = ["tree\tjoinval\tsize\tnesting\telements\n"]
        for name in _stable_by_size(nodes, self.stacks[res]):
            nd = nodes[name]
            out.append(f"{name}\t{nd.ival}\t{nd.size}\t{nd.sy_tag or '-'}\t" + " ".join(map(str, nd.items)) + "\n")
        return "".join(out)

    def clusters(self, res):
        """The clusters at `res` as sorted node lists, in file order."""
        return [list(self.nodes[n].items) for n in _stable_by_size(self.nodes, self.stacks[res])]


def select(tree, resolutions):
    """Cut an :class:`RclTree` at `resolutions` (cluster sizes), as ``rcl select`` does.

    Returns
    -------
    selection
        ``.resolutions`` (sorted), ``.clusters(R)`` (the clusters at ``R``
        as sorted node lists, largest first) and the texts of rcl's files:
        ``.info_text(R)``, ``.hierarchy_text()``, ``.summary_text()``,
        ``.resdot_text()``.

    Examples
    --------
    >>> n, src, dst = 6, [0, 0, 1, 3, 3, 4, 2], [1, 2, 2, 4, 5, 5, 3]
    >>> text, w = rcl_network(n, src, dst, [[[0, 1, 2], [3, 4, 5]], [[0, 1, 2, 3, 4, 5]]])
    >>> sel = select(rcl_tree(n, src, dst, w), [2, 6])
    >>> sel.clusters(2)   # a node is split only where a branch below it splits again
    [[0, 1, 2, 3, 4, 5]]
    """
    res = _check_resolutions(resolutions)
    sel = _Selection(tree, res)
    sel.hierarchy_text()
    sel.summary_text()        # sets the nesting tags the .info files carry
    return sel


def _check_resolutions(resolutions):
    if isinstance(resolutions, (str, bytes)):
        resolutions = str(resolutions).split()
    out = []
    for r in resolutions:
        try:
            v = float(r)
        except (TypeError, ValueError):
            raise ParameterError(f"A resolution is a cluster size (a number). Got {r!r}.") from None
        if not math.isfinite(v) or v <= 0:
            raise ParameterError(f"A resolution is a positive cluster size. Got {r!r}.")
        out.append(int(v) if v == int(v) else v)
    if not out:
        raise ParameterError("rcl needs at least one resolution, e.g. resolutions=[50, 100, 200].")
    return out


# ---------------------------------------------------------------------------
# the network, the files, the result
# ---------------------------------------------------------------------------

def _edges(matrix):
    """Each edge of a (possibly one-directional) sparse matrix once, as sorted (src < dst) arrays."""
    import scipy.sparse as sp

    coo = sp.coo_array(matrix)
    r, c = coo.row.astype(np.int64), coo.col.astype(np.int64)
    keep = (r != c) & (coo.data != 0)
    lo, hi = np.minimum(r[keep], c[keep]), np.maximum(r[keep], c[keep])
    key = np.unique(lo * matrix.shape[0] + hi)
    return key // matrix.shape[0], key % matrix.shape[0]


def rcl_matrix_text(n, src, dst, text):
    """The RCL network as ``clm vol -write-rcl`` writes it (an mcl native matrix)."""
    import io

    from .io.native import _write_native

    both_src = np.concatenate([src, dst])
    both_dst = np.concatenate([dst, src])
    both_text = np.asarray(text + text, dtype=object)
    order = np.lexsort((both_dst, both_src))
    columns = []
    bounds = np.searchsorted(both_src[order], np.arange(n + 1))
    for j in range(n):
        sel = order[bounds[j]:bounds[j + 1]]
        if sel.size:
            columns.append((j, [f" {d}:{t}" for d, t in zip(both_dst[sel].tolist(), both_text[sel].tolist())]))
    fh = io.StringIO()
    _write_native(fh, n, n, columns)
    return fh.getvalue()


def clusters_matrix_text(n, clusters):
    """Clusters as ``mcxload -235-ai`` writes them: an N x K native matrix with values 1."""
    import io

    from .io.native import _write_native

    rows = max((c[-1] for c in clusters if c), default=-1) + 1
    columns = [(k, [f" {v}:1" for v in c]) for k, c in enumerate(clusters) if c]
    fh = io.StringIO()
    _write_native(fh, max(rows, 0), len(clusters), columns)
    return fh.getvalue()


class RclResult:
    """What :func:`rcl` computes: the RCL network, its tree and the clusterings at each resolution.

    Attributes
    ----------
    resolutions : list
        The resolutions, smallest first.
    clusterings : dict
        Resolution -> :class:`~netmcl.Clustering` of the graph's nodes
        (largest cluster first; equal sizes by smallest node index).
    hierarchy : list of dict
        The consensus clusters of at least the smallest resolution's size,
        parents before children: ``name`` (tree node), ``level`` (1 for the
        coarsest), ``parent`` (name or None), ``size``, ``joinval`` (the RCL
        weight, 0 to 1000, at which the cluster formed), ``nodes`` (labels),
        ``resolutions`` (those where it is a cluster).
    tree : RclTree
        The single-linkage join order.
    labels : list
        Node labels by index.
    """

    def __init__(self, labels, tree, selection, *, network=None):
        from .clustering import Clustering

        self.labels = list(labels)
        self.tree = tree
        self._network = network          # (weight texts, src, dst), or None when built from a join order
        self._sel = selection
        self.resolutions = list(selection.resolutions)
        self.clusterings = {r: Clustering(selection.clusters(r), self.labels) for r in self.resolutions}
        member_of = {}
        for r in self.resolutions:
            for name in selection.stacks[r]:
                member_of.setdefault(name, []).append(r)
        nodes = selection.nodes
        self.hierarchy = [
            {"name": name, "level": level, "parent": parent, "size": nodes[name].size,
             "joinval": nodes[name].ival, "nodes": [self.labels[v] for v in nodes[name].items],
             "resolutions": member_of.get(name, [])}
            for level, name, parent in selection.rows
        ]

    def __repr__(self):
        parts = ", ".join(f"{r}: {len(c)} clusters" for r, c in self.clusterings.items())
        return f"<RclResult: {len(self.labels)} nodes; {parts}>"

    @classmethod
    def from_selection(cls, labels, tree, selection):
        """The result of a selection made from a join order (the RCL network itself is then unknown)."""
        return cls(labels, tree, selection)

    @property
    def weights(self):
        """The RCL network as a :class:`~netmcl.SparseGraph` (weights 0 to 1000)."""
        from .graph import SparseGraph

        if self._network is None:
            raise ParameterError("This result was made from a join order; it does not hold the RCL network.")
        text, src, dst = self._network
        w = np.array([float(t) for t in text])
        return SparseGraph.from_edges(src, dst, w, n=len(self.labels), labels=self.labels)

    def write(self, directory):
        """Write rcl's files into `directory`: ``rcl.rcl``, ``rcl.join-order``, ``rcl.node-values`` and,
        for the resolutions, ``rcl.res{R}.info/.cls/.labels/.txt``, ``rcl.hi.{R-R-..}.txt``,
        ``rcl.hi.{R-R-..}.resdot`` and ``rcl.sy.{R-R-..}.txt``.  Returns the paths written."""
        os.makedirs(directory, exist_ok=True)
        pfx = os.path.join(directory, "rcl")
        written = []
        if self._network is not None:
            text, src, dst = self._network
            written.append(_write_text(pfx + ".rcl", rcl_matrix_text(len(self.labels), src, dst, text)))
        written += [
            _write_text(pfx + ".join-order", self.tree.join_order_text()),
            _write_text(pfx + ".node-values", self.tree.node_values_text(self.labels)),
        ]
        return written + write_selection(pfx, self._sel, self.labels)

    def plot(self, ax=None, **kwargs):
        """Draw the hierarchy: :func:`netmcl.viz.rcl.plot_rcl`; returns the Axes."""
        from .viz.rcl import plot_rcl

        return plot_rcl(self, ax=ax, **kwargs)

    def plot_to_file(self, path, **kwargs):
        """Draw the hierarchy into a picture file: :func:`netmcl.viz.rcl.plot_rcl_to_file`."""
        from .viz.rcl import plot_rcl_to_file

        return plot_rcl_to_file(self, path, **kwargs)


def _write_text(path, text):
    from .io._files import atomic_write

    with atomic_write(path) as fh:
        fh.write(text)
    return path


def write_selection(pfx, sel, labels):
    """Write the files of ``rcl select`` for selection `sel` under prefix `pfx` (``TAG/rcl``)."""
    tag = "-".join(str(r) for r in sel.resolutions)
    written = [
        _write_text(f"{pfx}.hi.{tag}.txt", sel.hierarchy_text()),
        _write_text(f"{pfx}.sy.{tag}.txt", sel.summary_text()),
        _write_text(f"{pfx}.hi.{tag}.resdot", sel.resdot_text()),
    ]
    for r in sel.resolutions:
        clusters = sel.clusters(r)
        written.append(_write_text(f"{pfx}.res{r}.info", sel.info_text(r)))
        written.append(_write_text(f"{pfx}.res{r}.cls", clusters_matrix_text(len(labels), clusters)))
        written.append(_write_text(f"{pfx}.res{r}.labels",
                                   "".join("\t".join(str(labels[v]) for v in c) + "\n" for c in clusters)))
        cluster_of = {}
        for k, c in enumerate(clusters):
            for v in c:
                cluster_of.setdefault(v, []).append(k)
        written.append(_write_text(f"{pfx}.res{r}.txt", "".join(
            f"{labels[v]}\t{k}\n" for v in sorted(cluster_of) for k in cluster_of[v])))
    return written


def rcl(G, clusterings, resolutions, *, self_compare=False, weight="weight"):
    """Multi-resolution consensus clusters of several clusterings of `G`, as mcl's ``rcl`` finds them.

    Parameters
    ----------
    G : graph
        The network: anything :func:`netmcl.mcl` takes (NetworkX, igraph,
        SciPy sparse, :class:`~netmcl.SparseGraph`, ...).  Only which edges
        exist matters, not their weights.
    clusterings : list
        At least two clusterings of all of `G`'s nodes, e.g. :func:`netmcl.mcl`
        at several inflations: :class:`~netmcl.Clustering` objects or lists of
        clusters of node labels.
    resolutions : list of int
        Cluster sizes to cut the consensus tree at, e.g. ``[50, 100, 200]``
        (rcl's ``-r``; a doubling series is usual).
    self_compare : bool
        Compare each clustering with itself too (rcl's ``-D``).
    weight : str
        Edge attribute read for NetworkX graphs (only its presence matters).

    Returns
    -------
    RclResult
        ``.clusterings[R]`` for each resolution, ``.hierarchy`` (nested
        clusters by level), ``.plot()`` draws it, ``.write(dir)`` writes rcl's
        files.

    Examples
    --------
    >>> import networkx as nx
    >>> import netmcl
    >>> G = nx.karate_club_graph()
    >>> runs = [netmcl.mcl(G, inflation=i) for i in (1.4, 2, 3, 5)]
    >>> res = rcl(G, runs, resolutions=[2, 4, 8])       # netmcl.rcl
    >>> res.clusterings[4][2]
    [24, 25, 28, 31]
    >>> [(h["level"], h["size"]) for h in res.hierarchy]
    [(1, 34), (2, 14), (3, 10), (3, 4), (2, 11), (2, 4), (2, 3)]
    """
    graph, labels = _graph_of(G, weight)
    n = len(labels)
    index = {lab: k for k, lab in enumerate(labels)}
    as_ids = []
    for k, cl in enumerate(clusterings):
        if hasattr(cl, "index_clusters") and list(cl.labels) == labels:
            as_ids.append(cl.index_clusters)
            continue
        clusters = cl.clusters if hasattr(cl, "index_clusters") else cl
        ids = []
        for c in clusters:
            try:
                ids.append([index[v] for v in c])
            except KeyError as exc:
                raise ParameterError(f"Clustering {k + 1} holds {exc.args[0]!r}, which is not a node of the graph.") from None
        as_ids.append(ids)
    src, dst = _edges(graph.matrix)
    text, w = rcl_network(n, src, dst, as_ids, self_compare=self_compare)
    tree = rcl_tree(n, src, dst, w)
    sel = select(tree, resolutions)
    return RclResult(labels, tree, sel, network=(text, src, dst))


def _graph_of(G, weight):
    from .adapters import to_sparse_graph
    from .graph import SparseGraph

    if isinstance(G, SparseGraph):
        return G, list(G.labels)
    graph = to_sparse_graph(G, weight=weight)
    return graph, list(graph.labels)
