# From STRINGdb to netmcl and back, in R.
#
# A yeast STRING network is loaded with Bioconductor's STRINGdb, clustered with
# netmcl (exactly mcl's clusters) through reticulate, and the clusters come back
# as R objects: a data.frame, an igraph vertex attribute with the colours netmcl
# uses in its pictures and Cytoscape styles, and a list of character vectors.
# They are then compared with STRINGdb's own clusterings (igraph's fastgreedy
# and walktrap) against the CYC2008 yeast complexes.
#
# Needs: R with reticulate, STRINGdb and igraph
#   (Debian: apt-get install r-base-core r-cran-reticulate r-bioc-stringdb r-cran-igraph;
#    elsewhere: install.packages(c("reticulate", "igraph")); BiocManager::install("STRINGdb"))
# and a Python with netmcl (python -m pip install netmcl) that reticulate uses:
#   RETICULATE_PYTHON=/path/to/python Rscript tutorials/06_from_r_stringdb.R [OUTPUT_DIRECTORY]
# It runs offline, on the STRING-format sample in tutorials/data/string_yeast/.
# Written to OUTPUT_DIRECTORY (default: a temporary directory): edges.abc (the edges
# clustered, an mcl label file), clusters.txt (the clusters, one per line, as mcl -o
# writes them), clusters_table.tsv (the data.frame), vertex_clusters.tsv (the igraph
# vertex attribute) and clusters.png (the network coloured by cluster).

needed <- c("reticulate", "STRINGdb", "igraph")
missing <- needed[!vapply(needed, requireNamespace, logical(1), quietly = TRUE)]
if (length(missing) > 0) {
  cat("This tutorial needs the R packages", paste(missing, collapse = ", "),
      "(Debian: apt-get install r-cran-reticulate r-bioc-stringdb r-cran-igraph).\n")
  quit(save = "no", status = 0)
}
options(width = 120)
suppressPackageStartupMessages({
  library(reticulate)
  library(STRINGdb)
  library(igraph)
})
if (!py_module_available("netmcl")) {
  cat("This tutorial needs netmcl in the Python reticulate uses (", py_config()$python, "):",
      "python -m pip install netmcl, or set RETICULATE_PYTHON to a Python that has it.\n")
  quit(save = "no", status = 0)
}

args <- commandArgs(trailingOnly = TRUE)
out_dir <- if (length(args) >= 1) args[[1]] else tempdir()
dir.create(out_dir, showWarnings = FALSE, recursive = TRUE)
script <- sub("^--file=", "", grep("^--file=", commandArgs(trailingOnly = FALSE), value = TRUE))
here <- if (length(script) == 1) dirname(normalizePath(script)) else "tutorials"
data_dir <- file.path(here, "data", "string_yeast")

# --- 1. STRINGdb, offline --------------------------------------------------------
# STRINGdb reads STRING's files (4932.protein.links/info/aliases.v11.5.txt.gz) from its
# input_directory and downloads only those that are absent; all three are in data_dir.
# Creating a STRINGdb object also asks the STRING web API for the current and the
# available versions.  To run without a network, the class below is STRINGdb with that
# one check answered locally: its initialize is STRINGdb's own, with the two reads of
# string-db.org/api/... replaced by the answer for version 11.5 (and callSuper, which
# here would reach STRINGdb's networked initialize, by initFields, what STRINGdb's
# callSuper does).  With a network, use STRINGdb$new(...) itself.
offline_api <- function(description, ...) {
  textConnection(switch(basename(description),
    version = "11.5",
    available_api_versions = "11.5 https://version-11-5.string-db.org"))
}
offline_initialize <- function(...) NULL
body(offline_initialize) <- do.call(substitute, list(
  body(STRINGdb$methods("initialize")),
  list(url = offline_api, callSuper = quote(initFields))))
STRINGdbOffline <- suppressMessages(setRefClass("STRINGdbOffline", contains = "STRINGdb",
                                                methods = list(initialize = offline_initialize)))

string_db <- STRINGdbOffline$new(version = "11.5", species = 4932, score_threshold = 400,
                                 input_directory = data_dir)
g <- string_db$get_graph()
cat(sprintf("STRING yeast sample: %d proteins, %d links\n", vcount(g), ecount(g)))

# Names map to STRING ids as with any STRINGdb object: here the ORFs of the exocyst.
exocyst <- string_db$map(data.frame(orf = c("YJL085W", "YBR102C", "YLR166C", "YGL233W",
                                            "YER008C", "YDR166C", "YIL068C", "YPR055W")), "orf")

# --- 2. netmcl through reticulate ------------------------------------------------------
netmcl <- import("netmcl")
cat("netmcl", netmcl$`__version__`, "from", dirname(netmcl$`__file__`), "\n")
# The interactions as a data.frame (from, to, combined_score), as STRINGdb gives them.
# netmcl reads them as mcl --abc reads a label file, with combined_score as the weight.
edges <- string_db$get_interactions(V(g)$name)
cl <- netmcl$mcl(edges, inflation = 2)
print(cl)

# cl$to_r() gives the clustering as plain lists that every reticulate version converts:
# table (a data.frame), membership in the order of V(g), clusters, cluster colours.
r <- cl$to_r(nodes = V(g)$name)
node_table <- as.data.frame(r$table)
stopifnot(is.data.frame(node_table), is.character(node_table$node), is.integer(node_table$cluster),
          nrow(node_table) == vcount(g))
