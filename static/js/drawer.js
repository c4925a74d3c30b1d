// The drawer of a farm system's grid cell (templates/systems/_drawer.html, fetched by htmx into
// #cell-drawer from the cell's link). Focus moves to its heading when it opens; Escape or Close empties it and gives
// focus back to the cell it belongs to. A value saved from it reloads it as saved; a refused one
// closes it, so the grid's in-place editor shows why with the value kept.
(function () {
  "use strict";

  function region() {
    return document.getElementById("cell-drawer");
  }

  function control(cellId) {
    var td = cellId && document.getElementById(cellId);
    if (!td) return null;
    return td.querySelector("input") || td.querySelector("a.cell-open") || td.querySelector("button");
  }

  function close() {
    var drawer = region() && region().querySelector(".drawer");
    if (!drawer) return false;
    var cellId = drawer.getAttribute("data-cell");
    region().innerHTML = "";
    var back = control(cellId);
    if (back) back.focus();
    return true;
  }

  document.addEventListener("htmx:afterSwap", function (event) {
    var target = event.detail.target;
    if (target.id === "cell-drawer") {
      var heading = target.querySelector("#drawer-title");
      if (heading) heading.focus();
      return;
    }
    var form = event.detail.requestConfig && event.detail.requestConfig.elt;
    if (!form || !form.hasAttribute || !form.hasAttribute("data-drawer-save")) return;
    var drawer = form.closest(".drawer");
    if (event.detail.xhr.status === 200 && drawer) {
      htmx.ajax("GET", drawer.getAttribute("data-url"), {target: "#cell-drawer", swap: "innerHTML"});
    } else {
      close();
    }
  });

  // A cell's link opens its drawer. One listener rather than htmx attributes on every cell:
  // the grid has hundreds, and their attributes would double the page's size.
  document.addEventListener("click", function (event) {
    var link = event.target.closest && event.target.closest("a.cell-open");
    if (!link || event.button !== 0 || event.ctrlKey || event.metaKey || event.shiftKey) return;
    event.preventDefault();
    htmx.ajax("GET", link.getAttribute("href"), {target: "#cell-drawer", swap: "innerHTML"});
  });

  document.addEventListener("click", function (event) {
    var button = event.target.closest && event.target.closest("#cell-drawer [data-drawer-close]");
    if (!button) return;
    event.preventDefault();
    close();
  });

  document.addEventListener("keydown", function (event) {
    if (event.key === "Escape" && close()) event.preventDefault();
  });
})();
