// Inline cell editing on a research table page (htmx swaps a cell's <td> for its editor).
// One editor is open at a time: Enter saves through the rows form's first submit button, which
// must be the open editor's. Escape cancels. The edited cell keeps the width it had, so the
// table does not reflow around the editor.
(function () {
  "use strict";
  var widths = {};

  function cancel(td) {
    var button = td.querySelector("button.cell-cancel");
    if (button) button.click();
  }

  document.addEventListener("htmx:beforeRequest", function (event) {
    var trigger = event.detail.elt;
    if (!trigger.classList || !trigger.classList.contains("cell-edit")) return;
    var td = trigger.closest("td");
    document.querySelectorAll("td.cell.editing").forEach(function (open) {
      if (open !== td) cancel(open);
    });
    widths[td.id] = td.getBoundingClientRect().width;
  });

  document.addEventListener("htmx:load", function (event) {
    var td = event.target;
    if (!td.matches || !td.matches("td.cell")) return;
    if (td.classList.contains("editing")) {
      if (widths[td.id]) td.style.width = widths[td.id] + "px";
      var input = td.querySelector("input, select");
      if (input) input.focus();
    } else if (td.id in widths) {
      delete widths[td.id];
      var button = td.querySelector("button.cell-edit");
      if (button && !document.querySelector("td.cell.editing")) button.focus();
    }
  });

  document.addEventListener("keydown", function (event) {
    if (event.key !== "Escape" || !event.target.closest) return;
    var td = event.target.closest("td.cell.editing");
    if (!td) return;
    event.preventDefault();
    cancel(td);
  });
})();
