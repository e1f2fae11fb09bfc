// agentry run timeline: places the bars the server laid out, collapses and
// expands subtrees (fetching the rows of a big run's subtree on first
// expand), jumps to the next failure, opens a span's details, and while the
// run is going swaps in the parts the server streams over SSE.
// Plain script, no build step. The CSP forbids inline styles, so bars are
// placed through the style object from data-l (left %) and data-w (width %).
(function () {
  "use strict";

  var page, runID;
  var toggled = {};   // span id -> true (collapsed) / false (expanded), as the reader chose
  var selected = "";  // span id whose details are open

  function runURL(rest) { return "/runs/" + encodeURIComponent(runID) + rest; }

  function place(root) {
    var els = root.querySelectorAll("[data-l]");
    for (var i = 0; i < els.length; i++) {
      var el = els[i];
      el.style.left = el.getAttribute("data-l") + "%";
      var w = el.getAttribute("data-w");
      if (w !== null) el.style.width = w + "%";
    }
    thinTicks();
  }

  // thinTicks hides the axis labels that would overlap the one before, so
  // a narrow waterfall still reads.
  function thinTicks() {
    var ticks = page.querySelectorAll(".tl-tick"), right = -Infinity;
    for (var i = 0; i < ticks.length; i++) {
      ticks[i].style.visibility = "";
      var r = ticks[i].getBoundingClientRect();
      if (r.left < right + 6) ticks[i].style.visibility = "hidden";
      else right = r.right;
    }
  }

  function node(id) { return page.querySelector('.tl-node[data-id="' + CSS.escape(id) + '"]'); }
  function kids(n) { return n.querySelector(":scope > .tl-kids"); }
  function rowOf(n) { return n.querySelector(":scope > .tl-row"); }

  // A run opened whole is drawn flat: each node is followed by its
  // descendants (deeper data-flat levels) instead of holding them.
  function flatLevel(n) { return +n.getAttribute("data-flat"); }

  // flatSet hides or shows a flat node's descendants; expanding keeps the
  // descendants of a collapsed descendant hidden.
  function flatSet(n, collapsed) {
    var lv = flatLevel(n), skip = Infinity;
    n.classList.toggle("collapsed", collapsed);
    n.setAttribute("aria-expanded", collapsed ? "false" : "true");
    for (var s = n.nextElementSibling; s && flatLevel(s) > lv; s = s.nextElementSibling) {
      var l = flatLevel(s);
      if (collapsed) { s.hidden = true; continue; }
      if (l > skip) continue; // below a collapsed descendant: stays hidden
      skip = Infinity;
      s.hidden = false;
      if (s.classList.contains("collapsed")) skip = l;
    }
  }

  // setCollapsed shows or hides a node's children; it resolves once they
  // are in the page (at once, unless they had to be fetched).
  function setCollapsed(n, collapsed) {
    if (n.hasAttribute("data-flat")) {
      if (n.hasAttribute("aria-expanded")) flatSet(n, collapsed);
      return Promise.resolve();
    }
    var k = kids(n);
    if (!k) return Promise.resolve();
    n.classList.toggle("collapsed", collapsed);
    n.setAttribute("aria-expanded", collapsed ? "false" : "true");
    if (collapsed || k.getAttribute("data-lazy") !== "true" || !window.htmx) return Promise.resolve();
    k.setAttribute("data-lazy", "loading");
    return htmx.ajax("GET", runURL("/spans/" + encodeURIComponent(n.getAttribute("data-id")) + "/children"),
      { target: k, swap: "innerHTML" }).then(function () {
        k.removeAttribute("data-lazy");
        n.classList.remove("has-fails");
        place(k);
      });
  }

  function toggle(n, collapsed) {
    toggled[n.getAttribute("data-id")] = collapsed;
    return setCollapsed(n, collapsed);
  }

  // reapply keeps the reader's choices when the live stream redraws the rows.
  function reapply() {
    Object.keys(toggled).forEach(function (id) {
      var n = node(id);
      if (n) setCollapsed(n, toggled[id]);
    });
    markSelected();
  }

  function markSelected() {
    page.querySelectorAll(".tl-row.selected").forEach(function (r) { r.classList.remove("selected"); });
    var n = selected && node(selected);
    if (n) rowOf(n).classList.add("selected");
  }

  function open(n) {
    selected = n.getAttribute("data-id");
    markSelected();
    page.classList.add("has-detail");
    loadDetails();
  }

  // loadDetails fills the details panel, which sits at the top of the side
  // panel that stays in view (or, in a narrow window, docks at the bottom),
  // so a click shows its answer where the reader is looking.
  function loadDetails() {
    if (!selected || !window.htmx) return;
    htmx.ajax("GET", runURL("/spans/" + encodeURIComponent(selected)), { target: "#tl-details", swap: "innerHTML" })
      .then(function () {
        var side = page.querySelector(".tl-side");
        if (side) side.scrollTop = 0;
        var d = document.getElementById("tl-details");
        if (d) d.scrollTop = 0;
      });
  }

  // closeDetail empties the panel and undocks it in a narrow window.
  function closeDetail() {
    selected = "";
    markSelected();
    page.classList.remove("has-detail");
    var d = document.getElementById("tl-details");
    if (d) d.innerHTML = '<p class="muted">Click a span to see its task, context, result, tokens and permissions here.</p>';
  }

  // reveal expands every collapsed ancestor of n so it can be seen.
  function reveal(n) {
    if (n.hasAttribute("data-flat")) {
      for (var lv = flatLevel(n), q = n.previousElementSibling; q && lv > 0; q = q.previousElementSibling) {
        if (flatLevel(q) >= lv) continue;
        lv = flatLevel(q);
        if (q.classList.contains("collapsed")) toggle(q, false);
      }
      return;
    }
    for (var p = n.parentElement; p && p !== page; p = p.parentElement) {
      if (p.classList.contains("tl-node") && p.classList.contains("collapsed")) toggle(p, false);
    }
  }

  // nextError opens the next span where a failure began (a failed span
  // with no failed span below it) after the row `from` (or after the open
  // one), wrapping around. With nothing open it starts at the run's first
  // failure, as the server picked it (the earliest such span). A collapsed
  // subtree of a big run that hides failures is fetched and searched on the way.
  function nextError(from) {
    var cands = page.querySelectorAll(".tl-row.origin, .tl-node.has-fails > .tl-row");
    if (!cands.length) return;
    var start = from || (selected && node(selected) && rowOf(node(selected)));
    var pick = cands[0];
    var rows = page.querySelector(".tl-rows");
    var first = rows && rows.getAttribute("data-first-error");
    if (!start && first && node(first)) pick = rowOf(node(first));
    if (start) {
      for (var i = 0; i < cands.length; i++) {
        if (start.compareDocumentPosition(cands[i]) & Node.DOCUMENT_POSITION_FOLLOWING) { pick = cands[i]; break; }
      }
    }
    var n = pick.closest(".tl-node");
    reveal(n);
    if (!pick.classList.contains("origin")) { // a lazy subtree: open it, then look inside
      toggle(n, false).then(function () { nextError(pick); });
      return;
    }
    pick.scrollIntoView({ block: "center" });
    open(n);
  }

  function all(collapsed) {
    var flat = page.querySelectorAll(".tl-node[data-flat]");
    if (flat.length) { // one pass: every parent's mark, every non-root row's visibility
      toggled = {};
      flat.forEach(function (n) {
        if (n.hasAttribute("aria-expanded")) {
          n.classList.toggle("collapsed", collapsed);
          n.setAttribute("aria-expanded", collapsed ? "false" : "true");
        }
        n.hidden = collapsed && flatLevel(n) > 0;
      });
      return;
    }
    page.querySelectorAll(".tl-node").forEach(function (n) {
      if (kids(n)) toggle(n, collapsed);
    });
  }

  function onClick(e) {
    var t = e.target.closest("[data-tl]");
    if (!t || !page.contains(t)) return;
    var what = t.getAttribute("data-tl");
    var n = t.closest(".tl-node");
    if (what === "toggle") toggle(n, !n.classList.contains("collapsed"));
    else if (what === "open") open(n);
    else if (what === "next-error") nextError();
    else if (what === "close-detail") closeDetail();
    else if (what === "expand-all") all(false);
    else if (what === "collapse-all") all(true);
  }

  function onKey(e) {
    if (e.key !== "n" || e.ctrlKey || e.metaKey || e.altKey) return;
    var t = e.target;
    if (t && (t.isContentEditable || /^(INPUT|TEXTAREA|SELECT)$/.test(t.tagName))) return;
    nextError();
  }

  function swap(part, html) {
    var el = page.querySelector('[data-part="' + part + '"]');
    if (!el) return;
    el.innerHTML = html;
    if (part === "rows") { place(el); reapply(); }
    if (window.htmx) htmx.process(el);
  }

  function live() {
    if (page.getAttribute("data-live") !== "true" || !window.EventSource) return;
    var es = new EventSource(runURL("/events"));
    ["header", "rows", "rollup", "extras"].forEach(function (part) {
      es.addEventListener(part, function (ev) { swap(part, ev.data); });
    });
    es.addEventListener("end", function () {
      es.close();
      page.setAttribute("data-live", "false");
      loadDetails();
    });
  }

  function init() {
    page = document.getElementById("tl-page");
    if (!page) return;
    runID = page.getAttribute("data-run");
    place(page);
    page.addEventListener("click", onClick);
    page.addEventListener("change", function (e) {
      if (e.target.matches('[data-tl="critical"]')) page.classList.toggle("only-crit", e.target.checked);
    });
    document.addEventListener("keydown", onKey);
    window.addEventListener("resize", thinTicks);
    live();
    page.setAttribute("data-ready", "true");
    if (window.performance && performance.mark) performance.mark("timeline-ready");
  }

  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", init);
  else init();
})();
