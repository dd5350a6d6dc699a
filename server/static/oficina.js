// Venta-Pagos: the pending orders follow the floor's feed (a change in any pool's
// pending prizes reloads the list from the server); the waiting times tick; a receipt prints.
(function () {
  "use strict";
  document.querySelectorAll("[data-imprimir]").forEach(function (button) {
    button.addEventListener("click", function () { window.print(); });
  });
  var office = document.getElementById("oficina");
  if (!office) return;
  var badge = document.getElementById("en-vivo");
  var signature = null, source = null, retryMs = 500;

  function age(ms) {
    var seconds = Math.max(0, Math.floor((Date.now() - ms) / 1000));
    if (seconds < 60) return seconds + " s";
    if (seconds < 3600) return Math.floor(seconds / 60) + " min";
    var minutes = Math.floor(seconds % 3600 / 60);
    return Math.floor(seconds / 3600) + " h " + (minutes < 10 ? "0" : "") + minutes + " min";
  }
  setInterval(function () {
    document.querySelectorAll("[data-desde]").forEach(function (cell) { cell.textContent = age(Number(cell.dataset.desde)); });
  }, 1000);

  function reload() {
    fetch("/venta-pagos/pendientes", { credentials: "same-origin", redirect: "manual" }).then(function (response) {
      if (response.type === "opaqueredirect" || response.status === 401) { window.location.reload(); return null; }
      return response.ok ? response.text() : null;
    }).then(function (html) {
      if (html === null) return;
      var body = document.getElementById("filas");
      if (body) body.outerHTML = html;
      office.dataset.actualizado = String(Date.now());
    });
  }

  function connect() {
    source = new EventSource("/cartel/eventos");
    source.addEventListener("pozos", function (event) {
      retryMs = 500;
      badge.textContent = "en vivo";
      office.dataset.conexion = "en-vivo";
      var floor = JSON.parse(event.data);
      var next = JSON.stringify(floor.pozos.map(function (pool) {
        return pool.pendientes.map(function (prize) { return [prize.secuencia, prize.mesa, prize.asiento, prize.premio]; });
      }));
      if (signature !== null && next !== signature) reload();
      signature = next;
    });
    var lost = function () {
      badge.textContent = "sin conexión: reintentando";
      office.dataset.conexion = "sin-conexion";
      source.close();
      setTimeout(connect, Math.random() * retryMs);
      retryMs = Math.min(retryMs * 2, 10000);
    };
    source.addEventListener("suspendido", lost);
    source.onerror = lost;
  }
  connect();
  reload();
})();
