/* migrate-lens report: module table, findings browser, dependency graph.
 * Reads the JSON block #ml-data. Every value from the scan is inserted with textContent or
 * setAttribute (never innerHTML), so names from scanned code stay text. */
(function () {
  "use strict";
  var DATA = JSON.parse(document.getElementById("ml-data").textContent);
  var PAGE_MODULES = 100;
  var PAGE_FINDINGS = 50;

  function el(tag, attrs, children) {
    var node = document.createElement(tag);
    if (attrs) {
      Object.keys(attrs).forEach(function (k) {
        if (k === "text") node.textContent = attrs[k];
        else if (k === "cls") node.className = attrs[k];
        else node.setAttribute(k, attrs[k]);
      });
    }
    (children || []).forEach(function (c) {
      if (c === null || c === undefined) return;
      node.appendChild(typeof c === "string" ? document.createTextNode(c) : c);
    });
    return node;
  }
  function clear(node) { while (node.firstChild) node.removeChild(node.firstChild); }
  function fmt(x, nd) {
    if (x === null || x === undefined) return "";
    if (Number.isInteger(x)) return x.toLocaleString("en-US");
    if (x > 0 && x < 0.05) return "<0.1";
    return x.toLocaleString("en-US", { maximumFractionDigits: nd === undefined ? 1 : nd });
  }
  function option(select, value, label) { select.appendChild(el("option", { value: value, text: label })); }
  function byId(id) { return document.getElementById(id); }

  /* ---------------- module table ---------------- */
  var modState = { key: "risk", dir: -1, shown: PAGE_MODULES };
  function moduleRows() {
    var q = byId("mod-q").value.trim().toLowerCase();
    var st = byId("mod-status").value;
    var minRisk = parseFloat(byId("mod-risk").value) || 0;
    var minEffort = parseFloat(byId("mod-effort").value) || 0;
    var rows = DATA.modules.filter(function (m) {
      if (st && m.status !== st) return false;
      if (m.risk < minRisk || m.p50 < minEffort) return false;
      if (q && m.qualname.toLowerCase().indexOf(q) < 0 && m.path.toLowerCase().indexOf(q) < 0) return false;
      return true;
    });
    var key = modState.key, dir = modState.dir;
    rows.sort(function (a, b) {
      var x = a[key], y = b[key];
      if (x === null) x = Infinity;
      if (y === null) y = Infinity;
      if (x < y) return -dir;
      if (x > y) return dir;
      return a.qualname < b.qualname ? -1 : a.qualname > b.qualname ? 1 : 0;
    });
    return rows;
  }
  function renderModules() {
    var rows = moduleRows();
    var body = byId("mod-body");
    clear(body);
    var frag = document.createDocumentFragment();
    rows.slice(0, modState.shown).forEach(function (m) {
      var name = el("td", null, [el("code", { text: m.qualname }), runtimeMark(m.runtime), el("div", { cls: "expl", text: m.path + ":" + m.line })]);
      if (m.explanation.length) name.appendChild(el("div", { cls: "expl", text: m.explanation.slice(0, 3).join(" · ") + (m.explanation.length > 3 ? " …" : "") }));
      frag.appendChild(el("tr", { "data-status": m.status, "data-qualname": m.qualname }, [
        name,
        el("td", { text: m.kind }),
        el("td", null, [el("span", { cls: "chip status-" + m.status, text: m.status })]),
        el("td", { cls: "num", text: String(m.risk) }),
        el("td", { cls: "num", text: fmt(m.p50) }),
        el("td", { cls: "num", text: fmt(m.p90) }),
        el("td", { cls: "num", text: String(m.findings) }),
        el("td", { cls: "num", text: m.wave === null ? "–" : String(m.wave) }),
        el("td", { cls: "num", text: fmt(m.loc) })
      ]));
    });
    body.appendChild(frag);
    byId("mod-count").textContent = Math.min(rows.length, modState.shown) + " of " + rows.length + " shown (" + DATA.modules.length + " modules in all)";
    byId("mod-more").hidden = rows.length <= modState.shown;
    document.querySelectorAll("#mod-table th[data-sort]").forEach(function (th) {
      if (th.getAttribute("data-sort") === modState.key) th.setAttribute("aria-sort", modState.dir > 0 ? "ascending" : "descending");
      else th.removeAttribute("aria-sort");
    });
  }
  function initModules() {
    ["mod-q", "mod-status", "mod-risk", "mod-effort"].forEach(function (id) {
      byId(id).addEventListener("input", function () { modState.shown = PAGE_MODULES; renderModules(); });
    });
    byId("mod-more").addEventListener("click", function () { modState.shown += PAGE_MODULES * 5; renderModules(); });
    document.querySelectorAll("#mod-table th[data-sort]").forEach(function (th) {
      th.addEventListener("click", function () {
        var key = th.getAttribute("data-sort");
        if (modState.key === key) modState.dir = -modState.dir;
        else { modState.key = key; modState.dir = (key === "qualname" || key === "kind" || key === "status" || key === "wave") ? 1 : -1; }
        renderModules();
      });
    });
    renderModules();
  }

  /* ---------------- findings browser ---------------- */
  var fState = { page: 0, cat: "" };
  function initFindings() {
    var cats = {}, rules = {}, files = {};
    DATA.findings.forEach(function (f) {
      cats[f.category] = (cats[f.category] || 0) + 1;
      rules[f.code] = (rules[f.code] || 0) + 1;
      files[f.path] = true;
    });
    var catSel = byId("f-cat"), ruleSel = byId("f-rule"), sevSel = byId("f-sev");
    DATA.categories.forEach(function (c) { if (cats[c]) option(catSel, c, c + " (" + cats[c] + ")"); });
    Object.keys(rules).sort().forEach(function (code) {
      var r = DATA.rules[code];
      option(ruleSel, code, code + (r ? " " + r.name : "") + " (" + rules[code] + ")");
    });
    DATA.severities.slice().reverse().forEach(function (s) { option(sevSel, s, s); });
    var dl = byId("f-files");
    Object.keys(files).sort().forEach(function (p) { dl.appendChild(el("option", { value: p })); });
    var chips = byId("cat-chips");
    chips.appendChild(el("button", { type: "button", cls: "chip active", "data-cat": "", text: "all (" + DATA.findings.length + ")" }));
    DATA.categories.forEach(function (c) {
      if (cats[c]) chips.appendChild(el("button", { type: "button", cls: "chip", "data-cat": c, text: c + " (" + cats[c] + ")" }));
    });
    chips.addEventListener("click", function (ev) {
      var b = ev.target.closest("button[data-cat]");
      if (!b) return;
      catSel.value = b.getAttribute("data-cat");
      fState.page = 0;
      renderFindings();
    });
    ["f-cat", "f-rule", "f-sev", "f-file", "f-q"].forEach(function (id) {
      byId(id).addEventListener("input", function () { fState.page = 0; renderFindings(); });
    });
    byId("f-prev").addEventListener("click", function () { fState.page -= 1; renderFindings(); });
    byId("f-next").addEventListener("click", function () { fState.page += 1; renderFindings(); });
    document.querySelectorAll("a[data-filter-cat]").forEach(function (a) {
      a.addEventListener("click", function () { setFindingFilter({ cat: a.getAttribute("data-filter-cat") }); });
    });
    renderFindings();
  }
  function setFindingFilter(opts) {
    byId("f-cat").value = opts.cat || "";
    byId("f-rule").value = opts.rule || "";
    byId("f-sev").value = "";
    byId("f-file").value = opts.file || "";
    byId("f-q").value = opts.q || "";
    fState.page = 0;
    renderFindings();
  }
  function filteredFindings() {
    var cat = byId("f-cat").value, rule = byId("f-rule").value, sev = byId("f-sev").value;
    var file = byId("f-file").value.trim().toLowerCase(), q = byId("f-q").value.trim().toLowerCase();
    return DATA.findings.filter(function (f) {
      if (cat && f.category !== cat) return false;
      if (rule && f.code !== rule) return false;
      if (sev && f.severity !== sev) return false;
      if (file && f.path.toLowerCase().indexOf(file) < 0) return false;
      if (q && (f.symbol + " " + f.message + " " + f.code + " " + f.snippet).toLowerCase().indexOf(q) < 0) return false;
      return true;
    });
  }
  // probe cross-check (docs/probe.md): never a silent override of a static finding
  function runtimeMark(status) {
    if (status === "confirmed") return el("span", { cls: "chip runtime-confirmed", text: "confirmed at runtime" });
    if (status === "static-only") return el("span", { cls: "chip runtime-unseen", text: "not seen at runtime on these inputs" });
    return null;
  }
  function findingCard(f) {
    var rule = DATA.rules[f.code] || null;
    var head = el("div", { cls: "finding-head" }, [
      el("span", { cls: "sev sev-" + f.severity, text: f.severity }),
      el("strong", { text: f.code + " " + (rule ? rule.name : "") }),
      el("span", { cls: "chip", text: f.category }),
      el("span", { cls: "finding-where", text: f.path + ":" + f.line + ":" + (f.column + 1) }),
      el("span", { cls: "muted", text: f.symbol + " · " + f.context + " · " + f.porting + " · ~" + fmt(f.effort, 2) + " h" }),
      f.suppressed ? el("span", { cls: "fixme", text: "fixme (accepted debt)" }) : null,
      runtimeMark(f.runtime)
    ]);
    var remedyText = f.remedy !== undefined ? f.remedy : (rule ? rule.remedy : "");
    var remedy = el("div", { cls: "remedy" }, [el("span", { cls: "remedy-label", text: "JAX remedy: " }), remedyText]);
    if (rule && rule.help_uri) {
      remedy.appendChild(document.createTextNode(" "));
      remedy.appendChild(el("a", { href: rule.help_uri, rel: "noopener noreferrer", target: "_blank", text: "rule docs" }));
    }
    return el("article", { cls: "finding", "data-code": f.code, "data-category": f.category }, [
      head,
      el("div", { cls: "finding-msg", text: f.message }),
      f.snippet ? el("pre", null, [el("code", { text: f.snippet })]) : null,
      remedy
    ]);
  }
  function renderFindings() {
    var rows = filteredFindings();
    var pages = Math.max(1, Math.ceil(rows.length / PAGE_FINDINGS));
    fState.page = Math.max(0, Math.min(fState.page, pages - 1));
    var list = byId("f-list");
    clear(list);
    var frag = document.createDocumentFragment();
    rows.slice(fState.page * PAGE_FINDINGS, (fState.page + 1) * PAGE_FINDINGS).forEach(function (f) { frag.appendChild(findingCard(f)); });
    if (!rows.length) frag.appendChild(el("p", { cls: "muted", text: "No finding matches these filters." }));
    list.appendChild(frag);
    byId("f-count").textContent = rows.length + " of " + DATA.findings.length + " findings";
    byId("f-page").textContent = "page " + (fState.page + 1) + " of " + pages;
    byId("f-prev").disabled = fState.page === 0;
    byId("f-next").disabled = fState.page >= pages - 1;
    var cat = byId("f-cat").value;
    document.querySelectorAll("#cat-chips button").forEach(function (b) {
      b.classList.toggle("active", b.getAttribute("data-cat") === cat);
    });
  }

  /* ---------------- dependency graph ---------------- */
  /* Tree: directories > files > nodes; externals under "(external)" > top-level package.
   * A view shows the children of one tree node; edges are aggregated to what is shown. */
  var G = { tree: null, nodes: [], leafOf: [], cy: null, focus: null, byId: {} };
  var EXTERNAL = "(external)";
  function newTreeNode(key, label, parent, kind) {
    return { key: key, label: label, parent: parent, kind: kind, children: {}, order: [], leaves: 0, status: { pure: 0, mechanical: 0, redesign: 0, blocked: 0, external: 0 }, self: null };
  }
  function child(parent, key, label, kind) {
    if (!parent.children[label]) { parent.children[label] = newTreeNode(key, label, parent, kind); parent.order.push(label); }
    return parent.children[label];
  }
  function buildTree() {
    var root = newTreeNode("", "project", null, "dir");
    G.leafOf = [];
    DATA.graph.nodes.forEach(function (n, i) {
      var id = n[0], kind = n[1], status = n[2], path = n[3];
      if (n[4] && !G.showLibs) return; /* a standard-library or small third-party node: hidden by default */
      var at, leaf;
      if (path) {
        var parts = path.split("/");
        at = root;
        for (var k = 0; k < parts.length - 1; k++) at = child(at, parts.slice(0, k + 1).join("/"), parts[k], "dir");
        at = child(at, path, parts[parts.length - 1], "file");
        if (kind === "module" || kind === "file") { leaf = at; at.self = i; }
        else leaf = child(at, path + "::" + id, id.split(".").pop(), "leaf");
      } else {
        var ext = child(root, EXTERNAL, EXTERNAL, "dir");
        var top = id.split(".")[0];
        at = child(ext, EXTERNAL + "/" + top, top, "ext");
        leaf = id === top ? at : child(at, EXTERNAL + "/" + id, id, "leaf");
        if (id === top) at.self = i;
      }
      if (leaf.kind === "leaf") leaf.self = i;
      G.leafOf[i] = leaf;
      var st = status || "external";
      for (var t = leaf; t; t = t.parent) { t.leaves += 1; t.status[st] = (t.status[st] || 0) + 1; }
    });
    return root;
  }
  function ancestors(t) { var a = []; for (; t; t = t.parent) a.unshift(t); return a; }
  function childrenOf(t) { return t.order.map(function (k) { return t.children[k]; }); }
  function repFor(leaf, focus) {
    /* the node shown for `leaf` while `focus` is open: its ancestor that is a child of focus,
       or (outside focus) its ancestor that is a child of the lowest common ancestor */
    var chain = ancestors(leaf), fchain = ancestors(focus);
    var i = 0;
    while (i < chain.length && i < fchain.length && chain[i] === fchain[i]) i++;
    if (i === fchain.length) return { node: i < chain.length ? chain[i] : focus, inside: true };
    var outside = chain[Math.min(i, chain.length - 1)];
    if (outside.key === EXTERNAL && chain.length > i + 1) outside = chain[i + 1];
    return { node: outside, inside: false };
  }
  function worstStatus(t) {
    var order = ["blocked", "redesign", "mechanical", "pure"];
    for (var i = 0; i < order.length; i++) if (t.status[order[i]]) return order[i];
    return "external";
  }
  function graphElements(focus) {
    var els = [], shown = {}, edgeAgg = {};
    var colors = DATA.status_colors;
    function addNode(t, inside) {
      if (shown[t.key]) return;
      shown[t.key] = true;
      var data = { id: "n:" + t.key, label: t.label + (t.kind === "leaf" || t.leaves <= 1 ? "" : " (" + t.leaves + ")"), size: Math.max(22, Math.min(90, 16 + 9 * Math.sqrt(t.leaves))), inside: inside ? 1 : 0, key: t.key };
      var total = t.leaves || 1, names = ["pure", "mechanical", "redesign", "blocked", "external"];
      names.forEach(function (s, k) { data["p" + k] = 100 * (t.status[s] || 0) / total; data["c" + k] = colors[s] || "#9e9e9e"; });
      data.worst = worstStatus(t);
      /* risk share used to order grid layouts: blocked counts double, mechanical half */
      data.rank = (2 * (t.status.blocked || 0) + (t.status.redesign || 0) + 0.5 * (t.status.mechanical || 0)) / total;
      els.push({ group: "nodes", data: data, classes: (inside ? "inside" : "outside") + " kind-" + t.kind + " st-" + worstStatus(t) });
    }
    var kids = childrenOf(focus);
    kids.forEach(function (t) { addNode(t, true); });
    if (focus.self !== null && focus.self !== undefined) {
      /* the file's own module-level code */
      var selfNode = { key: focus.key + "::<module>", label: "<module level>", kind: "leaf", leaves: 1, status: {}, order: [], children: {} };
      var st = DATA.graph.nodes[focus.self][2] || "external";
      selfNode.status[st] = 1;
      addNode(selfNode, true);
    }
    DATA.graph.edges.forEach(function (e) {
      var a = G.leafOf[e[0]], b = G.leafOf[e[1]];
      if (!a || !b) return; /* an end is hidden */
      var ra = repFor(a, focus), rb = repFor(b, focus);
      if (!ra.inside && !rb.inside) return;
      var ka = ra.node === focus ? focus.key + "::<module>" : ra.node.key;
      var kb = rb.node === focus ? focus.key + "::<module>" : rb.node.key;
      if (ka === kb) return;
      if (!ra.inside) addNode(ra.node, false);
      if (!rb.inside) addNode(rb.node, false);
      var k = ka + "\u0000" + kb;
      if (!edgeAgg[k]) edgeAgg[k] = { a: ka, b: kb, n: 0, kinds: {} };
      edgeAgg[k].n += 1;
      edgeAgg[k].kinds[e[2]] = true;
    });
    Object.keys(edgeAgg).sort().forEach(function (k, idx) {
      var e = edgeAgg[k];
      els.push({ group: "edges", data: { id: "e" + idx, source: "n:" + e.a, target: "n:" + e.b, w: Math.min(8, 1 + Math.log2(e.n)), n: e.n, kinds: Object.keys(e.kinds).sort().join(", ") } });
    });
    return els;
  }
  function findTree(key) {
    var stack = [G.tree];
    while (stack.length) {
      var t = stack.pop();
      if (t.key === key) return t;
      childrenOf(t).forEach(function (c) { stack.push(c); });
    }
    return null;
  }
  function renderCrumbs() {
    var nav = byId("graph-crumbs");
    clear(nav);
    ancestors(G.focus).forEach(function (t, i, all) {
      if (i) nav.appendChild(el("span", { cls: "sep", text: " / " }));
      var b = el("button", { type: "button", text: t.label });
      if (i === all.length - 1) b.disabled = true;
      b.addEventListener("click", function () { openGraph(t); });
      nav.appendChild(b);
    });
  }
  function showInfo(t) {
    var box = byId("graph-info");
    clear(box);
    var dl = el("dl");
    function row(k, v) { dl.appendChild(el("dt", { text: k })); dl.appendChild(el("dd", { text: v })); }
    if (t.kind === "leaf" && t.self !== null && t.self !== undefined) {
      var n = DATA.graph.nodes[t.self];
      box.appendChild(el("h4", { text: n[0] }));
      row("kind", n[1]); row("status", n[2] || "external"); row("path", n[3] || "–");
      var m = DATA.modules.filter(function (x) { return x.qualname === n[0]; })[0];
      if (m) { row("risk", String(m.risk)); row("effort P50–P90", fmt(m.p50) + "–" + fmt(m.p90) + " person-days"); row("findings", String(m.findings)); row("wave", m.wave === null ? "–" : String(m.wave)); }
      box.appendChild(dl);
      if (m && m.explanation.length) box.appendChild(el("ul", null, m.explanation.map(function (x) { return el("li", { text: x }); })));
      if (n[3]) {
        var a = el("a", { href: "#findings", text: "Findings in " + n[3] });
        a.addEventListener("click", function () { setFindingFilter({ file: n[3] }); });
        box.appendChild(a);
      }
    } else {
      box.appendChild(el("h4", { text: t.key || t.label }));
      row("graph nodes", String(t.leaves));
      ["blocked", "redesign", "mechanical", "pure", "external"].forEach(function (s) { if (t.status[s]) row(s, String(t.status[s])); });
      box.appendChild(dl);
    }
  }
  /* Graph labels: LABEL_PX at zoom 1; a level opens at READ_ZOOM or more (labels of at least
     LABEL_PX * READ_ZOOM pixels); a grid cell is GRID_CELL pixels (a node and its label) */
  var LABEL_PX = 11, READ_ZOOM = 0.9, GRID_CELL = [130, 118];
  function gridBox(n, width) {
    var cols = Math.max(4, Math.floor(width / (GRID_CELL[0] * READ_ZOOM)));
    return { x1: 0, y1: 0, w: cols * GRID_CELL[0], h: Math.ceil(n / cols) * GRID_CELL[1] };
  }
  function openGraph(t) {
    /* skip directories that only wrap one other directory (src/pkg/...) */
    for (;;) {
      var inner = childrenOf(t).filter(function (c) { return c.key !== EXTERNAL; });
      if (inner.length !== 1 || !inner[0].order.length || (t.self !== null && t.self !== undefined)) break;
      t = inner[0];
    }
    G.focus = t;
    renderCrumbs();
    var els = graphElements(t);
    var n = els.filter(function (x) { return x.group === "nodes"; }).length;
    G.cy.elements().remove();
    G.cy.add(els);
    var m = els.length - n;
    var dense = m > 2 * n;
    var layout;
    if (n <= 40 && !dense) layout = { name: "breadthfirst", directed: true, spacingFactor: 1.15, avoidOverlap: true, padding: 30 };
    else if (n <= 200 && !dense) layout = { name: "cose", animate: false, randomize: true, nodeRepulsion: function () { return 20000; }, idealEdgeLength: function () { return 90; }, nodeOverlap: 40, numIter: 800, padding: 30 };
    else layout = {
      /* as many columns as fit the box at the readable zoom: a big level is read by panning
         down, riskiest nodes first (top left), never shrunk to illegible labels */
      name: "grid", padding: 30, avoidOverlap: true, avoidOverlapPadding: 24, condense: false,
      cols: Math.max(4, Math.floor(((byId("cy").clientWidth || 900) - 60) / (GRID_CELL[0] * READ_ZOOM))),
      boundingBox: gridBox(n, (byId("cy").clientWidth || 900) - 60),
      sort: function (a, b) {
        /* riskiest first (worst status, then most nodes), outside nodes last */
        var d = (b.data("inside") - a.data("inside")) || (b.data("rank") - a.data("rank")) || (b.data("size") - a.data("size"));
        return d || (a.data("label") < b.data("label") ? -1 : 1);
      }
    };
    G.cy.edges().toggleClass("faint", dense);
    G.cy.layout(layout).run();
    G.cy.fit(undefined, 30);
    if (G.cy.zoom() > 1.4) { G.cy.zoom(1.4); G.cy.center(); }
    var panned = G.cy.zoom() < READ_ZOOM;
    if (panned) {
      /* too many nodes to show at once with readable labels: keep the labels readable and show
         the top left (the riskiest, for a grid); drag to pan, scroll to zoom */
      var bb = G.cy.elements().boundingBox();
      G.cy.zoom(READ_ZOOM);
      G.cy.pan({ x: 30 - bb.x1 * READ_ZOOM, y: 30 - bb.y1 * READ_ZOOM });
    }
    var hint = byId("graph-hint");
    if (hint) hint.textContent = panned ? n + " nodes at this level" + (layout.name === "grid" ? ", riskiest first" : "") +
      ": drag to see the rest, scroll to zoom (labels hide when too small to read)." : "";
    byId("cy").setAttribute("data-label-px", (LABEL_PX * G.cy.zoom()).toFixed(1));
    byId("cy").setAttribute("data-nodes", String(n));
    byId("cy").setAttribute("data-focus", t.key);
    showInfo(t);
  }
  function snapshotGraph() {
    if (G.cy) byId("graph-print").src = G.cy.png({ full: true, scale: 1.5, bg: "#ffffff" });
  }
  /* Find: an exact id, else a short name (the last dotted part, any case), else a substring;
     says so when nothing matches (hidden library nodes are shown when they are the match). */
  function findNode(raw) {
    var want = (raw || "").trim(), low = want.toLowerCase(), msg = byId("graph-find-msg");
    if (!want) { msg.textContent = ""; return; }
    var nodes = DATA.graph.nodes, hit = -1, i;
    for (i = 0; i < nodes.length && hit < 0; i++) if (nodes[i][0] === want) hit = i;
    for (i = 0; i < nodes.length && hit < 0; i++) if (nodes[i][0].split(".").pop().toLowerCase() === low) hit = i;
    for (i = 0; i < nodes.length && hit < 0; i++) if (nodes[i][0].toLowerCase().indexOf(low) >= 0) hit = i;
    if (hit < 0) { msg.textContent = "Nothing matches \u201c" + want + "\u201d."; return; }
    if (!G.leafOf[hit]) { G.showLibs = true; var libs = byId("graph-libs"); if (libs) libs.checked = true; G.tree = buildTree(); }
    var leaf = G.leafOf[hit];
    msg.textContent = "Found " + nodes[hit][0] + ".";
    openGraph(leaf.parent || G.tree);
    var node = G.cy.getElementById("n:" + leaf.key);
    if (node && node.length) { node.select(); G.cy.center(node); }
    showInfo(leaf);
  }
  function initGraph() {
    var box = byId("cy");
    if (typeof cytoscape !== "function" || !DATA.graph.nodes.length) {
      box.appendChild(el("p", { cls: "muted", text: DATA.graph.nodes.length ? "The graph library did not load." : "The graph is empty." }));
      return;
    }
    G.tree = buildTree();
    G.cy = cytoscape({
      container: box,
      minZoom: 0.05,
      maxZoom: 4,
      style: [
        { selector: "node", style: {
          "width": "data(size)", "height": "data(size)", "label": "data(label)", "font-size": LABEL_PX, "color": "#1d2330",
          "min-zoomed-font-size": 7,
          "text-valign": "bottom", "text-margin-y": 3, "text-wrap": "ellipsis", "text-max-width": GRID_CELL[0] - 12,
          "background-color": "#cfd8dc", "border-width": 1, "border-color": "#fff",
          "pie-size": "100%",
          "pie-1-background-color": "data(c0)", "pie-1-background-size": "data(p0)",
          "pie-2-background-color": "data(c1)", "pie-2-background-size": "data(p1)",
          "pie-3-background-color": "data(c2)", "pie-3-background-size": "data(p2)",
          "pie-4-background-color": "data(c3)", "pie-4-background-size": "data(p3)",
          "pie-5-background-color": "data(c4)", "pie-5-background-size": "data(p4)"
        } },
        { selector: "node.kind-dir, node.kind-file, node.kind-ext", style: { "shape": "round-rectangle", "border-width": 2, "border-color": "#90a4ae" } },
        { selector: "node.outside", style: { "opacity": 0.55, "border-style": "dashed", "border-color": "#607d8b", "border-width": 2 } },
        { selector: "node:selected", style: { "border-color": "#000", "border-width": 3 } },
        { selector: "edge", style: { "width": "data(w)", "line-color": "#b0bec5", "target-arrow-color": "#90a4ae", "target-arrow-shape": "triangle", "curve-style": "bezier", "arrow-scale": 0.8, "opacity": 0.8 } },
        { selector: "edge.faint", style: { "opacity": 0.08 } },
        { selector: "edge.hl", style: { "opacity": 1, "line-color": "#37474f", "target-arrow-color": "#37474f", "z-index": 10 } }
      ]
    });
    G.cy.on("select", "node", function (ev) { ev.target.connectedEdges().addClass("hl"); });
    G.cy.on("unselect", "node", function (ev) { ev.target.connectedEdges().removeClass("hl"); });
    G.cy.on("mouseover", "node", function (ev) { ev.target.connectedEdges().addClass("hl"); });
    G.cy.on("mouseout", "node", function (ev) { if (!ev.target.selected()) ev.target.connectedEdges().removeClass("hl"); });
    G.cy.on("tap", "node", function (ev) {
      var key = ev.target.data("key");
      var t = findTree(key);
      if (!t) return;
      if (t.kind === "leaf" || (!t.order.length)) { showInfo(t); return; }
      openGraph(t);
    });
    var dl = byId("graph-ids");
    DATA.graph.nodes.slice(0, 5000).forEach(function (n) { if (!n[4]) dl.appendChild(el("option", { value: n[0] })); });
    var libs = byId("graph-libs");
    if (libs) libs.addEventListener("change", function () {
      G.showLibs = libs.checked;
      G.tree = buildTree();
      openGraph(G.tree);
    });
    byId("graph-q").addEventListener("change", function (ev) { findNode(ev.target.value); });
    openGraph(G.tree);
  }

  /* performance marks let benchmarks split the load time (performance.getEntriesByType("mark")) */
  performance.mark("ml:data");
  initModules();
  performance.mark("ml:modules");
  initFindings();
  performance.mark("ml:findings");
  /* the graph is laid out when its section comes near the viewport (or before printing) */
  var graphStarted = false;
  function startGraph() {
    if (graphStarted) return;
    graphStarted = true;
    initGraph();
    performance.mark("ml:graph");
    byId("cy").setAttribute("data-ready", "1");
  }
  if ("IntersectionObserver" in window) {
    new IntersectionObserver(function (entries, obs) {
      if (entries.some(function (e) { return e.isIntersecting; })) { obs.disconnect(); startGraph(); }
    }, { rootMargin: "300px" }).observe(byId("graph"));
  } else startGraph();
  window.addEventListener("beforeprint", function () { startGraph(); snapshotGraph(); });
  document.documentElement.setAttribute("data-ready", "1");
})();
