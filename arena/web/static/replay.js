// The replay viewer: draws one step's frame from /api/matches/ID/steps/N (?seat=S).
"use strict";

(function () {
  const root = document.getElementById("replay");
  if (!root) return;
  const matchId = root.dataset.match;
  const seat = root.dataset.seat === "" ? null : Number(root.dataset.seat);
  const steps = Number(root.dataset.steps);
  const seatQuery = seat === null ? "" : `seat=${seat}&`;
  const cache = new Map();
  let step = Number(root.dataset.step);
  let wanted = step;
  let playing = false;
  let timer = null;
  const playButton = document.getElementById("play");
  const speedSelect = document.getElementById("speed");
  const moves = document.getElementById("moves");
  const handJump = document.getElementById("hand-jump");

  function url(n) {
    return `/api/matches/${matchId}/steps/${n}${seat === null ? "" : "?seat=" + seat}`;
  }

  async function fetchFrame(n) {
    if (!cache.has(n)) {
      cache.set(
        n,
        fetch(url(n)).then((r) => {
          if (!r.ok) return r.json().then((e) => Promise.reject(new Error(e.message)));
          return r.json();
        }),
      );
    }
    return cache.get(n);
  }

  // One seat's box; `toAct` is the seat whose turn it is (the frame's `to_act`).
  function seatBox(s, table, toActSeat) {
    const mine = table.viewer === s.seat;
    const toAct = toActSeat === s.seat;
    let hand;
    if (s.hand !== null) {
      hand = `<div class="hand">${cardsHtml(s.hand)}</div>`;
    } else {
      const unknown = Math.max(0, s.hand_size - s.known.length);
      hand =
        `<div class="hand hidden-hand">${cardsHtml(s.known, "known")}` +
        (unknown ? backsSvg(unknown) : "") +
        `</div>`;
    }
    const role = s.role ? ` <span class="role">${escapeHtml(s.role)}</span>` : "";
    const notes = s.notes.length ? ` <span class="notes">${s.notes.map(escapeHtml).join(", ")}</span>` : "";
    return (
      `<div class="seat${toAct ? " to-act" : ""}${mine ? " viewer" : ""}" data-seat="${s.seat}">` +
      `<div class="seat-name">seat ${s.seat}${role} · ${s.hand_size} cards${notes}${toAct ? " <span class=\"acting\">to act</span>" : ""}</div>` +
      hand +
      `</div>`
    );
  }

  function render(frame) {
    const t = frame.table;
    const parts = [];
    parts.push(`<div class="table-head"><strong>${escapeHtml(t.title)}</strong> · ${escapeHtml(t.phase)}</div>`);
    parts.push(`<div class="seats">${t.seats.map((s) => seatBox(s, t, frame.to_act)).join("")}</div>`);
    const pile = t.discard.length
      ? `${t.discard.length > 1 ? `<span class="under">${t.discard.length - 1} below</span>` : ""}${cardsHtml(t.discard.slice(-6))}`
      : `<span class="empty">empty</span>`;
    parts.push(
      `<div class="middle">` +
        (t.stock === null ? "" : `<div class="stock">stock ${backsSvg(t.stock)}</div>`) +
        `<div class="discard">discard pile ${pile}</div></div>`,
    );
    if (t.melds.length) {
      parts.push(
        `<div class="melds"><h3>On the table</h3>` +
          t.melds.map((m) => `<div class="meld"><span class="label">${escapeHtml(m.label)}</span>${cardsHtml(m.cards)}</div>`).join("") +
          `</div>`,
      );
    }
    if (t.info.length) {
      parts.push(`<ul class="info">${t.info.map((i) => `<li>${textWithCards(i)}</li>`).join("")}</ul>`);
    }
    document.getElementById("table").innerHTML = parts.join("");

    const d = frame.decision;
    let dec = "<h3>Decision</h3>";
    if (!d) {
      dec += frame.step === frame.steps ? "<p>The match is over.</p>" : "<p>No decision.</p>";
    } else {
      dec += `<p>seat ${d.seat} · ${d.think_ms} ms · <span class="source source-${escapeHtml(d.source)}">${escapeHtml(d.source)}</span></p>`;
      if (d.action !== undefined) {
        dec += `<p class="chosen">chose <strong>${textWithCards(d.action)}</strong></p>`;
        if (seat !== null) {
          dec +=
            `<p>offered ${d.legal.length}:</p><ol class="legal" start="0">` +
            d.legal.map((a, i) => `<li class="${i === d.chosen ? "chosen" : ""}">${textWithCards(a)}</li>`).join("") +
            `</ol>`;
        }
      } else {
        dec += `<p>(seat ${d.seat}'s choice shows in the next step's events)</p>`;
      }
    }
    document.getElementById("decision").innerHTML = dec;
    document.getElementById("events").innerHTML =
      `<h3>${frame.step ? "What happened" : "The deal"}</h3><ul class="events">` +
      frame.events.map((e) => `<li>${e.seat === null ? "referee" : "seat " + e.seat}: ${textWithCards(e.text)}</li>`).join("") +
      `</ul>`;
    const sc = t.scores;
    document.getElementById("scores").innerHTML = sc
      ? `<h3>${escapeHtml(sc.title)}</h3><table class="list score-sheet"><thead><tr>${sc.head.map((h) => `<th>${escapeHtml(h)}</th>`).join("")}</tr></thead><tbody>` +
        sc.rows.map((r) => `<tr>${r.map((c) => `<td>${escapeHtml(c)}</td>`).join("")}</tr>`).join("") +
        `</tbody></table>`
      : "";
    document.getElementById("previous").innerHTML = t.previous.length
      ? `<h3>Last hand</h3><ul class="previous">${t.previous.map((l) => `<li>${textWithCards(l)}</li>`).join("")}</ul>`
      : "";
  }

  async function go(n) {
    n = Math.max(0, Math.min(steps, n));
    wanted = n;
    let frame;
    try {
      frame = await fetchFrame(n);
    } catch (err) {
      document.getElementById("table").innerHTML = `<p class="error">${escapeHtml(err.message)}</p>`;
      return;
    }
    if (wanted !== n) return; // a later move was asked for meanwhile
    step = n;
    render(frame);
    root.dataset.shown = String(n);
    document.getElementById("jump").value = n;
    const link = `?${seatQuery}step=${n}`;
    document.getElementById("permalink").href = link;
    history.replaceState(null, "", link);
    for (const a of document.querySelectorAll(".seat-switch a")) {
      const u = new URL(a.href, location.href);
      u.searchParams.set("step", n);
      a.href = u.pathname + u.search;
    }
    const course = document.getElementById("course");
    if (course) {
      const x = ((n / Math.max(1, Number(course.dataset.steps))) * Number(course.dataset.width)).toFixed(1);
      for (const line of course.querySelectorAll(".now")) {
        line.setAttribute("x1", x);
        line.setAttribute("x2", x);
      }
    }
    for (const li of moves.querySelectorAll("li")) {
      li.classList.toggle("current", Number(li.dataset.step) === n);
    }
    showInMoves(moves.querySelector("li.current"));
    if (handJump) handJump.value = String(handAt(n));
    if (n + 1 <= steps) fetchFrame(n + 1); // the next step is usually asked for next
  }

  // The move list scrolls within its own box to show `li`; the page itself never moves
  // (scrollIntoView would scroll the window too, away from the table).
  function showInMoves(li) {
    if (!li) return;
    const box = moves.getBoundingClientRect().top + moves.clientTop;
    const top = li.getBoundingClientRect().top - box + moves.scrollTop;
    if (top < moves.scrollTop) moves.scrollTop = top;
    else if (top + li.offsetHeight > moves.scrollTop + moves.clientHeight) {
      moves.scrollTop = top + li.offsetHeight - moves.clientHeight;
    }
  }

  // The "go to" entry of step `n`: the deal, or the end of the last hand (round) reached.
  function handAt(n) {
    let at = 0;
    for (const option of handJump.options) {
      if (Number(option.value) <= n) at = Math.max(at, Number(option.value));
    }
    return at;
  }

  // Playing steps forward on a timer: one step a second at 1×, each after the last is drawn.
  function setPlaying(on) {
    playing = on && step < steps;
    clearTimeout(timer);
    playButton.textContent = playing ? "❚❚ pause" : "▶ play";
    playButton.setAttribute("aria-pressed", String(playing));
    root.dataset.playing = String(playing);
    if (playing) timer = setTimeout(tick, 1000 / Number(speedSelect.value));
  }

  async function tick() {
    if (!playing) return;
    await go(step + 1);
    if (playing) setPlaying(step < steps);
  }

  // Play at the last step starts over from the deal, as a player of recordings does.
  async function togglePlaying() {
    if (playing) return setPlaying(false);
    if (step >= steps) await go(0);
    setPlaying(true);
  }

  playButton.onclick = togglePlaying;
  speedSelect.onchange = () => {
    if (playing) setPlaying(true);
  };
  document.getElementById("first").onclick = () => go(0);
  document.getElementById("prev").onclick = () => go(step - 1);
  document.getElementById("next").onclick = () => go(step + 1);
  document.getElementById("last").onclick = () => go(steps);
  document.getElementById("jump").onchange = (e) => go(Number(e.target.value));
  if (handJump) handJump.onchange = (e) => go(Number(e.target.value));
  moves.addEventListener("click", (e) => {
    const li = e.target.closest("li");
    if (!li) return;
    e.preventDefault();
    go(Number(li.dataset.step));
  });
  document.addEventListener("keydown", (e) => {
    if (e.target.tagName === "INPUT" || e.altKey || e.ctrlKey || e.metaKey) return;
    if (e.key === " " && e.target.tagName === "SELECT") return;
    if (e.key === " ") {
      e.preventDefault(); // not also a press of a focused button
      togglePlaying();
    }
    else if (e.key === "ArrowRight") go(step + 1);
    else if (e.key === "ArrowLeft") go(step - 1);
    else if (e.key === "Home") go(0);
    else if (e.key === "End") go(steps);
    else if (e.key === "a") location.search = `?step=${step}`;
    else if (/^[0-9]$/.test(e.key) && document.getElementById(`view-seat-${e.key}`)) location.search = `?seat=${e.key}&step=${step}`;
    else return;
    e.preventDefault();
  });
  document.addEventListener("keyup", (e) => {
    if (e.key === " " && e.target.tagName === "BUTTON") e.preventDefault();
  });
  go(step);
})();
