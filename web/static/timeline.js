// agentry run timeline: places the bars the server laid out, collapses and
// expands subtrees, jumps to the next failure, opens a span's details, and
// while the run is going swaps in the parts the server streams over SSE.
// Plain script, no build step; the CSP forbids inline styles, so bars are
// placed through the style object from data-l (left %) and data-w (width %).
(function () {
  "use strict";

  var page, runID;
  var toggled = {};   // span id -> true (collapsed) / false (expanded) chosen by the reader
  var selected = "";  // span id whose details are open

  function place(root) {
    var els = root.querySelectorAll("[data-l]");
    for (var i = 0; i < els.length; i++) {
      var el = els[i];
      el.style.left = el.getAttribute("data-l") + "%";
      var w = el.getAttribute("data-w");
      if (w !== null) el.style.width = w + "%";
    }
  }

  function node(id) { return page.querySelector('.tl-node[data-id="' + CSS.escape(id) + '"]'); }

  function setCollapsed(n, collapsed) {
    if (!n.querySelector(":scope > .tl-kids")) return;
    n.classList.toggle("collapsed", collapsed);
    n.setAttribute("aria-expanded", collapsed ? "false" : "true");
  }

  // reapply keeps the reader's choices when the live stream redraws the rows.
  function reapply() {
    Object.keys(toggled).forEach(function (id) {
      var n = node(id);
      if (n) setCollapsed(n, toggled[id]);
    });
    if (selected) {
      var n = node(selected);
      if (n) n.querySelector(".tl-row").classList.add("selected");
    }
  }

  function open(n) {
    page.querySelectorAll(".tl-row.selected").forEach(function (r) { r.classList.remove("selected"); });
    n.querySelector(".tl-row").classList.add("selected");
    selected = n.getAttribute("data-id");
    loadDetails();
  }

  function loadDetails() {
    if (!selected || !window.htmx) return;
    htmx.ajax("GET", "/runs/" + encodeURIComponent(runID) + "/spans/" + encodeURIComponent(selected),
      { target: "#tl-details", swap: "innerHTML" });
  }

  // reveal expands every collapsed ancestor of n so it can be seen.
  function reveal(n) {
    for (var p = n.parentElement; p && p !== page; p = p.parentElement) {
      if (p.classList.contains("tl-node") && p.classList.contains("collapsed")) {
        setCollapsed(p, false);
        toggled[p.getAttribute("data-id")] = false;
      }
    }
  }

  function nextError() {
    var rows = page.querySelectorAll(".tl-row.failed");
    if (!rows.length) return;
    var start = 0; // wraps to the first failure after the last one
    var cur = selected && node(selected);
    if (cur) {
      var curRow = cur.querySelector(".tl-row");
      for (var i = 0; i < rows.length; i++) {
        if (curRow.compareDocumentPosition(rows[i]) & Node.DOCUMENT_POSITION_FOLLOWING) { start = i; break; }
      }
    }
    var n = rows[start].closest(".tl-node");
    reveal(n);
    n.querySelector(".tl-row").scrollIntoView({ block: "center" });
    open(n);
  }

  function all(collapsed) {
    page.querySelectorAll(".tl-node").forEach(function (n) {
      if (!n.querySelector(":scope > .tl-kids")) return;
      setCollapsed(n, collapsed);
      toggled[n.getAttribute("data-id")] = collapsed;
    });
  }

  function onClick(e) {
    var t = e.target.closest("[data-tl]");
    if (!t || !page.contains(t)) return;
    var what = t.getAttribute("data-tl");
    var n = t.closest(".tl-node");
    if (what === "toggle") {
      var c = !n.classList.contains("collapsed");
      setCollapsed(n, c);
      toggled[n.getAttribute("data-id")] = c;
    } else if (what === "open") {
      open(n);
    } else if (what === "next-error") {
      nextError();
    } else if (what === "expand-all") {
      all(false);
    } else if (what === "collapse-all") {
      all(true);
    }
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
    var es = new EventSource("/runs/" + encodeURIComponent(runID) + "/events");
    ["header", "rows", "rollup"].forEach(function (part) {
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
    live();
    page.setAttribute("data-ready", "true");
  }

  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", init);
  else init();
})();
