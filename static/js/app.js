// Dashboard behaviour, no inline scripts: keyboard navigation of lists and small conveniences.
//
// A list (table body or <ol>) with data-keynav holds rows with data-keynav-item. Keys:
//   j / k      next / previous row (the row gets focus and aria-selected)
//   o, Enter   open the row's main link (the element with data-keynav-open)
//   any key K  click the row's control with data-key="K" (for example a = accept, x = approve);
//              a field with data-key gets focus instead (p = priority: type, Enter saves), and a
//              control with data-confirm="text" needs K twice (d = duplicate), the text showing
//              in the row after the first, and data-confirm-reveal="ID" opening element ID (x =
//              approve a reporter's script: the script shows before the second press runs it)
//   ?          show or hide the help (the element with id keynav-help)
// Keys typed into a form control are left alone.
//
// Label chips carry their GitHub colour as data-label-color (six hex digits, checked by the
// server and again here); it becomes the CSS custom property --label-color, never a style
// attribute: the Content-Security-Policy allows styles from our stylesheet only.
(function () {
  var HEX = /^[0-9a-f]{6}$/;
  function paintLabels(root) {
    root.querySelectorAll("[data-label-color]").forEach(function (chip) {
      var color = chip.getAttribute("data-label-color");
      if (HEX.test(color)) chip.style.setProperty("--label-color", "#" + color);
    });
  }
  paintLabels(document);
  document.addEventListener("htmx:load", function (event) { paintLabels(event.target); });
})();
// A field one types into, where keys are left alone; a checkbox, radio or button is not one (keys
// go on working there). Shared by the list keys and the page keys below.
var typing = (function () {
  var NOT_TYPED = /^(checkbox|radio|button|submit|reset)$/;
  return function (target) {
    if (!target) return false;
    if (target.tagName === "INPUT") return !NOT_TYPED.test(target.type);
    return target.isContentEditable || /^(SELECT|TEXTAREA)$/.test(target.tagName);
  };
})();
(function () {
  function rows(list) { return Array.prototype.slice.call(list.querySelectorAll("[data-keynav-item]")); }
  function current(list) { return list.querySelector("[data-keynav-item][aria-selected='true']"); }
  function select(list, row) {
    rows(list).forEach(function (r) { r.setAttribute("aria-selected", r === row ? "true" : "false"); });
    if (row) { row.focus({ preventScroll: false }); row.scrollIntoView({ block: "nearest" }); }
  }
  // The selected row's keyed actions, for the command palette: [{key, label, run}].
  window.keynavActions = function () {
    var list = document.querySelector("[data-keynav]");
    var row = list && current(list);
    if (!row) return [];
    return Array.prototype.slice.call(row.querySelectorAll("[data-key]")).map(function (control) {
      var key = control.getAttribute("data-key");
      return {
        key: key,
        label: control.getAttribute("title") || control.getAttribute("aria-label") || key,
        run: function () { row.focus(); press(row, control, key); }
      };
    });
  };
  function press(row, control, key) {
    if (typing(control)) {  // a field (p: priority): focus it to type; Enter saves
      control.focus();
      if (control.select) control.select();
    } else if (control.hasAttribute("data-confirm") && armed !== control) {
      arm(row, control);  // a decision that cannot be taken back by a key: press it twice
    } else {
      disarm();
      control.focus();
      control.click();
    }
  }
  document.addEventListener("keydown", function (event) {
    if (event.ctrlKey || event.metaKey || event.altKey || typing(event.target)) return;
    if (event.defaultPrevented) return;
    var list = document.querySelector("[data-keynav]");
    if (!list) return;
    var all = rows(list);
    if (!all.length) return;
    var row = current(list);
    var index = row ? all.indexOf(row) : -1;
    var key = event.key;
    if (key === "j" || key === "k") {
      var next = key === "j" ? Math.min(index + 1, all.length - 1) : Math.max(index - 1, 0);
      select(list, all[next]);
      event.preventDefault();
    } else if ((key === "o" || key === "Enter") && row && event.target === row) {
      var link = row.querySelector("[data-keynav-open]");
      if (link) { link.click(); event.preventDefault(); }
    } else if (key === "?") {
      var help = document.getElementById("keynav-help");
      if (help) { help.hidden = !help.hidden; event.preventDefault(); }
    } else if (row) {
      var control = row.querySelector("[data-key='" + CSS.escape(key) + "']");
      if (!control) { disarm(); return; }
      event.preventDefault();
      press(row, control, key);
    }
  });
  // The second press of a key whose control has data-confirm: its text shows in the row meanwhile.
  var armed = null, armedNote = null, armedTimer = null;
  function arm(row, control) {
    disarm();
    armed = control;
    armedNote = document.createElement("span");
    armedNote.className = "keynav-confirm";
    armedNote.setAttribute("role", "status");
    armedNote.textContent = control.getAttribute("data-confirm");
    control.parentNode.appendChild(armedNote);
    // data-confirm-reveal="ID": what the second press will act on (a reporter's script) opens
    // first, and there is time to read it before the second press.
    var reveal = control.getAttribute("data-confirm-reveal");
    var shown = reveal && document.getElementById(reveal);
    if (shown) {
      if (shown.tagName === "DETAILS") shown.open = true; else shown.hidden = false;
      shown.scrollIntoView({ block: "nearest" });
    }
    armedTimer = window.setTimeout(disarm, shown ? 60000 : 5000);
  }
  function disarm() {
    if (armedNote && armedNote.parentNode) armedNote.parentNode.removeChild(armedNote);
    if (armedTimer) window.clearTimeout(armedTimer);
    armed = armedNote = armedTimer = null;
  }
  document.addEventListener("click", function (event) {
    var row = event.target.closest && event.target.closest("[data-keynav-item]");
    if (!row) return;
    if (typing(event.target)) {  // a click into a field selects its row but leaves it focused
      rows(row.closest("[data-keynav]")).forEach(function (r) {
        r.setAttribute("aria-selected", r === row ? "true" : "false");
      });
    } else {
      select(row.closest("[data-keynav]"), row);
    }
  });
  // After htmx replaced a row, keep the keyboard position on the new row.
  document.addEventListener("htmx:afterSwap", function (event) {
    var row = event.target.closest ? event.target.closest("[data-keynav-item]") : null;
    if (!row && event.target.matches && event.target.matches("[data-keynav-item]")) row = event.target;
    if (row) { select(row.closest("[data-keynav]"), row); }
  });
})();

