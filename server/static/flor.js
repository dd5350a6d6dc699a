// The inspector's flor, live as the cartel is: follows /sala/flor/{flor}/eventos (server-sent
// events, web/flor.rs), each `mesas` event the tables as they stand, swapped in at once. Says
// "sin conexión" as soon as the stream errs or nothing arrives for data-silencio ms, and marks
// the tables as not live (their figures are the last received); reconnects by itself.
(function () {
  "use strict";
  var root = document.getElementById("flor");
  var board = document.getElementById("mesas-flor");
  var badge = document.getElementById("en-vivo");
  if (!root || !board) return;
  var silenceMs = Number(root.dataset.silencio) || 3000;
  var source = null, lastEvent = 0, retry = null;

  function down(why) {
    root.dataset.estado = "sin-conexion";
    badge.textContent = why;
    badge.classList.add("caido");
  }

  function connect() {
    retry = null;
    source = new EventSource(location.pathname.replace(/\/$/, "") + "/eventos");
    lastEvent = Date.now();
    source.addEventListener("mesas", function (event) {
      lastEvent = Date.now();
      board.innerHTML = JSON.parse(event.data);
      root.dataset.estado = "en-vivo";
      badge.textContent = "en vivo";
      badge.classList.remove("caido");
    });
    source.onerror = function () {
      down("sin conexión: cifras del último dato");
      if (source.readyState === EventSource.CLOSED && !retry) retry = setTimeout(again, 2000);
    };
  }

  // A stream refused for good: the session may have ended (the page then goes to the login, as
  // the sala's does), or the controller is away (the page tries again).
  function again() {
    retry = null;
    fetch(location.href, { credentials: "same-origin", redirect: "manual", cache: "no-store" }).then(function (response) {
      if (response.type === "opaqueredirect") { window.location.reload(); return; }
      connect();
    }).catch(function () { retry = setTimeout(again, 2000); });
  }

  setInterval(function () {
    if (source && Date.now() - lastEvent > silenceMs && root.dataset.estado !== "sin-conexion") {
      down("sin conexión: cifras del último dato");
      source.close();
      if (!retry) retry = setTimeout(again, 1000);
    }
  }, 250);
  connect();
})();
