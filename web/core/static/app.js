// agentry UI behaviour that htmx attributes cannot express: the live-update
// event stream and the allow/deny pickers. No inline scripts (see the CSP).
(function () {
  "use strict";

  // Live updates: the server sends "registry" when the agents folder changes
  // (and "workflows" when the workflows folder does, on /workflows/events);
  // parts of a page that listen for "registry-changed from:body" (or
  // "workflows-changed") refresh. A live part names its stream in
  // data-events; the default is the agents' /events.
  // Each event carries the folder's version, the first one the version when
  // the stream opened: a part refreshes only when the version differs from
  // the one it was rendered at (data-version), so a change made while the
  // page loaded is caught and an unchanged page is not redrawn under the
  // reader's pointer. Without data-version the first event is the baseline.
  function listen() {
    var live = document.querySelector("[data-live]");
    if (!window.EventSource || !live) return;
    var seen = live.getAttribute("data-version");
    var es = new EventSource(live.getAttribute("data-events") || "/events");
    ["registry", "workflows"].forEach(function (name) {
      es.addEventListener(name, function (e) {
        var first = seen === null;
        if (e.data === seen) return;
        seen = e.data;
        if (!first && window.htmx) htmx.trigger(document.body, name + "-changed");
      });
    });
  }

  // A part that polls (the nav badge of a live page, data-poll-visible)
  // does not ask while its tab is hidden; the next poll after the tab
  // shows again catches up.
  document.addEventListener("htmx:beforeRequest", function (e) {
    if (document.hidden && e.target.hasAttribute && e.target.hasAttribute("data-poll-visible")) e.preventDefault();
  });

  function chip(picker, value) {
    var li = document.createElement("li");
    li.className = "chip";
    li.setAttribute("data-testid", "chip");
    var label = document.createElement("span");
    label.textContent = value;
    var input = document.createElement("input");
    input.type = "hidden";
    input.name = picker.getAttribute("data-name");
    input.value = value;
    var remove = document.createElement("button");
    remove.type = "button";
    remove.setAttribute("data-remove", "");
    remove.setAttribute("aria-label", "Remove " + value);
    remove.textContent = "×";
    li.append(label, input, remove);
    return li;
  }

  function addFromInput(picker) {
    var input = picker.querySelector(".picker-add input");
    var list = picker.querySelector(".chips");
    input.value.split(",").forEach(function (raw) {
      var v = raw.trim();
      if (!v) return;
      var exists = Array.prototype.some.call(list.querySelectorAll("input[type=hidden]"), function (h) { return h.value === v; });
      if (!exists) list.appendChild(chip(picker, v));
    });
    input.value = "";
    input.focus();
  }

  document.addEventListener("click", function (e) {
    var t = e.target;
    var picker = t.closest && t.closest("[data-picker]");
    if (!picker) return;
    if (t.matches("[data-add]")) { addFromInput(picker); }
    if (t.matches("[data-remove]")) {
      var next = t.closest("li").nextElementSibling;
      t.closest("li").remove();
      (next ? next.querySelector("button") : picker.querySelector(".picker-add input")).focus();
    }
  });

  document.addEventListener("keydown", function (e) {
    var t = e.target;
    if (e.key === "Enter" && t.matches && t.matches("[data-picker] .picker-add input")) {
      e.preventDefault();
      addFromInput(t.closest("[data-picker]"));
    }
  });

  // Enter in a picker adds its text instead of submitting the form, and text
  // typed into a picker but not yet added is added before the form is sent.
  document.addEventListener("submit", function (e) {
    var active = document.activeElement;
    if (active && active.matches && active.matches("[data-picker] .picker-add input") && e.target.contains(active)) {
      e.preventDefault();
      addFromInput(active.closest("[data-picker]"));
      return;
    }
    e.target.querySelectorAll("[data-picker]").forEach(function (p) {
      if (p.querySelector(".picker-add input").value.trim()) addFromInput(p);
    });
  }, true);

  // "Any (no restriction)" checkboxes hide their picker: absent allow differs from empty allow.
  document.addEventListener("change", function (e) {
    var t = e.target;
    if (!t.matches || !t.matches("[data-unset-toggle]")) return;
    var picker = document.querySelector('[data-picker][data-name="' + t.getAttribute("data-unset-toggle") + '"]');
    if (picker) picker.setAttribute("data-unset", t.checked ? "true" : "false");
  });

  // A failed htmx request (htmx does not swap a 4xx or 5xx answer) shows the
  // server's sentence at the top of the page instead of failing silently.
  // Only the message's text is taken, never the answer's markup.
  document.addEventListener("htmx:responseError", function (e) {
    var flash = document.getElementById("flash");
    var xhr = e.detail && e.detail.xhr;
    if (!flash || !xhr) return;
    var msg = "";
    var doc = new DOMParser().parseFromString(xhr.responseText || "", "text/html");
    var el = doc.querySelector("[data-testid=error-message]");
    if (el) msg = el.textContent.trim();
    flash.textContent = msg || "The server answered " + xhr.status + " " + (xhr.statusText || "") + ".";
    flash.hidden = false;
    flash.scrollIntoView({ block: "nearest" });
  });

  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", listen);
  else listen();
})();
