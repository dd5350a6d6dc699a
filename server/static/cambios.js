// The sala's box of scheduled changes (and of those waiting for approval): loaded from the
// server when the page opens, then every 5 seconds.
(function () {
  "use strict";
  var box = document.getElementById("cambios-programados");
  if (!box) return;
  function load() {
    fetch("/sala/cambios/programados", { credentials: "same-origin", redirect: "manual" }).then(function (response) {
      return response.ok ? response.text() : null;
    }).then(function (html) {
      if (html !== null) box.innerHTML = html;
    }).catch(function () { /* the floor's badge already says "sin conexión" */ });
  }
  load();
  setInterval(load, 5000);
})();
