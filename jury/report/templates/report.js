"use strict";
// Filters, search and sort over the case cards of an aiojury report. Inline under the page's
// Content-Security-Policy (its SHA-256 is the only script allowed). It only shows, hides and
// reorders elements the server rendered: it never writes HTML, so case text stays inert.
(function () {
  const list = document.getElementById("case-list");
  const controls = document.getElementById("controls");
  if (!list || !controls) return;
  const cards = Array.from(list.querySelectorAll(":scope > article"));
  const shown = document.getElementById("shown");
  const none = document.getElementById("none");
  const search = document.getElementById("f-search");
  const sort = document.getElementById("f-sort");
  const juror = document.getElementById("f-juror");
  const vote = document.getElementById("f-vote");
  const flags = Array.from(controls.querySelectorAll("input[data-flag]"));
  const selects = Array.from(controls.querySelectorAll("select[data-attr]"));
  const groups = Array.from(controls.querySelectorAll("[data-group]"));
  const texts = new Map();
  const state = {};

  function text(card) {
    if (!texts.has(card)) texts.set(card, card.textContent.toLowerCase());
    return texts.get(card);
  }

  function voteMatches(card) {
    if (!juror || !juror.value) return true;
    const rows = card.querySelectorAll(".vote[data-juror]");
    for (const row of rows) {
      if (row.dataset.juror !== juror.value) continue;
      const want = vote ? vote.value : "";
      if (!want) return true;
      if (want === "dissent" && row.dataset.dissent === "1") return true;
      if (want === row.dataset.status || want === row.dataset.verdict) return true;
    }
    return false;
  }

  function matches(card) {
    for (const [attr, value] of Object.entries(state)) {
      if (value && card.dataset[attr] !== value) return false;
    }
    for (const flag of flags) {
      if (flag.checked && card.dataset[flag.dataset.flag] !== "1") return false;
    }
    const query = search ? search.value.trim().toLowerCase() : "";
    if (query && !query.split(/\s+/).every((word) => text(card).includes(word))) return false;
    return voteMatches(card);
  }

  function key(card, name) {
    const raw = card.dataset["s" + name.charAt(0).toUpperCase() + name.slice(1)];
    if (raw === undefined || raw === "") return null;
    const number = Number(raw);
    return Number.isNaN(number) ? raw : number;
  }

  function order() {
    const option = sort ? sort.selectedOptions[0] : null;
    const name = option ? option.value : "order";
    const down = option && option.dataset.dir === "desc" ? -1 : 1;
    const sorted = cards.slice().sort((a, b) => {
      const x = key(a, name);
      const y = key(b, name);
      if (x === y) return key(a, "order") - key(b, "order");
      if (x === null) return 1; // cases without the value go last, whichever the direction
      if (y === null) return -1;
      return (x < y ? -1 : 1) * down;
    });
    for (const card of sorted) list.appendChild(card);
  }

  function apply() {
    let count = 0;
    for (const card of cards) {
      const ok = matches(card);
      card.hidden = !ok;
      if (ok) count += 1;
    }
    for (const group of groups) {
      for (const button of group.querySelectorAll("button")) {
        const on = (state[group.dataset.group] || "") === button.value;
        button.setAttribute("aria-pressed", on ? "true" : "false");
      }
    }
    if (vote) vote.disabled = !juror.value;
    for (const row of list.querySelectorAll(".vote[data-juror]")) {
      row.classList.toggle("focus", !!juror && row.dataset.juror === juror.value);
    }
    shown.textContent = "Showing " + count + " of " + cards.length + " cases";
    none.hidden = count !== 0;
  }

  function reset() {
    for (const name of Object.keys(state)) state[name] = "";
    for (const flag of flags) flag.checked = false;
    for (const select of selects) select.value = "";
    if (juror) juror.value = "";
    if (vote) vote.value = "";
    if (search) search.value = "";
  }

  for (const group of groups) {
    state[group.dataset.group] = "";
    group.addEventListener("click", (event) => {
      const button = event.target.closest("button");
      if (!button) return;
      state[group.dataset.group] = button.value;
      apply();
    });
  }
  for (const select of selects) {
    state[select.dataset.attr] = "";
    select.addEventListener("change", () => {
      state[select.dataset.attr] = select.value;
      apply();
    });
  }
  for (const input of [...flags, juror, vote, search]) {
    if (input) input.addEventListener("input", apply);
  }
  if (sort) sort.addEventListener("change", order);
  const clear = document.getElementById("f-reset");
  if (clear) clear.addEventListener("click", () => { reset(); apply(); });

  // Shortcuts elsewhere on the page (the summary's tiles, a category's name) set one filter.
  for (const link of document.querySelectorAll("a[data-set]")) {
    link.addEventListener("click", () => {
      reset();
      const [attr, value] = link.dataset.set.split("=");
      const flag = flags.find((f) => f.dataset.flag === attr);
      if (flag) flag.checked = value === "1";
      else {
        state[attr] = value;
        const select = selects.find((s) => s.dataset.attr === attr);
        if (select) select.value = value;
      }
      apply();
    });
  }

  // A link to a case or a prompt opens it, even when the filters had hidden it.
  function reveal() {
    const id = decodeURIComponent(location.hash.slice(1));
    const target = id ? document.getElementById(id) : null;
    if (!target) return;
    const card = target.closest("article");
    if (card && card.hidden) { reset(); apply(); }
    for (let node = target; node; node = node.parentElement) {
      if (node.tagName === "DETAILS") node.open = true;
    }
    target.scrollIntoView();
  }
  window.addEventListener("hashchange", reveal);

  controls.hidden = false;
  order();
  apply();
  reveal();
})();
