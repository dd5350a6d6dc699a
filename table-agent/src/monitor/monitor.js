// The table's monitor: a view of the agent's output lines and a keyboard for its line protocol
// (docs/agent.md). Nothing here decides a light: the seats are drawn from the agent's panel,
// which lights a seat only after the controller acknowledged its bet (11.11.5).
"use strict";

(function () {
  var SILENCE_MS = 1000; // SUSPENDIDO within a second of losing the agent (3.7.5)
  var INSPECTOR_IDLE_MS = 120000; // the inspector's buttons close after two minutes untouched
  var PIN_DIGITS = [4, 8];
  var ROULETTE = "ruleta-americana";
  var CREDITS = [1, 5, 10, 20];
  // Actions that ask for a box first, and what they say about it.
  var ASKS = {
    credits: "Vender créditos", press: "Apuesta de un box", prize: "Premio", "refund-credits": "Devolver créditos",
    void: "Anular", refund: "Casillero anulado", "close-seat": "Cerrar box", "open-seat": "Abrir box",
    absent: "Jugador ausente", returns: "Regresa el jugador", "annul-series": "Anular serie",
    "custody-bet": "Apuesta en custodia", "custody-prize": "Premio en custodia"
  };
  var BOX_WORDS = {
    void: "anular la apuesta del box ", refund: "casillero anulado: devolver la apuesta del box ",
    "close-seat": "cerrar el box ", "open-seat": "abrir el box ", absent: "jugador ausente en el box ",
    returns: "regresa el jugador del box ", "annul-series": "anular la serie del box ",
    "custody-bet": "apuesta del box ", "custody-prize": "premio del box "
  };
  var NAMES = {
    start: "INICIAR JUEGO", finish: "FINALIZAR JUEGO", accept: "ACEPTAR", "last-round": "Última ronda",
    open: "Apertura de Mesa", close: "Cierre de Mesa", "gold-turn": "Se juega Grillo de Oro", carry: "Talla quemada"
  };
  var SUITS = { H: "♥", D: "♦", C: "♣", S: "♠", corazones: "♥", diamantes: "♦", treboles: "♣", picas: "♠" };
  var state = {
    panel: null, prizes: [], inspectors: [], game: "", heard: 0, action: null, sent: {},
    inspector: null, inspectorTimer: null, suspended: true, signing: null
  };
  // The button each state of the round expects next (12.5.2.1: the prizes entered with
  // FINALIZAR JUEGO, ACEPTAR validates them, FINALIZAR JUEGO at the rack, 12.5.2.3; a closed
  // table is opened by the floor inspector, 4.6).
  var NEXT = {
    cerrada: "open", apuestas: "start", "en juego": "finish", "premios ingresados": "accept", aceptado: "finish"
  };

  function $(id) { return document.getElementById(id); }

  function amount(text) {
    if (!text) { return "—"; }
    var parts = String(text).split(".");
    var whole = parts[0].replace(/\B(?=(\d{3})+(?!\d))/g, ".");
    return "$ " + whole + "," + ((parts[1] || "") + "00").slice(0, 2);
  }

  // A level's meter: "$" and a non-breaking space, so the amount never parts from its sign.
  function levelAmount(text) {
    return amount(text).replace("$ ", "$\u00a0");
  }

  // A pool with levels (docs/readings.md, "Levels"): each level's meter where a pool of one
  // level shows its one amount; the house's level is never among them.
  function drawLevels(levels) {
    var box = $("niveles");
    box.textContent = "";
    box.hidden = levels.length === 0;
    $("monto").hidden = levels.length > 0;
    levels.forEach(function (level) {
      var meter = document.createElement("span");
      meter.className = "nivel";
      meter.dataset.nivel = level.name;
      var name = document.createElement("small");
      name.textContent = level.name + " ";
      var value = document.createElement("strong");
      value.textContent = levelAmount(level.displayed);
      // What the level opens at and goes back to once won whole, in small print under its
      // meter (drawn by the style sheet: the meter's text stays its name and amount).
      meter.dataset.reposicion = level.reset ? "reposición " + levelAmount(level.reset) : "";
      // A mystery level: its ceiling instead ("debe salir antes de …"; never its trigger).
      if (level.must_hit_by) {
        meter.dataset.misterioso = "";
        meter.dataset.reposicion = "debe salir antes de " + levelAmount(level.must_hit_by);
      }
      meter.appendChild(name);
      meter.appendChild(value);
      box.appendChild(meter);
    });
  }

  // An award of the round (the panel's `awards`, fixed at ACEPTAR, 3.5.1): what it is, the
  // level that paid it or the house, its amount, and PENDIENTE DE PAGO while it waits for
  // Venta-Pagos (3.5.2). An envy bonus is the seat's own award, paid by the house
  // (docs/readings.md, "The envy bonus"); one won in another table's round of the link names
  // that table ("Bono envidia por CP1"), shown until this table's FINALIZAR JUEGO.
  function envyWords(award) {
    return "Bono envidia" + (award.from ? " por " + award.from : "");
  }

  function awardWhat(award) {
    if (award.envy) { return envyWords(award); }
    // A drawn prize: "Pozo misterioso" (the trigger its level reached), "Asiento caliente".
    if (award.name) { return award.name; }
    for (var i = 0; i < state.prizes.length; i++) {
      if (state.prizes[i].code === award.code) { return state.prizes[i].name; }
    }
    return award.code;
  }

  function span(className, text) {
    var element = document.createElement("span");
    element.className = className;
    element.textContent = text;
    return element;
  }

  // "Box 3 · Tres sietes de corazones · Grand · $ 2.000.000,00 · PENDIENTE DE PAGO";
  // "Box 2 · Bono envidia · $ 50.000,00 · pagado por la casa";
  // "Box 3 · Bono envidia por CP1 · $ 150.000,00 · pagado por la casa".
  function awardLine(award) {
    var line = document.createElement("li");
    line.className = "premio";
    line.dataset.box = award.seat;
    line.dataset.premio = award.code;
    if (award.from) { line.dataset.desde = award.from; }
    var words = ["Box " + award.seat, awardWhat(award)];
    if (award.level && !award.house) { words.push(award.level); }
    line.appendChild(document.createTextNode(words.join(" · ") + " · "));
    line.appendChild(span("monto-premio", levelAmount(award.award)));
    if (award.house) { line.appendChild(document.createTextNode(" · pagado por la casa")); }
    if (award.payout_order_id) {
      line.appendChild(document.createTextNode(" · "));
      line.appendChild(span("pendiente", "PENDIENTE DE PAGO"));
    }
    return line;
  }

  // The same award on its box: "Major · F2 · $ 100.080,00", "Bono envidia · $ 50.000,00",
  // "Bono envidia por CP1 · $ 150.000,00".
  function awardOnBox(award) {
    var note = document.createElement("span");
    note.className = "premio";
    note.dataset.premio = award.code;
    if (award.from) { note.dataset.desde = award.from; }
    // A drawn prize is named ("Pozo misterioso", "Asiento caliente"): no hand of this seat won it.
    var what = award.envy ? envyWords(award) : (award.drawn && award.name) ? award.name
      : award.house ? "Pagado por la casa" : (award.level || "Premio");
    // The separator bound to the words before it: a narrow box breaks the line after it.
    note.appendChild(document.createTextNode(what + "\u00a0· "));
    note.appendChild(span("monto-premio", levelAmount(award.award)));
    if (award.payout_order_id) {
      note.appendChild(document.createElement("br"));
      note.appendChild(span("pendiente", "PENDIENTE DE PAGO"));
    }
    return note;
  }

  // "1 premio", "2 premios".
  function prizes(count, what) {
    return count === 1 ? "1 premio " + what : count + " premios " + what + "s";
  }

  // "1 crédito", "5 créditos".
  function creditos(count) {
    return Number(count) === 1 ? "1 crédito" : count + " créditos";
  }

  function drawAwards(awards) {
    $("premios-aceptados").hidden = awards.length === 0;
    $("premios-aceptados-titulo").textContent = prizes(awards.length, "aceptado");
    document.body.classList.toggle("con-premios", awards.length > 0);
    var list = $("premios-lista");
    list.textContent = "";
    awards.forEach(function (award) { list.appendChild(awardLine(award)); });
  }

  // What a prize pays, beside its name on its button ("100 % del pozo", "$ 500,00", "10 veces
  // la apuesta, pagado por la casa"), as the controller words it; in a pool with levels it says
  // which level (or the house) pays it.
  function prizePays(prize) {
    return (prize.pays || prize.level || "").replace("$ ", "$\u00a0");
  }

  // The level a prize entered will be paid from, " · Grand" (" · pagado por la casa"), in a
  // pool with levels; nothing in a pool of one level. The paytable's `house` says the house
  // pays it.
  function prizeLevel(code) {
    for (var i = 0; i < state.prizes.length; i++) {
      var prize = state.prizes[i];
      if (prize.code === code && prize.level) {
        return " · " + (prize.house ? "pagado por la casa" : prize.level);
      }
    }
    return "";
  }

  function prizeName(code) {
    for (var i = 0; i < state.prizes.length; i++) {
      if (state.prizes[i].code === code) { return state.prizes[i].name; }
    }
    return code;
  }

  // The dealer's lines go to /linea; the inspector's to /inspector with who and their PIN, which
  // the controller checks (4.6, 4.7): the page keeps the PIN only while the inspector's buttons
  // are open.
  function send(line) {
    var inspector = state.inspector;
    state.sent[line] = inspector ? "inspector" : "croupier";
    // A choice does not outlive its action: the next box touched asks for a new one.
    release("Elija una acción.");
    say("Enviado: " + describe(line) + "…", "");
    var body = inspector ? { linea: line, inspector: inspector.id, pin: inspector.pin } : { linea: line };
    if (inspector) { keepInspector(); }
    fetch(inspector ? "/inspector" : "/linea", {
      method: "POST",
      headers: { "content-type": "application/json", "x-pozo-monitor": "1" },
      body: JSON.stringify(body)
    }).then(function (response) {
      if (!response.ok) { return response.text().then(function (text) { say(describe(line) + ". " + text, "rechazo"); }); }
    }).catch(function () { say("El monitor no llega al agente de la mesa.", "rechazo"); });
  }

  // The dealer's choice of action let go: no button marked, the prompt back to `prompt`.
  function release(prompt) {
    state.action = null;
    document.querySelectorAll("nav button").forEach(function (button) { button.classList.remove("activa"); });
    prompting(prompt, false);
  }

  // The line under the buttons: what to do now; `asking` (a box to touch) stands out.
  function prompting(text, asking) {
    var box = $("indicacion");
    box.textContent = text;
    box.classList.toggle("pide", !!asking);
  }

  // The controller's words as the monitor speaks: a seat is a "box" on every line of the
  // monitor (the controller's outcomes say "posición", as its journal does), and an amount is
  // never split from its "$" (a non-breaking space).
  function boxWords(text) {
    return String(text || "").replace(/\bposiciones\b/g, "boxes").replace(/\bposición\b/g, "box")
      .replace(/\$ (?=\d)/g, "$\u00a0");
  }

  function capital(text) {
    return text.charAt(0).toUpperCase() + text.slice(1);
  }

  function describe(line) {
    var words = line.split(" ");
    switch (words[0]) {
      case "credits": return creditos(words[2]) + " al box " + words[1];
      case "press": return "apuesta del box " + words[1];
      case "prize": return prizeName(words[2]) + " en el box " + words[1];
      case "refund-credits": return "devolver los créditos del box " + words[1];
      case "custody-bet": case "custody-prize": return BOX_WORDS[words[0]] + words[1] + " en custodia";
      default:
        if (BOX_WORDS[words[0]]) { return BOX_WORDS[words[0]] + words[1]; }
        return NAMES[words[0]] || line;
    }
  }

  // The answer to the last action, in a banner under the header that stays until the dealer's
  // next action (or the link comes back): a refusal red and headed RECHAZADO, a done action
  // green and headed HECHO, anything else plain; "" takes it away.
  var TITLES = { rechazo: "RECHAZADO", hecho: "HECHO" };
  function say(text, kind) {
    var box = $("mensaje");
    box.hidden = !text;
    box.className = kind || "";
    $("mensaje-titulo").textContent = TITLES[kind] || "";
    $("mensaje-titulo").hidden = !TITLES[kind];
    $("mensaje-texto").textContent = boxWords(text);
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
      // What it pays, then the article that sets it in small print (never in its name).
      if (option.note) {
        var note = document.createElement("small");
        note.className = "paga";
        note.textContent = option.note;
        button.appendChild(note);
      }
      if (option.article) {
        var article = document.createElement("small");
        article.className = "articulo";
        // "art. 11.5.1"; a rulebook's own wording ("Pago fijo") as it is written.
        article.textContent = /\d/.test(option.article) ? "art. " + option.article : option.article;
        button.appendChild(article);
      }
      button.onclick = function () { $("elegir").close(); then(option.value); };
      list.appendChild(button);
    });
    $("elegir-cancelar").onclick = function () { $("elegir").close(); };
    $("elegir").showModal();
  }

  function pick(action) {
    if (isSuspended()) { return; }
    // The dealer's next action: the last answer has been seen.
    say("", "");
    if (action === "inspector") { return startInspector(); }
    if (action === "salir") { return endInspector("Se cerraron los botones del inspector."); }
    document.querySelectorAll("nav button").forEach(function (button) {
      button.classList.toggle("activa", button.dataset.accion === action && !!ASKS[action]);
    });
    if (ASKS[action]) {
      state.action = action;
      prompting(ASKS[action] + ": toque el box.", true);
    } else {
      release("Elija una acción.");
      confirmThen(action);
    }
  }

  function seatTouched(seat) {
    if (isSuspended()) {
      prompting("SUSPENDIDO: sin enlace con el controlador no se toca ningún box (3.7.5).", false);
      return;
    }
    var action = state.action;
    if (!action) { prompting("Elija primero una acción; luego toque el box.", true); return; }
    if (action === "credits") {
      choose("Créditos para el box " + seat, CREDITS.map(function (n) { return { label: creditos(n), value: n }; }),
        function (n) { confirmThen("credits " + seat + " " + n); });
    } else if (action === "prize") {
      // An envy bonus is never entered: it follows its hand (the paytable's `envy`).
      // Nor a drawn prize (a mystery level's hit, its hot seat): the controller's draw decides it.
      var offered = state.prizes.filter(function (prize) { return !prize.envy && !prize.drawn; });
      choose("Premio del box " + seat, offered.map(function (prize) {
        return { label: prize.name, value: prize.code, note: prizePays(prize), article: prize.article };
      }), function (code) { confirmThen("prize " + seat + " " + code); });
    } else {
      confirmThen(action + " " + seat);
    }
  }

  function drawPanel(panel) {
    state.panel = panel;
    // "ronda", as the sala and the controller say; a closed table plays no round.
    var playing = panel.round && panel.state && panel.state !== "cerrada";
    $("mesa").textContent = "Mesa " + panel.table + (playing ? " · ronda " + panel.round : "");
    $("monto").textContent = levelAmount(panel.displayed);
    drawLevels(panel.levels || []);
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
    var awards = panel.awards || [];
    drawAwards(awards);
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
      credits.textContent = creditos(seat.credits);
      // The light in words as well as in colour, the flor's words (docs/agent.md §11): CON
      // APUESTA on a lit box, "puede apostar" on a blue one, "sin apuesta" on one switched off.
      var bet = document.createElement("span");
      bet.className = "apuesta";
      bet.textContent = seat.light === "on" ? "CON APUESTA" : seat.light === "blue" ? "puede apostar" : "sin apuesta";
      button.appendChild(number);
      button.appendChild(bet);
      button.appendChild(credits);
      if (seat.bronze || seat.silver || seat.gold) {
        var grillos = document.createElement("span");
        grillos.className = "grillos";
        grillos.textContent = "Bronce " + seat.bronze + " · Plata " + seat.silver + " · Oro " + seat.gold;
        button.appendChild(grillos);
      }
      // What the controller's view says of the seat beyond its light: the stake of its bet
      // (AJ 2.5.4.1), a closed box (AJ 2.5.6.1), an absent player whose grillos are kept (3.7.1).
      var notes = [];
      if (seat.stake > 1) { notes.push("apuesta " + creditos(seat.stake)); }
      if (seat.closed) { notes.push("box cerrado"); }
      if (seat.absent) { notes.push("jugador ausente"); }
      if (notes.length) {
        var note = document.createElement("span");
        note.className = "grillos";
        note.textContent = notes.join(" · ");
        button.appendChild(note);
      }
      awards.forEach(function (award) {
        if (award.seat === seat.seat) { button.appendChild(awardOnBox(award)); }
      });
      button.onclick = function () { seatTouched(seat.seat); };
      boxes.appendChild(button);
    });
    var pending = $("premios-ingresados");
    var entered = panel.pending_prizes || [];
    pending.hidden = entered.length === 0;
    var title = entered.length === 1 ? "Premio ingresado" : entered.length + " premios ingresados";
    pending.textContent = entered.length ? title + ": " + entered.map(function (entry) {
      return "box " + entry.seat + " — " + prizeName(entry.code) + prizeLevel(entry.code);
    }).join("; ") : "";
    showSuspended();
    markNext();
  }

  // The button the round expects next (NEXT), marked SIGUIENTE; none while suspended.
  function markNext() {
    var panel = state.panel;
    var next = panel && !isSuspended() ? NEXT[panel.state] : null;
    // A closed table: the inspector's Apertura de Mesa, reached through the Inspector button.
    var dealer = next === "open" ? "inspector" : next;
    [["acciones", dealer], ["inspector-acciones", next]].forEach(function (pair) {
      $(pair[0]).querySelectorAll("button").forEach(function (button) {
        var marked = !!pair[1] && button.dataset.accion === pair[1];
        button.classList.toggle("siguiente", marked);
        var label = button.querySelector(".marca");
        if (marked && !label) {
          label = document.createElement("span");
          label.className = "marca";
          label.textContent = "SIGUIENTE";
          button.insertBefore(label, button.firstChild);
        } else if (!marked && label) {
          button.removeChild(label);
        }
      });
    });
  }

  function isSuspended() {
    return state.suspended;
  }

  // SUSPENDIDO (3.7.5): nothing can be touched. Entering it closes every question and lets go
  // of the dealer's choice; the boxes are disabled and say so. Leaving it (the link back) takes
  // away the answers given before, now stale.
  function showSuspended() {
    var silent = Date.now() - state.heard > SILENCE_MS;
    var now = silent || !state.panel || !!state.panel.suspended;
    var was = state.suspended;
    state.suspended = now;
    document.body.classList.toggle("suspendido", now);
    document.querySelectorAll(".box").forEach(function (box) {
      box.disabled = now;
      var note = box.querySelector(".bloqueado");
      if (now && !note) {
        note = document.createElement("span");
        note.className = "bloqueado";
        note.textContent = "BLOQUEADO";
        box.appendChild(note);
      } else if (!now && note) {
        box.removeChild(note);
      }
    });
    if (now && !was) {
      ["confirmar", "elegir", "pin"].forEach(function (id) { if ($(id).open) { $(id).close(); } });
      endSigning();
      release("SUSPENDIDO: sin enlace con el controlador no se toca ningún box (3.7.5).");
    } else if (!now && was) {
      say("", "");
      release("Elija una acción.");
    }
    if (now !== was) { markNext(); }
  }

  function answer(line) {
    var by = state.sent[line.input];
    if (!by) { return; } // typed elsewhere (the table's buttons): the panel shows it
    delete state.sent[line.input];
    if (line.type === "ack") {
      say(line.outcome || capital(describe(line.input)), "hecho");
      return;
    }
    // The controller's words in Spanish, with the article, where it sent them.
    say(capital(describe(line.input)) + ". " + (line.motivo || line.reason), "rechazo");
    if (by === "inspector" && /^inspector/.test(line.reason || "")) {
      // A wrong PIN (or a locked-out inspector): the buttons close and the PIN is forgotten.
      endInspector(null);
    }
  }

  // ---------------------------------------------------------------- the inspector (4.6, 4.7)

  function startInspector() {
    if (!state.inspectors.length) {
      say("No hay inspectores registrados para esta mesa (claves de inspector de mesa del controlador).", "rechazo");
      return;
    }
    choose("¿Quién es el inspector?", state.inspectors.map(function (person) {
      return { label: person.name, value: person };
    }), askPin);
  }

  function askPin(person) {
    var typed = "";
    var dots = $("pin-puntos");
    function show() { dots.textContent = typed.replace(/./g, "●") || "—"; }
    $("pin-titulo").textContent = "PIN de " + person.name;
    var keys = $("pin-teclas");
    keys.textContent = "";
    ["1", "2", "3", "4", "5", "6", "7", "8", "9", "Borrar", "0"].forEach(function (key) {
      var button = document.createElement("button");
      button.textContent = key;
      button.dataset.tecla = key;
      button.onclick = function () {
        if (key === "Borrar") { typed = typed.slice(0, -1); }
        else if (typed.length < PIN_DIGITS[1]) { typed += key; }
        show();
      };
      keys.appendChild(button);
    });
    show();
    var dialog = $("pin");
    pinError("");
    $("pin-entrar").disabled = false;
    // Checked by the controller when typed (4.6, 4.7; `Table/CheckInspector`, read-only): the
    // inspector's buttons open only on its answer; a wrong PIN leaves them closed.
    $("pin-entrar").onclick = function () {
      if (typed.length < PIN_DIGITS[0]) { pinError("De " + PIN_DIGITS[0] + " a " + PIN_DIGITS[1] + " dígitos"); return; }
      var pin = typed;
      typed = "";
      show();
      checkPin(person, pin);
    };
    $("pin-cancelar").onclick = function () { typed = ""; endSigning(); dialog.close(); };
    dialog.showModal();
  }

  function pinError(text) {
    $("pin-error").textContent = text;
    $("pin-error").hidden = !text;
  }

  function checkPin(person, pin) {
    endSigning();
    pinError("");
    $("pin-estado").textContent = "Comprobando el PIN…";
    $("pin-entrar").disabled = true;
    state.signing = {
      person: person,
      pin: pin,
      timer: setTimeout(function () { refusedPin("El controlador no respondió: ingrese el PIN otra vez."); }, 5000)
    };
    fetch("/pin", {
      method: "POST",
      headers: { "content-type": "application/json", "x-pozo-monitor": "1" },
      body: JSON.stringify({ inspector: person.id, pin: pin })
    }).then(function (response) {
      if (!response.ok) { return response.text().then(function (text) { refusedPin(text); }); }
    }).catch(function () { refusedPin("El monitor no llega al agente de la mesa."); });
  }

  // The PIN check given up: its timer stopped, the PIN forgotten.
  function endSigning() {
    if (state.signing) { clearTimeout(state.signing.timer); }
    state.signing = null;
    $("pin-estado").textContent = "";
    $("pin-entrar").disabled = false;
  }

  function refusedPin(text) {
    endSigning();
    pinError(boxWords(text));
  }

  // The controller's answer to the PIN typed (a `pin` line of the agent).
  function pinChecked(line) {
    var signing = state.signing;
    if (!signing || line.inspector !== signing.person.id) { return; }
    if (!line.accepted) { return refusedPin("RECHAZADO: " + (line.motivo || line.reason)); }
    var pin = signing.pin;
    endSigning();
    $("pin").close();
    state.inspector = { id: signing.person.id, name: line.name || signing.person.name, pin: pin };
    $("inspector-nombre").textContent = "Inspector: " + state.inspector.name + " — elija una acción";
    $("acciones").hidden = true;
    $("inspector-acciones").hidden = false;
    release("Botones del inspector. Elija una acción.");
    say("PIN correcto: " + state.inspector.name + ".", "hecho");
    keepInspector();
    markNext();
  }

  function keepInspector() {
    clearTimeout(state.inspectorTimer);
    state.inspectorTimer = setTimeout(function () {
      endInspector("Los botones del inspector se cerraron por inactividad.");
    }, INSPECTOR_IDLE_MS);
  }

  function endInspector(message) {
    clearTimeout(state.inspectorTimer);
    // A question left open would otherwise send as the dealer: every dialog closes with the buttons.
    ["confirmar", "elegir", "pin"].forEach(function (id) { if ($(id).open) { $(id).close(); } });
    endSigning();
    state.inspector = null;
    $("inspector-acciones").hidden = true;
    $("acciones").hidden = false;
    release("Elija una acción.");
    if (message) { say(message, ""); }
  }

  function showGame(game) {
    state.game = game || "";
    var roulette = state.game === ROULETTE;
    document.querySelectorAll("[data-juego]").forEach(function (button) {
      button.hidden = (button.dataset.juego === "ruleta") !== roulette;
    });
    // At the roulette the inspector enters the prizes (4.3.1): not the dealer's button there.
    $("acciones").querySelector("[data-accion=prize]").hidden = roulette;
  }

  function connect() {
    var events = new EventSource("/eventos");
    events.onmessage = function (event) {
      state.heard = Date.now();
      var line = JSON.parse(event.data);
      if (line.type === "panel") { drawPanel(line); }
      else if (line.type === "prizes") {
        state.prizes = line.prizes || [];
        state.inspectors = line.inspectors || [];
        $("pozo-nombre").textContent = line.pool_name;
        showGame(line.game);
      }
      else if (line.type === "ack" || line.type === "refused") { answer(line); }
      else if (line.type === "pin") { pinChecked(line); }
    };
    events.addEventListener("latido", function () { state.heard = Date.now(); });
  }

  function watchSilence() {
    setInterval(showSuspended, 200);
  }

  document.addEventListener("DOMContentLoaded", function () {
    document.querySelectorAll("nav button").forEach(function (button) {
      button.onclick = function () { pick(button.dataset.accion); };
    });
    connect();
    watchSilence();
  });
})();
