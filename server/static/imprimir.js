// A page to print (the closing sheet): its "Imprimir / Guardar PDF" button opens the browser's
// print dialog, where the page is printed or saved as a PDF.
(function () {
  "use strict";
  document.querySelectorAll("[data-imprimir]").forEach(function (button) {
    button.addEventListener("click", function () { window.print(); });
  });
})();
