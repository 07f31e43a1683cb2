// The live view of a running match: its public events, from server-sent events.
"use strict";

(function () {
  const root = document.getElementById("live");
  if (!root) return;
  const id = root.dataset.match;
  const list = document.getElementById("live-events");
  const state = document.getElementById("live-state");
  const phase = document.getElementById("live-phase");  // the match's state, kept up to date
  const source = new EventSource(`/matches/${id}/live/events`);
  let count = 0;
  source.addEventListener("event", (m) => {
    const e = JSON.parse(m.data);
    if (e.n < count) return;  // sent again after a reconnect: already listed
    const li = document.createElement("li");
    li.innerHTML = `${e.seat === null ? "referee" : "seat " + e.seat}: ${textWithCards(e.text)}`;
    list.appendChild(li);
    count += 1;
    root.dataset.events = String(count);
    phase.textContent = "running";
    state.textContent = `Live: ${count} public events so far.`;
  });
  source.addEventListener("error", (m) => {
    if (m.data) state.textContent = JSON.parse(m.data).message;
  });
  source.addEventListener("held", (m) => {
    // another match of its duplicate deal is being played: nothing more is shown
    source.close();
    root.dataset.ended = "held";
    list.replaceChildren();
    const text = JSON.parse(m.data).message;
    state.textContent = text.charAt(0).toUpperCase() + text.slice(1) + ".";
  });
  source.addEventListener("unavailable", (m) => {
    source.close();
    root.dataset.ended = "unavailable";
    const text = JSON.parse(m.data).message;
    state.textContent = text.charAt(0).toUpperCase() + text.slice(1) + ".";
  });
  source.addEventListener("end", (m) => {
    source.close();
    const e = JSON.parse(m.data);
    root.dataset.ended = e.state;
    phase.textContent = e.state;
    if (e.state === "done") {
      state.innerHTML = `The match has ended: <a id="replay-link" href="/matches/${id}">open its replay</a> (seed and hands).`;
    } else {
      state.textContent = `The match is ${e.state}; no live events to show.`;
    }
  });
})();
