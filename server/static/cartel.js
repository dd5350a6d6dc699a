// The cartel luminoso: follows /cartel/eventos (server-sent events). Shows SUSPENDIDO
// (3.7.5) as soon as the feed errs, the controller says it stops, or nothing arrives for
// data-silencio ms; reconnects by itself with exponential backoff and jitter. Amounts
// come formatted from the server: this script does no arithmetic on money.
// With data-pares (serve --pages-peer: the journal's other controllers), a sign whose
// controller has not answered for FAILOVER_MS asks each peer in turn whether it would show
// this sign, and moves to the first that would, showing the same pools (docs/pages.md).
(function () {
  "use strict";
  var root = document.getElementById("cartel");
  if (!root) return;
  var wanted = (root.dataset.pozos || "").split(",").filter(Boolean);
  var silenceMs = Number(root.dataset.silencio) || 900;
  var footer = root.querySelector("[data-campo=conexion]");
  var source = null, lastEvent = 0, live = false, retryMs = 500, reconnecting = null;
  var newestHit = {}, firstFrame = true, celebrations = {};
  var CELEBRATION_MS = 6000;  // ¡POZO! with the winner, then the new amount
  var peers = (root.dataset.pares || "").split(",").filter(Boolean);
  var FAILOVER_MS = 3000, PROBE_MS = 1500;
  var downSince = 0, probing = false;

  function field(section, name) { return section.querySelector("[data-campo=" + name + "]"); }

  function suspend(why) {
    live = false;
    if (!downSince) downSince = Date.now();
    root.dataset.estado = "suspendido";
    wanted.forEach(function (id) {
      var section = document.getElementById("pozo-" + id);
      if (!section) return;
      section.classList.add("suspendido");
      section.classList.remove("pendiente", "rechazado");
      field(section, "estado").textContent = "SUSPENDIDO";
    });
    footer.textContent = why;
  }

  function reconnect() {
    if (source) { source.close(); source = null; }
    if (reconnecting) return;
    var delay = Math.random() * retryMs;  // full jitter: signs do not come back in lockstep
    retryMs = Math.min(retryMs * 2, 10000);
    reconnecting = setTimeout(function () { reconnecting = null; connect(); }, delay);
  }

  // "$ 1.003,90" never breaks after the sign.
  function money(text) { return text.replace(" ", "\u00a0"); }

  // A pool with levels names the level won before the table (COMAR 36.05.03.24 F(3)(c): the
  // sign names the table where a level was won); the house's prizes and one-level pools have none.
  // A drawn prize (a mystery level's hit, its hot seat) is named instead: "Pozo misterioso",
  // "Asiento caliente".
  function level(prize) {
    if (prize.sorteado) return prize.nombre + " · ";
    return prize.nivel ? prize.nivel + " · " : "";
  }

  // How a hit's payment stands, on screen (a kiosk TV shows no tooltip), as cartel.rs writes it.
  var PAYMENT = {
    pagado: "pagado",
    confirmado: "pagado, confirmado por Venta-Pagos",
    pendiente: "PENDIENTE DE PAGO",
    rechazado: "rechazado por Venta-Pagos"
  };

  // A last hit: its time, what was won (the level in a pool with levels, then the prize's name),
  // the table, the seat, the amount and how its payment stands (cartel.rs, hit_line).
  function hitText(hit) {
    var what = (!hit.sorteado && hit.nivel ? hit.nivel + " · " : "") + hit.nombre;
    return hit.hora + " · " + what + " · Mesa " + hit.mesa + " · Pos. " + hit.asiento + " · " + money(hit.monto) + " · " +
      (PAYMENT[hit.estado] || hit.estado);
  }

  function prizeText(prize) {
    var name = prize.sorteado ? "" : prize.nombre + " · ";
    return level(prize) + "Mesa " + prize.mesa + " · Pos. " + prize.asiento + " · " + name + money(prize.monto);
  }

  // The pool's amount, or each level's meter in a pool with levels (never the house's level:
  // the server does not send it).
  function showAmounts(section, pool) {
    var amount = field(section, "monto");
    if (amount) amount.textContent = money(pool.monto);
    var levels = field(section, "niveles");
    if (!levels || !pool.niveles) return;
    pool.niveles.forEach(function (meter, index) {
      var item = levels.querySelector("[data-nivel='" + index + "']");
      if (!item) return;
      item.querySelector(".nombre-nivel").textContent = meter.nombre;
      item.querySelector(".monto-nivel").textContent = money(meter.monto);
      // A mystery level: "Debe salir antes de $ 60.000,00" under its meter (never its trigger).
      var ceiling = levels.querySelector("[data-tope='" + index + "']");
      if (ceiling && meter.tope) ceiling.textContent = money(meter.tope);
    });
  }

  function celebrate(section, id, hit) {
    var winner = field(section, "ganador");
    winner.textContent = "";
    var title = document.createElement("strong");
    title.textContent = "¡POZO!";
    var text = document.createElement("span");
    text.textContent = prizeText(hit);
    winner.appendChild(title);
    winner.appendChild(text);
    winner.hidden = false;
    section.classList.add("festejo");
    clearTimeout(celebrations[id]);
    celebrations[id] = setTimeout(function () { winner.hidden = true; section.classList.remove("festejo"); }, CELEBRATION_MS);
  }

  function render(floor) {
    live = true;
    downSince = 0;
    retryMs = 500;
    root.dataset.estado = "en-vivo";
    root.dataset.secuencia = String(floor.secuencia);
    footer.textContent = "En vivo";
    floor.pozos.forEach(function (pool) {
      var section = document.getElementById("pozo-" + pool.id);
      if (!section) return;
      section.classList.remove("suspendido");
      showAmounts(section, pool);
      var state = field(section, "estado");
      section.classList.toggle("pendiente", pool.pendientes.length > 0);
      var newest = pool.ultimos[0];
      section.classList.toggle("rechazado", pool.pendientes.length === 0 && !!newest && newest.estado === "rechazado");
      if (pool.pendientes.length > 0) {
        state.textContent = "PENDIENTE DE PAGO — " + prizeText(pool.pendientes[0]);
      } else if (newest && newest.estado === "rechazado") {
        state.textContent = "PREMIO RECHAZADO POR VENTA-PAGOS — " + level(newest) + "Mesa " + newest.mesa + " · Pos. " + newest.asiento;
      } else {
        state.textContent = "";
      }
      var sequence = newest ? newest.secuencia : 0;
      if (!firstFrame && newest && sequence > (newestHit[pool.id] || 0)) celebrate(section, pool.id, newest);
      newestHit[pool.id] = sequence;
      var list = field(section, "ultimos");
      list.textContent = "";
      pool.ultimos.forEach(function (hit) {
        var item = document.createElement("li");
        item.className = hit.estado;
        item.dataset.premio = hit.nombre;
        item.textContent = hitText(hit);
        list.appendChild(item);
      });
    });
    firstFrame = false;
  }

  // Only the amounts moved: the prize lists stand as the last `pozos` left them.
  function amounts(update) {
    root.dataset.secuencia = String(update.secuencia);
    update.montos.forEach(function (pool) {
      var section = document.getElementById("pozo-" + pool.id);
      if (section) showAmounts(section, pool);
    });
  }

  function connect() {
    source = new EventSource("/cartel/eventos");
    lastEvent = Date.now();
    footer.textContent = "Conectando…";
    source.addEventListener("pozos", function (event) { lastEvent = Date.now(); render(JSON.parse(event.data)); });
    source.addEventListener("montos", function (event) { lastEvent = Date.now(); if (live) amounts(JSON.parse(event.data)); });
    source.addEventListener("latido", function () { lastEvent = Date.now(); });
    source.addEventListener("suspendido", function () { suspend("El controlador se detuvo"); reconnect(); });
    source.onerror = function () { suspend("Sin conexión con el controlador"); reconnect(); };
  }

  // Asks peer `index` whether it would show this same sign (same query) to this screen: 204,
  // readable because the peer lists this page's origin among its own peers (CORS). The first
  // that says so is shown the sign, and can send it back later; any other answer, or none,
  // goes on to the next.
  function probe(index) {
    if (live || index >= peers.length) { probing = false; downSince = live ? 0 : Date.now(); return; }
    probing = true;
    footer.textContent = "Sin conexión: buscando otro controlador…";
    var aborter = new AbortController();
    var timer = setTimeout(function () { aborter.abort(); }, PROBE_MS);
    fetch(peers[index] + "/cartel/vivo" + location.search, { mode: "cors", cache: "no-store", signal: aborter.signal })
      .then(function (response) {
        clearTimeout(timer);
        if (live) { probing = false; downSince = 0; return; }
        if (response.status !== 204) { probe(index + 1); return; }
        location.replace(peers[index] + "/cartel" + location.search);
      })
      .catch(function () { clearTimeout(timer); probe(index + 1); });
  }

  setInterval(function () {
    if (source && Date.now() - lastEvent > silenceMs) {
      suspend("Sin datos del controlador");
      reconnect();
    }
    if (!live && !probing && peers.length && downSince && Date.now() - downSince > FAILOVER_MS) probe(0);
  }, 100);
  connect();
})();
