// Review with the keyboard, and select all/none. Rows a reviewer moves through are
// tr.review-item; a row's checkbox is input.pick; the page's actions are buttons marked
// data-key="a" (apply selected), "r" (reject selected) and "u" (undo the last apply). Every
// action is also a plain button or link: nothing here is needed to review.
(function () {
  "use strict";

  function items() {
    return Array.prototype.filter.call(
      document.querySelectorAll("tr.review-item"),
      function (row) { return row.offsetParent !== null; }
    );
  }

  function focused() {
    return document.querySelector("tr.review-item.focused");
  }

  function move(step) {
    var rows = items();
    if (!rows.length) return;
    var index = rows.indexOf(focused());
    var next = rows[Math.max(0, Math.min(rows.length - 1, index < 0 ? 0 : index + step))];
    rows.forEach(function (row) { row.classList.remove("focused"); });
    next.classList.add("focused");
    next.setAttribute("tabindex", "-1");
    next.focus({ preventScroll: true });
    next.scrollIntoView({ block: "nearest" });
  }

  function toggle() {
    var row = focused();
    var box = row && row.querySelector("input.pick:not([disabled])");
    if (box) box.click();
  }

  function open() {
    var row = focused();
    var link = row && row.querySelector("a[href]");
    if (link) link.click();
  }

  function press(key) {
    var button = document.querySelector('[data-key="' + key + '"]:not([disabled])');
    if (button) button.click();
  }

  function showKeys() {
    var dialog = document.getElementById("keys-help");
    if (dialog && !dialog.open) dialog.showModal();
  }

  var actions = {
    j: function () { move(1); },
    ArrowDown: function () { move(1); },
    k: function () { move(-1); },
    ArrowUp: function () { move(-1); },
    x: toggle,
    Enter: open,
    a: function () { press("a"); },
    r: function () { press("r"); },
    u: function () { press("u"); },
    "?": showKeys,
  };

  document.addEventListener("keydown", function (event) {
    if (event.ctrlKey || event.metaKey || event.altKey) return;
    var target = event.target;
    if (target.closest && target.closest("input, textarea, select, [contenteditable], dialog[open]")) return;
    var action = actions[event.key];
    if (!action || !document.querySelector("tr.review-item")) return;
    // Arrows and Enter keep their usual meaning until a row has been chosen with j or k.
    if ((event.key.indexOf("Arrow") === 0 || event.key === "Enter") && !focused()) return;
    if (event.key === "Enter" && target.closest && target.closest("a, button")) return;
    event.preventDefault();
    action();
  });

  document.addEventListener("click", function (event) {
    var trigger =
      event.target.closest && event.target.closest("[data-select], [data-open-keys], [data-close-keys]");
    if (!trigger) {
      var row = event.target.closest && event.target.closest("tr.review-item");
      if (row) {
        items().forEach(function (r) { r.classList.remove("focused"); });
        row.classList.add("focused");
      }
      return;
    }
    if (trigger.hasAttribute("data-open-keys")) {
      showKeys();
      return;
    }
    if (trigger.hasAttribute("data-close-keys")) {
      trigger.closest("dialog").close();
      return;
    }
    var form = trigger.closest("form") || document;
    var on = trigger.getAttribute("data-select") === "all";
    form.querySelectorAll("input.pick:not([disabled])").forEach(function (box) {
      box.checked = on;
    });
  });

  // A value applied with another or not at all (a yield and its harvest method): ticking one
  // row's box ticks its partner's on the same record; the server refuses one alone anyway.
  document.addEventListener("change", function (event) {
    var box = event.target;
    if (!box.matches || !box.matches("input.pick")) return;
    var row = box.closest("tr.review-item[data-with]");
    if (!row) return;
    var selector = 'tr.review-item[data-record="' + row.getAttribute("data-record") +
      '"][data-field="' + row.getAttribute("data-with") + '"] input.pick:not([disabled])';
    document.querySelectorAll(selector).forEach(function (other) { other.checked = box.checked; });
  });

  function reveal(root) {
    root.querySelectorAll("[data-open-keys], .select-buttons").forEach(function (el) {
      el.hidden = false;
    });
  }

  document.addEventListener("DOMContentLoaded", function () { reveal(document); });
  document.addEventListener("htmx:load", function (event) { reveal(event.target); });
})();
