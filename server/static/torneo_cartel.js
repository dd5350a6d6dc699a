// The tournament room's display, live: follows /torneo/{id}/eventos (server-sent events,
// web/torneo_cartel.rs), each `torneo` event the figures as they stand, swapped in at once. Says
// "sin conexión" as soon as the stream errs or nothing arrives for data-silencio ms (the figures
// shown are then the last received); reconnects by itself.
(function () {
  "use strict";
  var root = document.getElementById("cartel-torneo");
  var board = document.getElementById("cartel-datos");
  var badge = document.getElementById("conexion");
  if (!root || !board) return;
  var silenceMs = Number(root.dataset.silencio) || 3000;
  var source = null, lastEvent = 0, retry = null;

  function down() {
    root.dataset.estado = "sin-conexion";
    badge.textContent = "sin conexión: cifras del último dato";
  }

  function connect() {
    retry = null;
    source = new EventSource(location.pathname.replace(/\/cartel\/?$/, "/eventos"));
    lastEvent = Date.now();
    source.addEventListener("torneo", function (event) {
      lastEvent = Date.now();
      board.innerHTML = JSON.parse(event.data);
      root.dataset.estado = "en-vivo";
      badge.textContent = "en vivo";
    });
    source.onerror = function () {
      down();
      if (source.readyState === EventSource.CLOSED && !retry) retry = setTimeout(connect, 2000);
    };
  }

  setInterval(function () {
    if (source && Date.now() - lastEvent > silenceMs && root.dataset.estado !== "sin-conexion") {
      down();
      source.close();
      if (!retry) retry = setTimeout(connect, 1000);
    }
  }, 250);
  connect();
})();
