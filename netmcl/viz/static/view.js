// netmcl's interactive view of a clustering: reads the page's JSON data and draws it with cytoscape.js.
// Every name comes from the user's files, so text goes into the page with textContent only.
(function () {
  "use strict";
  var data = JSON.parse(document.getElementById("netmcl-data").textContent);
  var status = document.getElementById("netmcl-status");
  var nodes = data.nodes, clusters = data.clusters;
  var n = nodes.name.length;
  var COLOR_NONE = data.neutral;

  function el(tag, text, cls) {
    var e = document.createElement(tag);
    if (text !== undefined) e.textContent = text;
    if (cls) e.className = cls;
    return e;
  }
  function clear(e) { while (e.firstChild) e.removeChild(e.firstChild); }
  function colorOf(c) { return c >= 0 ? clusters[c].color : COLOR_NONE; }
  function clusterTitle(c) {
    if (c < 0) return "not clustered";
    return "cluster " + c + " (" + clusters[c].size + ")";
  }

  // neighbours of each node, with weights (edges are stored once, i < j)
  var adj = [];
  for (var i = 0; i < n; i++) adj.push([]);
  data.edges.forEach(function (e) { adj[e[0]].push([e[1], e[2]]); adj[e[1]].push([e[0], e[2]]); });
  var members = clusters.map(function () { return []; });
  nodes.cluster.forEach(function (c, v) { if (c >= 0) members[c].push(v); });

  var style = [
    { selector: "node", style: {
        "background-color": "data(color)", "label": "data(label)", "font-size": 12,
        "min-zoomed-font-size": 7, "width": 24, "height": 24, "color": "#222",
        "text-valign": "top", "text-margin-y": -2 } },
    { selector: "node.cluster", style: {
        "width": "data(d)", "height": "data(d)", "font-size": 11, "text-valign": "center",
        "text-wrap": "ellipsis", "text-max-width": 140, "border-width": 1, "border-color": "#fff" } },
    { selector: "edge", style: { "width": 1, "line-color": "#bbb", "opacity": 0.7, "curve-style": "haystack" } },
    { selector: "edge.between", style: { "width": "data(w)", "line-color": "#999", "opacity": 0.5 } },
    { selector: ".faded", style: { "opacity": 0.12 } },
    { selector: "node.hit", style: { "border-width": 3, "border-color": "#000", "z-index": 10 } },
    { selector: "node:selected", style: { "border-width": 3, "border-color": "#000" } }
  ];

  var cy = cytoscape({
    container: document.getElementById("netmcl-graph"),
    style: style, layout: { name: "preset" }, wheelSensitivity: 0.3,
    boxSelectionEnabled: false, textureOnViewport: n > 2000, hideEdgesOnViewport: n > 2000
  });

  function nodeElement(v, pos) {
    return { group: "nodes", data: { id: "n" + v, v: v, label: nodes.name[v], color: colorOf(nodes.cluster[v]) },
             position: pos };
  }

  var expanded = {};
  function edgesAmong(list) {
    var inside = {}, out = [];
    list.forEach(function (v) { inside[v] = true; });
    data.edges.forEach(function (e, k) {
      if (inside[e[0]] && inside[e[1]]) out.push({ group: "edges", data: { id: "e" + k, source: "n" + e[0], target: "n" + e[1] } });
    });
    return out;
  }

  if (data.mode === "nodes") {
    var els = [];
    for (var v = 0; v < n; v++) els.push(nodeElement(v, { x: nodes.x[v], y: nodes.y[v] }));
    data.edges.forEach(function (e, k) { els.push({ group: "edges", data: { id: "e" + k, source: "n" + e[0], target: "n" + e[1] } }); });
    cy.add(els);
  } else {
    var cls = clusters.map(function (c, k) {
      return { group: "nodes", classes: "cluster",
               data: { id: "c" + k, k: k, label: c.name, color: c.color, d: 14 + 4 * Math.sqrt(c.size) },
               position: { x: c.x, y: c.y } };
    });
    var ces = data.cluster_edges.map(function (e, k) {
      return { group: "edges", classes: "between",
               data: { id: "b" + k, source: "c" + e[0], target: "c" + e[1], w: e[3] } };
    });
    cy.add(cls.concat(ces));
  }
  cy.fit(undefined, 20);
  // the window may change size after the page is laid out (a browser opening, a notebook cell)
  window.addEventListener("resize", function () { cy.resize(); });

  // a cluster node opens into its members, laid out around where it was
  function expand(k) {
    if (data.mode === "nodes" || expanded[k]) return;
    var c = cy.getElementById("c" + k), centre = c.position();
    var list = members[k], r = 30 + 8 * Math.sqrt(list.length);
    var els = list.map(function (v, i) {
      var a = 2 * Math.PI * i / list.length;
      return nodeElement(v, { x: centre.x + r * Math.cos(a), y: centre.y + r * Math.sin(a) });
    });
    var added = cy.add(els.concat(edgesAmong(list)));
    c.remove();
    expanded[k] = true;
    if (list.length <= 400) {
      added.layout({ name: "cose", animate: false, randomize: false, fit: false,
                     boundingBox: { x1: centre.x - r, y1: centre.y - r, w: 2 * r, h: 2 * r } }).run();
    }
    report();
  }

  // the side panel: one node's neighbours, or a cluster's members
  var panel = document.getElementById("netmcl-panel");
  function showNode(v) {
    clear(panel);
    var c = nodes.cluster[v];
    panel.appendChild(el("h3", nodes.name[v]));
    if (nodes.name[v] !== nodes.id[v]) panel.appendChild(el("div", "id: " + nodes.id[v], "muted"));
    var line = el("div", clusterTitle(c) + (c >= 0 ? ": " + clusters[c].name : ""));
    panel.appendChild(line);
    var nb = adj[v].slice().sort(function (a, b) { return b[1] - a[1]; });
    panel.appendChild(el("h4", nb.length + " neighbours (weight)"));
    var table = el("table");
    nb.forEach(function (p) {
      var tr = el("tr");
      var name = el("td", nodes.name[p[0]]);
      var sw = el("span", "", "swatch"); sw.style.backgroundColor = colorOf(nodes.cluster[p[0]]);
      name.insertBefore(sw, name.firstChild);
      tr.appendChild(name);
      tr.appendChild(el("td", String(Number(p[1].toPrecision(3))), "num"));
      tr.addEventListener("click", function () { focusNode(p[0]); });
      table.appendChild(tr);
    });
    panel.appendChild(table);
  }
  function focusNode(v) {
    var c = nodes.cluster[v];
    if (c >= 0) expand(c);
    var ele = cy.getElementById("n" + v);
    cy.nodes().unselect();
    if (ele.nonempty()) {
      ele.select();
      cy.animate({ center: { eles: ele }, zoom: Math.max(cy.zoom(), 1.5) }, { duration: 200 });
    }
    showNode(v);
  }
  function focusCluster(k) {
    expand(k);
    var eles = cy.nodes().filter(function (e) { return nodes.cluster[e.data("v")] === k || e.data("k") === k; });
    cy.elements().removeClass("faded");
    cy.elements().difference(eles.closedNeighborhood()).addClass("faded");
    if (eles.nonempty()) cy.animate({ fit: { eles: eles, padding: 40 } }, { duration: 200 });
    clear(panel);
    panel.appendChild(el("h3", clusterTitle(k)));
    panel.appendChild(el("div", clusters[k].name + (clusters[k].score !== null ? " (overlap " + clusters[k].score + ")" : "")));
    var ul = el("ul");
    members[k].forEach(function (v) {
      var li = el("li", nodes.name[v]);
      li.addEventListener("click", function () { focusNode(v); });
      ul.appendChild(li);
    });
    panel.appendChild(ul);
  }

  cy.on("tap", "node", function (evt) {
    var d = evt.target.data();
    if (d.k !== undefined) focusCluster(d.k); else focusNode(d.v);
  });
  cy.on("tap", function (evt) { if (evt.target === cy) cy.elements().removeClass("faded"); });

  // the cluster list
  var list = document.getElementById("netmcl-clusters");
  clusters.forEach(function (c, k) {
    var li = el("li");
    var sw = el("span", "", "swatch"); sw.style.backgroundColor = c.color;
    li.appendChild(sw);
    li.appendChild(el("span", k + " (" + c.size + ") ", "num"));
    li.appendChild(el("span", c.name));
    li.addEventListener("click", function () { focusCluster(k); });
    list.appendChild(li);
  });

  // search by name or id
  var box = document.getElementById("netmcl-search"), hits = document.getElementById("netmcl-hits");
  function search(q) {
    clear(hits);
    cy.nodes().removeClass("hit");
    q = q.trim().toLowerCase();
    if (!q) return [];
    var found = [];
    for (var v = 0; v < n && found.length < 50; v++) {
      if (nodes.name[v].toLowerCase().indexOf(q) >= 0 || nodes.id[v].toLowerCase().indexOf(q) >= 0) found.push(v);
    }
    found.forEach(function (v) {
      var li = el("li", nodes.name[v] + " — " + clusterTitle(nodes.cluster[v]));
      li.addEventListener("click", function () { focusNode(v); });
      hits.appendChild(li);
      cy.getElementById("n" + v).addClass("hit");
    });
    if (!found.length) hits.appendChild(el("li", "no protein matches", "muted"));
    return found;
  }
  box.addEventListener("input", function () { search(box.value); });
  box.addEventListener("keydown", function (evt) {
    if (evt.key === "Enter") { var f = search(box.value); if (f.length) focusNode(f[0]); }
  });

  // the address can open a cluster (#cluster=3) or find a protein (#search=CDC28)
  function fromHash() {
    var m = /^#(cluster|search)=(.*)$/.exec(location.hash);
    if (!m) return;
    if (m[1] === "cluster") {
      var k = parseInt(m[2], 10);
      if (k >= 0 && k < clusters.length) focusCluster(k);
    } else {
      box.value = decodeURIComponent(m[2]);
      var f = search(box.value);
      if (f.length) focusNode(f[0]);
    }
  }
  window.addEventListener("hashchange", fromHash);

  // what the page shows, for readers and for tests that read the rendered page
  function report() {
    status.setAttribute("data-rendered-nodes", String(cy.nodes().length));
    status.setAttribute("data-rendered-edges", String(cy.edges().length));
    status.setAttribute("data-clusters-expanded", String(Object.keys(expanded).length));
  }
  fromHash();
  report();
  status.setAttribute("data-ready", "true");
})();
