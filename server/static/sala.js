// The floor view: tables and pools refreshed from the server every 3 seconds.
(function () {
  "use strict";
  var board = document.getElementById("tablero");
  var badge = document.getElementById("en-vivo");
  if (!board) return;
  setInterval(function () {
    fetch("/sala/mesas", { credentials: "same-origin", redirect: "manual" }).then(function (response) {
      if (response.type === "opaqueredirect") { window.location.reload(); return null; }
      return response.ok ? response.text() : null;
    }).then(function (html) {
      if (html === null) { badge.textContent = "sin conexión"; return; }
      board.innerHTML = html;
      badge.textContent = "en vivo";
    }).catch(function () { badge.textContent = "sin conexión"; });
  }, 3000);
})();
