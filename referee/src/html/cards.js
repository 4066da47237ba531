// Aluette's cards for every page the referee shows (`replay --html`, the live pages of
// `referee match`): what a card is called, how strong it is, and how it is drawn. Works as a
// browser script (the global `AluetteCards`) and as a Node module (`require`), so the logic
// built on it is tested under `node --test`.
"use strict";
(function (root) {
  // Cards (spec/rules.md section 1).
  const RANK_ORDER = "A23456789JCK";
  const SUIT_ORDER = "ocsb";
  const RANK_NAMES = {
    A: "ace", 2: "two", 3: "three", 4: "four", 5: "five", 6: "six", 7: "seven",
    8: "eight", 9: "nine", J: "jack", C: "cavalier", K: "king",
  };
  const SUIT_NAMES = { o: "coins", c: "cups", s: "swords", b: "batons" };
  const TOP_NAMES = {
    "3o": "Monsieur", "3c": "Madame", "2o": "le Borgne", "2c": "la Vache",
    "9c": "Grand-neuf", "9o": "Petit-neuf", "2b": "Deux de chêne", "2s": "Deux d'écrit",
  };
  const PLAIN_LEVELS = { A: 9, 4: 18, 5: 17, 6: 16, 7: 15, 8: 14, J: 12, C: 11, K: 10 };
  const SPECIAL_LEVELS = {
    "2o": 3, "2c": 4, "2s": 8, "2b": 7, "3o": 1, "3c": 2, "3s": 19, "3b": 19,
    "9o": 6, "9c": 5, "9s": 13, "9b": 13,
  };
  // The card each card signal claims (spec/rules.md section 9.1).
  const SIGNAL_CARDS = {
    monsieur: "3o", madame: "3c", borgne: "2o", vache: "2c",
    "grand-neuf": "9c", "petit-neuf": "9o", "deux-de-chene": "2b", "deux-d-ecrit": "2s",
  };
  // The suits' drawings, made into <symbol>s once per page (`installSuits`).
  const SUIT_SVG = {
    o: '<circle cx="12" cy="12" r="9.5" fill="#e0a800" stroke="#8a6500" stroke-width="1.5"/><circle cx="12" cy="12" r="5" fill="none" stroke="#8a6500" stroke-width="1.5"/><circle cx="12" cy="12" r="1.6" fill="#8a6500"/>',
    c: '<path d="M5 3h14c0 5.5-2.6 8.8-5.6 9.6V18h3.4v3H7.2v-3h3.4v-5.4C7.6 11.8 5 8.5 5 3z" fill="#c62828" stroke="#7f1010" stroke-width="1"/>',
    s: '<path d="M12 1l2 3v11h-4V4z" fill="#1e5aa8" stroke="#0d3166" stroke-width="0.8"/><rect x="6" y="15" width="12" height="2.4" rx="1" fill="#0d3166"/><rect x="10.8" y="17.4" width="2.4" height="4" fill="#0d3166"/><circle cx="12" cy="22.2" r="1.3" fill="#0d3166"/>',
    b: '<path d="M8.5 22.5c-1.2-.4-1.6-1.4-1.2-2.6L13.6 2.6c.5-1.3 1.6-1.8 3-1.3 1.3.5 1.7 1.6 1.2 2.9L11.5 21.3c-.5 1.2-1.8 1.6-3 1.2z" fill="#2e7d32" stroke="#17471a" stroke-width="1"/><circle cx="12.6" cy="8" r="1.2" fill="#17471a"/><circle cx="10.6" cy="13.6" r="1.2" fill="#17471a"/><circle cx="14.6" cy="4" r="1" fill="#17471a"/>',
  };
  const SVG_NS = "http://www.w3.org/2000/svg";

  const level = (code) => SPECIAL_LEVELS[code] || PLAIN_LEVELS[code[0]];
  const canonical = (code) => 12 * SUIT_ORDER.indexOf(code[1]) + RANK_ORDER.indexOf(code[0]);
  const sortCards = (cards) => cards.slice().sort((a, b) => canonical(a) - canonical(b));

  function cardTitle(code) {
    const top = TOP_NAMES[code] ? TOP_NAMES[code] + " · " : "";
    return code + " · " + top + RANK_NAMES[code[0]] + " of " + SUIT_NAMES[code[1]] +
      " · level " + level(code);
  }

  // ---- Drawing. Every text goes in as a text node, so names from bots are never markup.
  function h(tag, attrs, children) {
    const el = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs || {})) {
      if (v !== null && v !== undefined && v !== false) el.setAttribute(k, v);
    }
    append(el, children);
    return el;
  }
  function append(el, children) {
    if (children === null || children === undefined) return;
    if (!Array.isArray(children)) children = [children];
    for (const c of children) {
      if (c === null || c === undefined || c === false) continue;
      if (Array.isArray(c)) { append(el, c); continue; }
      el.appendChild(typeof c === "string" || typeof c === "number" ? document.createTextNode(String(c)) : c);
    }
  }
  function fill(id, children) {
    const el = document.getElementById(id);
    if (!el) return null;
    el.replaceChildren();
    append(el, children);
    return el;
  }
  // The suits' symbols, drawn from constants of this file (never from data).
  function installSuits() {
    if (document.getElementById("suit-o")) return;
    const svg = document.createElementNS(SVG_NS, "svg");
    svg.setAttribute("width", "0");
    svg.setAttribute("height", "0");
    svg.setAttribute("class", "suit-defs");
    svg.setAttribute("aria-hidden", "true");
    svg.innerHTML = "<defs>" + Object.entries(SUIT_SVG).map(([s, body]) =>
      '<symbol id="suit-' + s + '" viewBox="0 0 24 24">' + body + "</symbol>").join("") + "</defs>";
    document.body.prepend(svg);
  }
  function pip(suit) {
    const svg = document.createElementNS(SVG_NS, "svg");
    svg.setAttribute("class", "pip");
    svg.setAttribute("aria-hidden", "true");
    const use = document.createElementNS(SVG_NS, "use");
    use.setAttribute("href", "#suit-" + suit);
    svg.appendChild(use);
    return svg;
  }
  // A card face; `tag` "button" makes it clickable.
  function card(code, mini, tag) {
    const classes = ["card", "s-" + code[1]];
    if (TOP_NAMES[code]) classes.push("top");
    if (mini) classes.push("mini");
    // The corner (rank over a small pip) stays visible when cards overlap.
    return h(tag || "span", { class: classes.join(" "), "data-card": code, title: cardTitle(code) }, [
      h("span", { class: "corner-mark" }, [h("span", { class: "rank" }, code[0]), pip(code[1])]),
      pip(code[1]), h("span", { class: "code" }, code),
    ]);
  }
  function back() {
    return h("span", { class: "back", title: "face down" });
  }

  const api = {
    RANK_NAMES, SUIT_NAMES, TOP_NAMES, SIGNAL_CARDS,
    level, canonical, sortCards, cardTitle, h, append, fill, installSuits, pip, card, back,
  };
  if (typeof module === "object" && module.exports) module.exports = api;
  else root.AluetteCards = api;
})(this);
