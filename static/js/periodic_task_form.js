// The admin's periodic task form (django-celery-beat), without the package's inline script:
// under the crontab field, the chosen schedule in words; the read-only translation row hidden.
// Text only (textContent), never HTML.
(function () {
  var crontabs = document.getElementById("readable-crontabs");
  var select = document.getElementById("id_crontab");
  if (!crontabs || !select) return;
  var readable = JSON.parse(crontabs.textContent);
  var helpSource = document.getElementById("crontab-help");
  var original = helpSource ? JSON.parse(helpSource.textContent) : "";
  var translation = document.querySelector(".field-crontab_translation");
  if (translation) translation.style.display = "none";
  select.addEventListener("change", function () {
    var help = document.querySelector(".field-crontab .help");
    if (!help) return;
    help.textContent = original;
    var words = readable[select.value];
    if (words) {
      help.appendChild(document.createElement("br"));
      help.appendChild(document.createTextNode("Translation: " + words));
    }
  });
})();
