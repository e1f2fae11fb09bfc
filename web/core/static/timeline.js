// agentry run timeline. The page holds one window of rows; the server keeps
// the run's layout. This script places the bars the server laid out, asks
// /runs/{id}/rows for the window the scroll position shows (virtualized
// rows: a spacer as tall as every visible row, the window moved into
// place), sends Expand, Collapse, Expand all, Collapse all, Next error,
// Critical path only and Find as one request each, opens a span's details,
// and while the run is going refetches its window when the live stream says
// the rows changed. Plain script, no build step. The CSP forbids inline
// styles, so positions are set through the style object.
(function () {
  "use strict";

  var page, runID, scroller, rowsEl;
  var selected = "";   // span id whose details are open
  var view = "";       // the window's view, as the server wrote it (a query string)
  var from = 0, count = 0, total = 0, version = "";
  var rowH = 24;
  var seq = 0;         // numbers requests, so a late answer never replaces a newer one
  var busy = false, again = null;

  function runURL(rest) { return "/runs/" + encodeURIComponent(runID) + rest; }

  function place(root) {
    var els = root.querySelectorAll("[data-l]");
    for (var i = 0; i < els.length; i++) {
      var el = els[i];
      el.style.left = el.getAttribute("data-l") + "%";
      var w = el.getAttribute("data-w");
      if (w !== null) el.style.width = w + "%";
    }
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

  function node(id) { return rowsEl.querySelector('.tl-node[data-id="' + CSS.escape(id) + '"]'); }
  function rowOf(n) { return n.querySelector(":scope > .tl-row"); }

  // adopt reads the window the server sent and moves it into place inside
  // a box as tall as all the rows the view shows.
  function adopt() {
    var win = rowsEl.querySelector(".tl-win");
    if (!win) return;
    view = win.getAttribute("data-view") || "";
    from = +win.getAttribute("data-from");
    total = +win.getAttribute("data-total");
    version = win.getAttribute("data-version");
    var nodes = win.querySelectorAll(".tl-node");
    count = nodes.length;
    if (nodes.length) rowH = nodes[0].getBoundingClientRect().height || rowH;
    rowsEl.style.paddingTop = from * rowH + "px";
    rowsEl.style.height = Math.max(total, from + count) * rowH + "px";
    place(win);
    markSelected();
  }

  // rows asks for a window: the current view with extra parameters (from,
  // act, id, or view changes). It resolves with the window's target.
  function rows(extra, fresh) {
    var q = new URLSearchParams(fresh === undefined ? view : fresh);
    Object.keys(extra).forEach(function (k) {
      if (extra[k] === null) q.delete(k); else q.set(k, extra[k]);
    });
    var mine = ++seq;
    busy = true;
    return fetch(runURL("/rows?" + q.toString()), { headers: { "HX-Request": "true" } })
      .then(function (r) { if (!r.ok) throw new Error("rows: " + r.status); return r.text(); })
      .then(function (html) {
        busy = false;
        if (mine !== seq) return "";
        rowsEl.innerHTML = html;
        adopt();
        var win = rowsEl.querySelector(".tl-win");
        var target = win ? win.getAttribute("data-target") : "";
        if (again) { var a = again; again = null; a(); }
        return target;
      }, function (err) { busy = false; throw err; });
  }

  // follow fetches the window the scroll position shows, when the one in
  // the page does not cover the screen; one request at a time.
  function follow() {
    var first = Math.floor(scroller.scrollTop / rowH);
    var shown = Math.ceil(scroller.clientHeight / rowH);
    if (first >= from && first + shown <= from + count) return;
    if (first >= total) return;
    if (busy) { again = follow; return; }
    rows({ from: Math.max(0, first - 30), act: null, id: null });
  }

  var scrollQueued = false;
  function onScroll() {
    if (scrollQueued) return;
    scrollQueued = true;
    requestAnimationFrame(function () { scrollQueued = false; follow(); });
  }

  function markSelected() {
    rowsEl.querySelectorAll(".tl-row.selected").forEach(function (r) { r.classList.remove("selected"); });
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

  // nextError asks the server for the next place a failure began after the
  // open span (the run's first failure when none is open); the server opens
  // whatever hides it, groups included, and sends the window around it.
  function nextError() {
    rows({ act: "next", id: selected || "", from: null }).then(function (target) {
      var n = target && node(target);
      if (!n) return;
      scroller.scrollTop = Math.max(0, (from + [].indexOf.call(rowsEl.querySelectorAll(".tl-node"), n)) * rowH - scroller.clientHeight / 2);
      rowOf(n).scrollIntoView({ block: "center" });
      open(n);
    });
  }

  // all opens or closes everything and goes back to the top.
  function all(act) {
    scroller.scrollTop = 0;
    return rows({ act: act, id: null, from: 0 });
  }

  function onClick(e) {
    var t = e.target.closest("[data-tl]");
    if (!t || !page.contains(t)) return;
    var what = t.getAttribute("data-tl");
    var n = t.closest(".tl-node");
    if (what === "toggle") {
      e.preventDefault();
      rows({ act: n.classList.contains("collapsed") ? "expand" : "collapse", id: n.getAttribute("data-id"), from: from });
    } else if (what === "open") open(n);
    else if (what === "next-error") { e.preventDefault(); nextError(); }
    else if (what === "close-detail") closeDetail();
    else if (what === "expand-all") { e.preventDefault(); all("all"); }
    else if (what === "collapse-all") { e.preventDefault(); all("none"); }
    else if (what === "find-clear") { e.preventDefault(); find(null); }
  }

  // find shows the spans the form asks for (or, with null, the run again),
  // as one request answered from the store's index.
  function find(form) {
    var q = new URLSearchParams(view);
    ["q", "agent", "status", "tool", "crit"].forEach(function (k) { q.delete(k); });
    if (form) {
      new FormData(form).forEach(function (v, k) { if (v !== "") q.set(k, v); });
    } else {
      var f = page.querySelector(".tl-find");
      if (f) f.reset();
    }
    scroller.scrollTop = 0;
    rows({ from: 0, act: null, id: null }, q.toString());
  }

  function onKey(e) {
    if (e.key !== "n" || e.ctrlKey || e.metaKey || e.altKey) return;
    var t = e.target;
    if (t && (t.isContentEditable || /^(INPUT|TEXTAREA|SELECT)$/.test(t.tagName))) return;
    nextError();
  }

  // swap puts a part the live stream sent in place. The rows part is the
  // axis with the layout's version: a new version means the window is
  // stale, so it is fetched again where it is.
  function swap(part, html) {
    var el = page.querySelector('[data-part="' + part + '"]');
    if (!el) return;
    // A legend the reader opened stays open when its part is replaced.
    var was = el.querySelector("details");
    var open = was && was.open;
    el.innerHTML = html;
    if (open && el.querySelector("details")) el.querySelector("details").open = true;
    if (window.htmx) htmx.process(el);
    if (part !== "rows") return;
    place(el);
    thinTicks();
    var ax = el.querySelector("[data-version]");
    if (ax && ax.getAttribute("data-version") !== version) refresh();
  }

  function refresh() {
    if (busy) { again = refresh; return; }
    rows({ from: from, act: null, id: null });
  }

  function live() {
    if (page.getAttribute("data-live") !== "true" || !window.EventSource) return;
    var es = new EventSource(runURL("/events"));
    ["header", "rows", "rollup", "extras", "legend"].forEach(function (part) {
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
    page.classList.add("js");
    runID = page.getAttribute("data-run");
    scroller = page.querySelector(".tl-scroll");
    rowsEl = page.querySelector(".tl-rows");
    place(page);
    thinTicks();
    adopt();
    scroller.addEventListener("scroll", onScroll, { passive: true });
    page.addEventListener("click", onClick);
    page.addEventListener("change", function (e) {
      if (e.target.matches('[data-tl="critical"]')) find(e.target.form);
    });
    page.addEventListener("submit", function (e) {
      if (!e.target.matches(".tl-find")) return;
      e.preventDefault();
      find(e.target);
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
