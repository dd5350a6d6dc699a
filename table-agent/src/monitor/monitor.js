// The table's monitor: a view of the agent's output lines and a keyboard for its line protocol
// (docs/agent.md). Nothing here decides a light: the seats are drawn from the agent's panel,
// which lights a seat only after the controller acknowledged its bet (11.11.5).
"use strict";

(function () {
  var SILENCE_MS = 1000; // SUSPENDIDO within a second of losing the agent (3.7.5)
  var CREDITS = [1, 5, 10, 20];
  var ASKS = { credits: "Vender créditos", press: "Apuesta de un box", prize: "Premio", "refund-credits": "Devolver créditos" };
  var NAMES = { start: "INICIAR JUEGO", finish: "FINALIZAR JUEGO", accept: "ACEPTAR", "last-round": "Última ronda" };
  var SUITS = { H: "♥", D: "♦", C: "♣", S: "♠", corazones: "♥", diamantes: "♦", treboles: "♣", picas: "♠" };
  var state = { panel: null, prizes: [], heard: 0, action: null, sent: {} };

  function $(id) { return document.getElementById(id); }

  function amount(text) {
    if (!text) { return "—"; }
    var parts = String(text).split(".");
    var whole = parts[0].replace(/\B(?=(\d{3})+(?!\d))/g, ".");
    return "$ " + whole + "," + ((parts[1] || "") + "00").slice(0, 2);
  }

  function prizeName(code) {
    for (var i = 0; i < state.prizes.length; i++) {
      if (state.prizes[i].code === code) { return state.prizes[i].name + " (" + state.prizes[i].article + ")"; }
    }
    return code;
  }

  function send(line) {
    state.sent[line] = true;
    say("Enviado: " + describe(line) + "…", "");
    fetch("/linea", {
      method: "POST",
      headers: { "content-type": "application/json", "x-pozo-monitor": "1" },
      body: JSON.stringify({ linea: line })
    }).then(function (response) {
      if (!response.ok) { return response.text().then(function (text) { say(text, "rechazo"); }); }
    }).catch(function () { say("El monitor no llega al agente de la mesa.", "rechazo"); });
  }

  function describe(line) {
    var words = line.split(" ");
    switch (words[0]) {
      case "credits": return words[2] + " créditos al box " + words[1];
      case "press": return "apuesta del box " + words[1];
      case "prize": return prizeName(words[2]) + " en el box " + words[1];
      case "refund-credits": return "devolver los créditos del box " + words[1];
      default: return NAMES[words[0]] || line;
    }
  }

  function say(text, kind) {
    var box = $("mensaje");
    box.textContent = text;
    box.className = kind;
  }

  function confirmThen(line) {
    $("confirmar-texto").textContent = "¿Confirma " + describe(line) + "?";
    var dialog = $("confirmar");
    $("confirmar-si").onclick = function () { dialog.close(); send(line); };
    $("confirmar-no").onclick = function () { dialog.close(); };
    dialog.showModal();
  }

  function choose(title, options, then) {
    $("elegir-titulo").textContent = title;
    var list = $("elegir-opciones");
    list.textContent = "";
    options.forEach(function (option) {
      var button = document.createElement("button");
      button.textContent = option.label;
      button.onclick = function () { $("elegir").close(); then(option.value); };
      list.appendChild(button);
    });
    $("elegir-cancelar").onclick = function () { $("elegir").close(); };
    $("elegir").showModal();
  }

  function pick(action) {
    document.querySelectorAll("nav button").forEach(function (button) {
      button.classList.toggle("activa", button.dataset.accion === action && !!ASKS[action]);
    });
    if (ASKS[action]) {
      state.action = action;
      $("indicacion").textContent = ASKS[action] + ": toque el box.";
    } else {
      state.action = null;
      $("indicacion").textContent = "Elija una acción.";
      confirmThen(action);
    }
  }

  function seatTouched(seat) {
    var action = state.action;
    if (!action) { $("indicacion").textContent = "Elija primero una acción."; return; }
    if (action === "credits") {
      choose("Créditos para el box " + seat, CREDITS.map(function (n) { return { label: n + " créditos", value: n }; }),
        function (n) { confirmThen("credits " + seat + " " + n); });
    } else if (action === "prize") {
      choose("Premio del box " + seat, state.prizes.map(function (prize) {
        return { label: prize.name + " (" + prize.article + ")", value: prize.code };
      }), function (code) { confirmThen("prize " + seat + " " + code); });
    } else {
      confirmThen(action + " " + seat);
    }
  }

  function drawPanel(panel) {
    state.panel = panel;
    document.body.classList.toggle("suspendido", !!panel.suspended);
    $("mesa").textContent = "Mesa " + panel.table + (panel.round ? " · jugada " + panel.round : "");
    $("monto").textContent = amount(panel.displayed);
    var estado = $("estado");
    estado.textContent = panel.suspended ? "SUSPENDIDO" : (panel.state || "");
    estado.dataset.estado = panel.state || "";
    $("oro").hidden = panel.gold_turn !== "waiting" && panel.gold_turn !== "granted";
    var card = panel.instant_card;
    $("carta").hidden = !card;
    if (card) {
      var suit = SUITS[card.suit] || card.suit;
      $("carta-valor").textContent = card.rank + " " + suit;
      $("carta-valor").className = (suit === "♥" || suit === "♦") ? "roja" : "";
    }
    var boxes = $("boxes");
    boxes.textContent = "";
    (panel.seats || []).forEach(function (seat) {
      var button = document.createElement("button");
      button.className = "box";
      button.dataset.box = seat.seat;
      button.dataset.luz = seat.light;
      var number = document.createElement("span");
      number.className = "numero";
      number.textContent = seat.seat;
      var credits = document.createElement("span");
      credits.textContent = seat.credits + " créditos";
      button.appendChild(number);
      button.appendChild(credits);
      if (seat.bronze || seat.silver || seat.gold) {
        var grillos = document.createElement("span");
        grillos.className = "grillos";
        grillos.textContent = "Bronce " + seat.bronze + " · Plata " + seat.silver + " · Oro " + seat.gold;
        button.appendChild(grillos);
      }
      button.onclick = function () { seatTouched(seat.seat); };
      boxes.appendChild(button);
    });
    var pending = $("premios-ingresados");
    var entered = panel.pending_prizes || [];
    pending.hidden = entered.length === 0;
    pending.textContent = entered.length ? "Premios ingresados: " + entered.map(function (entry) {
      return "box " + entry.seat + " — " + prizeName(entry.code);
    }).join("; ") : "";
  }

  function answer(line) {
    if (!state.sent[line.input]) { return; } // typed elsewhere (the table's buttons): the panel shows it
    delete state.sent[line.input];
    if (line.type === "ack") {
      say(line.outcome || ("Hecho: " + describe(line.input)), "hecho");
    } else {
      say("Rechazado: " + describe(line.input) + ". " + line.reason, "rechazo");
    }
  }

  function connect() {
    var events = new EventSource("/eventos");
    events.onmessage = function (event) {
      state.heard = Date.now();
      var line = JSON.parse(event.data);
      if (line.type === "panel") { drawPanel(line); }
      else if (line.type === "prizes") { state.prizes = line.prizes || []; $("pozo-nombre").textContent = line.pool_name; }
      else if (line.type === "ack" || line.type === "refused") { answer(line); }
    };
    events.addEventListener("latido", function () { state.heard = Date.now(); });
  }

  function watchSilence() {
    setInterval(function () {
      var silent = Date.now() - state.heard > SILENCE_MS;
      document.body.classList.toggle("suspendido", silent || !state.panel || !!state.panel.suspended);
    }, 200);
  }

  document.addEventListener("DOMContentLoaded", function () {
    document.querySelectorAll("nav button").forEach(function (button) {
      button.onclick = function () { pick(button.dataset.accion); };
    });
    connect();
    watchSilence();
  });
})();