// Bulk selection in the triage queue: a row's checkbox (key c), shift-click selects the range
// from the last box clicked, and the button says how many are selected.
(function () {
  "use strict";
  var last = null;
  function boxes() { return Array.prototype.slice.call(document.querySelectorAll("[data-bulk-select]")); }
  function count() {
    var n = boxes().filter(function (b) { return b.checked; }).length;
    Array.prototype.forEach.call(document.querySelectorAll("[data-bulk-count]"), function (el) {
      el.textContent = String(n);
    });
  }
  document.addEventListener("click", function (event) {
    var box = event.target;
    if (!box.matches || !box.matches("[data-bulk-select]")) return;
    var all = boxes();
    if (event.shiftKey && last && all.indexOf(last) >= 0) {
      var a = all.indexOf(last), b = all.indexOf(box);
      all.slice(Math.min(a, b), Math.max(a, b) + 1).forEach(function (other) { other.checked = box.checked; });
    }
    last = box;
    count();
  });
  document.addEventListener("change", function (event) {
    if (event.target.matches && event.target.matches("[data-bulk-select]")) count();
  });
  document.addEventListener("DOMContentLoaded", count);
})();

// The menu on phones: folded behind its button (CSS, once this script runs).
(function () {
  "use strict";
  document.documentElement.classList.add("js");
  document.addEventListener("DOMContentLoaded", function () {
    var toggle = document.querySelector(".nav-toggle");
    if (!toggle) return;
    toggle.hidden = false;
    toggle.addEventListener("click", function () {
      var nav = toggle.closest(".nav");
      var open = nav.classList.toggle("nav-open");
      toggle.setAttribute("aria-expanded", open ? "true" : "false");
    });
  });
})();

