# %% [markdown]
# # Clusters in pictures and in Cytoscape
#
# This tutorial clusters the yeast protein-interaction network that ships
# with netmcl (Collins et al. 2007: 1,622 proteins, 9,074 scored
# interactions), draws the clusters with matplotlib, names them by the known
# complexes they match, writes an interactive HTML view that opens in any
# browser, and sends the network with its clusters to Cytoscape, coloured
# the same way.
#
# Run it as a script (``python tutorials/03_draw_and_cytoscape.py``) or open
# it as a notebook (``jupytext --to notebook``).  The pictures are written
# to the current directory.
#
# Needs: ``python -m pip install 'netmcl[plot,cytoscape]'`` (matplotlib and
# py4cytoscape; Cytoscape itself is optional).

# %%
try:
    import matplotlib  # noqa: F401
    import py4cytoscape  # noqa: F401
except ImportError:
    raise SystemExit("This tutorial needs matplotlib and py4cytoscape: "
                     "python -m pip install 'netmcl[plot,cytoscape]'") from None

import netmcl
from netmcl.analysis import quality
from netmcl.datasets import load_collins2007

G = load_collins2007()
clustering = netmcl.mcl(G, inflation=2.0)
print(clustering.summary())

# %% [markdown]
# ```text
# 300 clusters of 1622 nodes after 22 iterations (converged)
# sizes: largest 161, median 3, singletons 0
# ```
#
# These are exactly the clusters of ``mcl collins2007.txt --abc -I 2``.
#
# ## The clustered network
#
# ``draw`` places each cluster as a group and colours the nodes by cluster:
# the nine largest clusters get the nine colours of a colour-blind safe
# palette, largest first, and all the others share a pale grey.  The legend
# lists the coloured clusters with their sizes and names: given known
# complexes (here CYC2008, which ships with netmcl with its complexes'
# names), a cluster is named by the complex it overlaps best (overlap score
# ``|A & B|² / (|A| |B|)`` of at least 0.25, as in
# ``netmcl.compare_to_complexes``), and otherwise by its three most
# connected proteins.  The proteins are shown by gene name: the bundled
# network carries each protein's SGD gene name as the node attribute
# ``gene`` (its ORF where it has none), and ``label_attribute="gene"``
# picks it.  For a STRING network read with
# ``netmcl.read_string(links, info=...)`` the attribute is
# ``"preferred_name"``; a plain mapping ``{label: name}`` works too.

# %%
from netmcl.datasets import load_cyc2008

complexes = load_cyc2008(named=True)  # {"20S proteasome": ["YBL041W", ...], ...}
netmcl.plot.draw_to_file(G, clustering, "yeast_clusters.png", label_attribute="gene", complexes=complexes)


# %% [markdown]
# In ``yeast_clusters.png`` the biggest cluster (161 proteins, rose) sits
# on one side, densely knit, with most of the faint lines to other
# clusters converging on it; the other coloured clusters are tight knots,
# and the grey mass in the middle is the 291 small clusters, most of two to
# five proteins.
#
# A graph with more than ``netmcl.plot.MAX_DRAWN_NODES`` (2,000) nodes is
# drawn one disc per cluster instead; ``level="clusters"`` asks for that
# picture here.  Each disc's area is the cluster's size, and a line between
# two discs is as wide as the weight of the interactions joining them.

# %%
netmcl.plot.draw_to_file(G, clustering, "yeast_cluster_graph.png", level="clusters")

# %% [markdown]
# ## Cluster sizes, and how inflation changes them
#
# ``plot_sizes`` shows how many clusters there are of each size, on log-log
# axes.  ``plot_sweep`` draws measures against inflation: here those of a
# sweep over four inflations, scored against the CYC2008 complexes that
# also ship with netmcl.

# %%
from netmcl.sweep import sweep

ax = clustering.plot_sizes()
ax.figure.savefig("yeast_cluster_sizes.png", dpi=120)

result = sweep(G, inflations=[1.4, 2.0, 3.0, 4.0], complexes=complexes)
axes = netmcl.plot.plot_sweep(result, ["n_clusters", "modularity", "fraction_matched"], chosen=2.0)
axes[0].figure.savefig("yeast_inflation_sweep.png", dpi=120)
print(result)

# %% [markdown]
# Higher inflation gives more, smaller clusters (252 at I=1.4, 366 at
# I=4): the mass fraction, the share of interaction weight kept inside
# clusters, falls from 0.97 to 0.87 while the efficiency rises from 0.57
# to 0.69, and modularity peaks at I=2.  Against the CYC2008 complexes the
# accuracy (geometric mean of sensitivity and positive predictive value)
# climbs from 0.769 at I=1.4 to 0.792 at I=3 and stays there at I=4.  The
# picture shows the number of clusters, the modularity and the share of
# complexes recovered, with a dashed line at the inflation used above.
#
# ## An interactive view in the browser
#
# ``netmcl.view`` writes one HTML file that opens in any browser, offline
# (the graph library, cytoscape.js, is inside the file): nodes coloured as
# in the pictures, a search box for a protein, the list of clusters with
# their sizes and names, and a click on a protein lists its neighbours with
# the interaction weights.  Graphs of more than 3,000 proteins open on the
# graph of clusters, and a click opens a cluster.  In Jupyter,
# ``netmcl.view(G, clustering, label_attribute="gene", complexes=complexes)``
# without a file name shows the view in the notebook.  From the command
# line, a table of ``label TAB name`` lines gives the names and a gene-set
# file (``.gmt``: name, description, members) the complexes:
# ``netmcl collins2007.txt --abc --html yeast_view.html --names genes.tsv --complexes cyc2008.gmt``.

# %%
page = netmcl.view(G, clustering, "yeast_view.html", label_attribute="gene", complexes=complexes)
print(page)

# %% [markdown]
# Open ``yeast_view.html`` in a browser; ``yeast_view.html#search=NAN1``
# (or its ORF, ``YPL126W``) finds a protein and ``yeast_view.html#cluster=3`` opens on a cluster.
#
# ## In Cytoscape
#
# With Cytoscape running (start it and wait for its window), ``push``
# creates the network there, with every protein's cluster number in the
# node column ``mcl_cluster``, and applies a style named "netmcl Collins
# 2007 yeast PPI" that colours the nodes exactly as in the picture above.
# ``layout=True`` then groups the nodes by cluster (Cytoscape's "Group
# Attributes" layout).  To load the clusters into a network already open in
# Cytoscape instead, pass ``network="its name"`` (nodes are matched on the
# ``name`` column, or ``key_column=``).

# %%
try:
    suid = netmcl.cytoscape.push(G, clustering, title="Collins 2007 yeast PPI", layout=True)
    print(f"Cytoscape shows the clusters in network {suid}.")
except netmcl.CytoscapeError as error:
    print(error)

# %% [markdown]
# With Cytoscape running, this prints ``Cytoscape shows the clusters in
# network N.`` (N is the network's SUID, a number Cytoscape picks), and the
# Cytoscape window shows the 1,622 proteins in groups, coloured by cluster.
# Without Cytoscape it prints why and what to do, and nothing else is lost:
#
# ```text
# No Cytoscape answered at http://127.0.0.1:1234/v1 (nothing listens there). Start Cytoscape (3.6 or
# later; its REST interface, CyREST, is built in and listens on port 1234) and wait until its window is
# open, then push again; ...
# ```
