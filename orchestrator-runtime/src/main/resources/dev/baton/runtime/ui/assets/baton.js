// Baton web UI: live refresh without reloading the page, and confirmation of the buttons that change things.
// No library: a region marked data-live is fetched again every few seconds (the server sends only that region when
// asked with X-Baton-Live) and the new markup is merged into the page node by node, so nothing flickers, the
// scroll position stays, and an opened <details> (an output, an input) stays open.
(function () {
  "use strict";

  function sameNode(a, b) {
    return a.nodeType === b.nodeType && a.nodeName === b.nodeName &&
      (a.nodeType !== 1 || (a.id || "") === (b.id || ""));
  }

  function morph(from, to) {
    if (from.nodeType === 3 || from.nodeType === 8) {
      if (from.nodeValue !== to.nodeValue) from.nodeValue = to.nodeValue;
      return;
    }
    if (from.hasAttribute("data-keep") && (from.id || "") === (to.id || "")) return; // a form being filled in
    for (const a of Array.from(from.attributes)) {
      const keepOpen = a.name === "open" && from.nodeName === "DETAILS";
      if (!to.hasAttribute(a.name) && !keepOpen) from.removeAttribute(a.name);
    }
    for (const a of Array.from(to.attributes)) {
      if (from.getAttribute(a.name) !== a.value) from.setAttribute(a.name, a.value);
    }
    const mine = Array.from(from.childNodes);
    const theirs = Array.from(to.childNodes);
    for (let i = 0; i < theirs.length; i++) {
      const f = mine[i];
      const t = theirs[i];
      if (!f) {
        from.appendChild(document.importNode(t, true));
      } else if (!sameNode(f, t)) {
        from.replaceChild(document.importNode(t, true), f);
      } else {
        morph(f, t);
      }
    }
    for (let i = mine.length - 1; i >= theirs.length; i--) from.removeChild(mine[i]);
  }

  let timer = null;

  function schedule() {
    const live = document.getElementById("live");
    if (timer !== null || !live || !live.hasAttribute("data-live")) return;
    const every = parseInt(live.getAttribute("data-live"), 10) || 2000;
    timer = setTimeout(refresh, every);
  }

  async function refresh() {
    timer = null;
    const live = document.getElementById("live");
    if (!live) return;
    if (document.visibilityState === "hidden") { schedule(); return; }
    try {
      const response = await fetch(window.location.href, {
        headers: { "X-Baton-Live": "1" }, credentials: "same-origin", cache: "no-store"
      });
      if (response.status === 401 || response.redirected) { window.location.reload(); return; }
      if (response.ok) {
        const doc = new DOMParser().parseFromString(await response.text(), "text/html");
        const fresh = doc.getElementById("live");
        if (fresh) {
          morph(live, fresh);
          live.removeAttribute("data-stale");
        }
      } else {
        live.setAttribute("data-stale", "HTTP " + response.status);
      }
    } catch (e) {
      live.setAttribute("data-stale", "offline");
    }
    schedule();
  }

  document.addEventListener("submit", function (event) {
    const form = event.target;
    const question = form.getAttribute("data-confirm");
    if (question && !window.confirm(question)) event.preventDefault();
  });

  document.addEventListener("visibilitychange", function () {
    if (document.visibilityState === "visible") schedule();
  });

  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", schedule);
  else schedule();
})();