// Keys of every page, as on GitHub: "/" focuses the search field, "g" then a letter goes to a
// page (g h home, g i issues, g t the triage queue, g r releases, g s social, g m models), and
// Ctrl-K (Cmd-K) opens the command palette: every page, the keyboard help, and the actions of
// the selected row (the same as their keys: a decision that needs two presses still does).
(function () {
  "use strict";
  var GO = { h: "/", i: "/issues/", t: "/triage/", r: "/releases/", s: "/social/", m: "/models/" };
  var pendingG = null;
  document.addEventListener("keydown", function (event) {
    if ((event.ctrlKey || event.metaKey) && !event.altKey && event.key.toLowerCase() === "k") {
      event.preventDefault();
      palette.toggle();
      return;
    }
    if (event.ctrlKey || event.metaKey || event.altKey || typing(event.target)) return;
    if (pendingG) {
      window.clearTimeout(pendingG);
      pendingG = null;
      if (GO[event.key]) { event.preventDefault(); window.location.assign(GO[event.key]); }
      return;
    }
    if (event.key === "g") {
      pendingG = window.setTimeout(function () { pendingG = null; }, 1500);
      event.preventDefault();
    } else if (event.key === "/") {
      var search = document.querySelector("main input[type=search], main [role=search] input");
      if (search) { event.preventDefault(); search.focus(); search.select(); }
    }
  }, true);

  var palette = (function () {
    var dialog = null, input = null, list = null, entries = [], shown = [], active = 0;
    function build() {
      dialog = document.createElement("dialog");
      dialog.className = "command-palette";
      dialog.setAttribute("aria-label", "Command palette");
      input = document.createElement("input");
      input.type = "text";
      input.setAttribute("aria-label", "Type a command");
      input.setAttribute("role", "combobox");
      input.setAttribute("aria-controls", "command-palette-list");
      input.setAttribute("aria-expanded", "true");
      input.placeholder = "Type a command or a page";
      list = document.createElement("ul");
      list.id = "command-palette-list";
      list.setAttribute("role", "listbox");
      dialog.appendChild(input);
      dialog.appendChild(list);
      document.body.appendChild(dialog);
      input.addEventListener("input", render);
      input.addEventListener("keydown", function (event) {
        if (event.key === "ArrowDown") { active = Math.min(active + 1, shown.length - 1); paint(); event.preventDefault(); }
        else if (event.key === "ArrowUp") { active = Math.max(active - 1, 0); paint(); event.preventDefault(); }
        else if (event.key === "Enter") { event.preventDefault(); run(shown[active]); }
      });
      list.addEventListener("click", function (event) {
        var item = event.target.closest("[data-index]");
        if (item) run(shown[Number(item.getAttribute("data-index"))]);
      });
    }
    function collect() {
      var found = [];
      (window.keynavActions ? window.keynavActions() : []).forEach(function (action) {
        found.push({ label: action.label, hint: action.key, run: action.run });
      });
      document.querySelectorAll(".nav-links a[href]").forEach(function (link) {
        found.push({ label: "Go to " + link.textContent.trim(), hint: "", run: function () { link.click(); } });
      });
      var help = document.getElementById("keynav-help");
      if (help) found.push({ label: "Show the keyboard help", hint: "?", run: function () { help.hidden = false; } });
      return found;
    }
    function render() {
      var words = input.value.toLowerCase().split(/\s+/).filter(Boolean);
      shown = entries.filter(function (entry) {
        var text = entry.label.toLowerCase();
        return words.every(function (word) { return text.indexOf(word) >= 0; });
      });
      active = 0;
      list.textContent = "";
      shown.forEach(function (entry, index) {
        var item = document.createElement("li");
        item.setAttribute("role", "option");
        item.setAttribute("data-index", String(index));
        item.textContent = entry.label;
        if (entry.hint) {
          var kbd = document.createElement("kbd");
          kbd.textContent = entry.hint;
          item.appendChild(document.createTextNode(" "));
          item.appendChild(kbd);
        }
        list.appendChild(item);
      });
      paint();
    }
    function paint() {
      Array.prototype.forEach.call(list.children, function (item, index) {
        item.setAttribute("aria-selected", index === active ? "true" : "false");
        if (index === active) input.setAttribute("aria-activedescendant", item.id = "command-" + index);
      });
    }
    function run(entry) {
      if (!entry) return;
      dialog.close();
      entry.run();
    }
    return {
      toggle: function () {
        if (!dialog) build();
        if (dialog.open) { dialog.close(); return; }
        entries = collect();
        input.value = "";
        render();
        dialog.showModal();
        input.focus();
      }
    };
  })();
})();
