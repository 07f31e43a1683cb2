// Cards drawn as SVG from their C2 notation ("AS", "TD", "JK", "JK=7H": a joker standing for 7H).
"use strict";

const SUIT_SYMBOL = { C: "\u2663", D: "\u2666", H: "\u2665", S: "\u2660" };
const SUIT_NAME = { C: "clubs", D: "diamonds", H: "hearts", S: "spades" };
const CARD_TOKEN = /(?<![A-Za-z0-9=])(JK=)?([A2-9TJQK][CDHS]|JK)(?![A-Za-z0-9])/g;

function escapeHtml(text) {
  return String(text).replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]);
}

// One card face; `code` in C2 notation.
function cardSvg(code, extraClass) {
  const [lies, standsFor] = code.split("=");
  const joker = lies === "JK";
  const rank = joker ? "\u2605" : lies[0] === "T" ? "10" : lies[0];
  const suit = joker ? "" : lies[1];
  const cls = joker ? "joker" : SUIT_NAME[suit];
  const symbol = joker ? "JK" : SUIT_SYMBOL[suit];
  const sub = standsFor ? `<text x="20" y="52" class="stands">=${escapeHtml(standsFor)}</text>` : "";
  return (
    `<span class="card ${cls} ${extraClass || ""}" data-card="${escapeHtml(code)}" title="${escapeHtml(code)}">` +
    `<svg viewBox="0 0 40 56" width="40" height="56" aria-hidden="true">` +
    `<rect x="0.5" y="0.5" width="39" height="55" rx="4"/>` +
    `<text x="4" y="15" class="rank">${rank}</text>` +
    `<text x="20" y="38" class="pip">${symbol}</text>${sub}</svg></span>`
  );
}

// The back of `count` cards, as one stacked picture and a number.
function backsSvg(count) {
  return (
    `<span class="backs" title="${count} cards"><svg viewBox="0 0 40 56" width="40" height="56" aria-hidden="true">` +
    `<rect x="0.5" y="0.5" width="39" height="55" rx="4"/></svg><span class="count">${count}</span></span>`
  );
}

function cardsHtml(codes, extraClass) {
  return (codes || []).map((c) => cardSvg(c, extraClass)).join("");
}

// Text with its card codes coloured by suit (the codes themselves are kept).
function textWithCards(text) {
  return escapeHtml(text).replace(CARD_TOKEN, (m) => {
    const suit = m.startsWith("JK") ? "joker" : SUIT_NAME[m[1]];
    return `<span class="code ${suit}">${m}</span>`;
  });
}
