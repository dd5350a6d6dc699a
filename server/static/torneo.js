// The cashier's page of a tournament: the purchase form's amount is the chosen item's price,
// read-only (Res. 123/2013 Anexo I art. 1: the price is the structure's; the controller checks it).
(function () {
  "use strict";
  var item = document.getElementById("item");
  var amount = document.getElementById("monto");
  if (!item || !amount) return;
  function price() {
    var chosen = item.options[item.selectedIndex];
    if (chosen) amount.value = chosen.dataset.precio;
  }
  item.addEventListener("change", price);
  price();
})();