cat("The clustering as an R data.frame:\n")
print(head(node_table))

# Back onto the igraph: cluster numbers (0 = the largest cluster, as in mcl) and the
# colours netmcl's pictures and Cytoscape styles give them (largest clusters first).
V(g)$mcl_cluster <- r$membership
V(g)$color <- r$colors[r$membership + 1]
clusters <- r$clusters # a list of character vectors, mcl's order
stopifnot(is.list(clusters), all(vapply(clusters, is.character, logical(1))),
          identical(sort(unlist(clusters)), sort(V(g)$name)))
cat(sprintf("%d clusters; the largest: %s\n", length(clusters), paste(head(r$sizes, 8), collapse = ", ")))

cat("The exocyst's subunits and their clusters:\n")
print(merge(exocyst, node_table, by.x = "STRING_id", by.y = "node"), row.names = FALSE)

# The same edges as an mcl label file, and the clusters as mcl -o writes them, so that
# `mcl edges.abc --abc -I 2 -o -` can be compared with clusters.txt line by line.
write.table(edges[, c("from", "to", "combined_score")], file.path(out_dir, "edges.abc"),
            sep = "\t", quote = FALSE, row.names = FALSE, col.names = FALSE)
writeLines(vapply(clusters, paste, character(1), collapse = "\t"), file.path(out_dir, "clusters.txt"))
write.table(node_table, file.path(out_dir, "clusters_table.tsv"), sep = "\t", quote = FALSE, row.names = FALSE)
write.table(data.frame(name = V(g)$name, mcl_cluster = V(g)$mcl_cluster, color = V(g)$color),
            file.path(out_dir, "vertex_clusters.tsv"), sep = "\t", quote = FALSE, row.names = FALSE)

# --- 3. Compared with STRINGdb's own clusters, against CYC2008 ------------------------
# STRINGdb's get_clusters runs igraph's fastgreedy or walktrap community detection.
# netmcl's compare_to_complexes gives Brohee & van Helden's sensitivity, PPV, accuracy
# and separation and the share of complexes matched (overlap score >= 0.25).
as_py_clusters <- function(x) lapply(x, as.list) # a one-protein cluster stays a list in Python
complexes <- lapply(netmcl$datasets$load_cyc2008(), function(c) as.list(paste0("4932.", c)))
methods <- list(
  "netmcl (mcl -I 2)" = clusters,
  "STRINGdb fastgreedy" = string_db$get_clusters(V(g)$name, algorithm = "fastgreedy"),
  "STRINGdb walktrap" = string_db$get_clusters(V(g)$name, algorithm = "walktrap"))
rows <- lapply(names(methods), function(name) {
  m <- netmcl$compare_to_complexes(as_py_clusters(methods[[name]]), complexes)
  data.frame(method = name, clusters = length(methods[[name]]),
             sensitivity = m$sensitivity, ppv = m$ppv, accuracy = m$accuracy,
             separation = m$separation, complexes_matched = m$fraction_matched)
})
comparison <- do.call(rbind, rows)
cat("Against CYC2008 (complexes restricted to the network's proteins):\n")
print(comparison, digits = 3, row.names = FALSE)
agreement <- netmcl$compare(as_py_clusters(clusters), as_py_clusters(methods[["STRINGdb fastgreedy"]]))
cat(sprintf("netmcl vs fastgreedy: adjusted Rand %.3f, NMI %.3f\n", agreement$adjusted_rand, agreement$nmi))

# --- 4. Pictures: igraph here; STRING's and Cytoscape's with a network --------------
png(file.path(out_dir, "clusters.png"), width = 1200, height = 1200)
set.seed(1)
plot(simplify(g), vertex.label = NA, vertex.size = 3, vertex.color = V(g)$color,
     main = "STRING yeast sample, netmcl clusters")
invisible(dev.off())

if (nzchar(Sys.getenv("NETMCL_ONLINE"))) {
  # With a network (set NETMCL_ONLINE=1): STRING's own picture of the largest cluster,
  # nodes coloured as above; the colours go to STRING's server as a payload.
  payload <- string_db$post_payload(V(g)$name, colors = V(g)$color)
  png(file.path(out_dir, "string_largest_cluster.png"), width = 1200, height = 1200)
  string_db$plot_network(clusters[[1]], payload_id = payload)
  invisible(dev.off())
}
if (requireNamespace("RCy3", quietly = TRUE) &&
    isTRUE(tryCatch(nzchar(RCy3::cytoscapePing()), error = function(e) FALSE))) {
  # Cytoscape through RCy3: the same node column (r$column, "mcl_cluster"), palette,
  # style name and layout as netmcl.cytoscape.push gives py4cytoscape users.
  title <- "STRING yeast sample"
  style <- paste("netmcl", title)
  suid <- RCy3::createNetworkFromIgraph(simplify(g, edge.attr.comb = "max"), title = title)
  RCy3::createVisualStyle(style)
  RCy3::setNodeColorMapping(r$column, as.character(seq_along(r$colors) - 1), r$colors,
                            mapping.type = "d", default.color = r$neutral, style.name = style, network = suid)
  RCy3::setVisualStyle(style, network = suid)
  RCy3::layoutNetwork(sprintf('attributes-layout nodeAttribute="%s"', r$column), network = suid)
}
cat("Results written to", out_dir, "\n")
