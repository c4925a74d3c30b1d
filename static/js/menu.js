// On a narrow screen the navigation folds behind a menu button; without this script it simply
// stays open.
(function () {
  "use strict";
  document.addEventListener("DOMContentLoaded", function () {
    var button = document.querySelector(".menu-button");
    var header = document.querySelector(".site-header");
    if (!button || !header) return;
    header.classList.add("foldable");
    button.hidden = false;
    button.addEventListener("click", function () {
      var open = header.classList.toggle("menu-open");
      button.setAttribute("aria-expanded", open ? "true" : "false");
    });
  });
})();
