"""A stored match as its viewers see it, re-run from its record (docs/architecture.md, decision 2):
who may see it (decision 13), each step's frame for the all-seeing view or one seat's
view, and the record as documented JSON (``docs/viewer.md``). Shared by ``arena web``,
``arena replay`` and ``arena export``.

A frame of one seat's view is made from that seat's view dataclass and the events it
was told of, and nothing else of the state, so it cannot show another seat's hidden
cards; the all-seeing frame is made from every seat's view.
"""

from __future__ import annotations

import dataclasses
import threading
from collections.abc import Mapping, Sequence
from enum import Enum
from typing import TYPE_CHECKING, Any

from referee.cards import Card
from referee.engine import EngineError, Event, GameState
from referee.record import MatchRecord, new_state, replay
from referee.tables import BoundedCache
from referee.wire import decode_record

if TYPE_CHECKING:
    from worker.store import Match, Store

#: The version of the form ``arena export`` writes (docs/viewer.md).
EXPORT_FORMAT = "rummy-arena-match/1"
#: Decoded records by their bytes: decoding a long match re-runs it (record format 2
#: stores action indexes), and a viewer asks for the same match step after step.
_DECODED: BoundedCache[bytes, MatchRecord] = BoundedCache(decode_record, limit=32)
#: Actions between two engine states kept for a recently viewed match (a frame re-runs
#: at most this many), and how many matches' states are kept (docs/performance.md).
CHECKPOINT_STEPS = 64
CHECKPOINT_MATCHES = 8


class Unavailable(Exception):
    """A match that cannot be shown: ``kind`` says why (missing, held, unfinished,
    corrupt), the message says it in one sentence."""

    def __init__(self, kind: str, message: str) -> None:
        super().__init__(message)
        self.kind = kind


@dataclasses.dataclass(frozen=True)
class StoredMatch:
    """A finished match that may be shown: its row, bot labels by seat, seat results,
    and its decoded record."""

    match: Match
    labels: tuple[str, ...]
    record: MatchRecord
    results: tuple[Any, ...]
    #: The record's stored bytes (they key the cache of the match's course).
    data: bytes = b""


def held_back(store: Store, match: Match) -> bool:
    """Whether ``match`` shares its duplicate deal with another match still queued or
    running (decision 13: its record, and its events while it runs, show the deal the
    other is playing). One indexed query over the match's own set."""
    return match.duplicate_set is not None and match.id in store.held_matches([match.id])


def load(store: Store, match_id: int) -> StoredMatch:
    """The finished match ``match_id`` with its record, or :class:`Unavailable`."""
    from worker.store import StoreError

    match = store.match(match_id)
    if match is None:
        raise Unavailable("missing", f"there is no match {match_id}")
    if match.state != "done":
        raise Unavailable(
            "unfinished",
            f"match {match_id} is {match.state}: only a finished match has a replay",
        )
    if held_back(store, match):
        raise Unavailable(
            "held",
            f"match {match_id} is held back until every match of its duplicate deal has "
            "finished: its record shows the deal the others are still playing",
        )
    try:
        data = store.record(match_id)
        record = _DECODED[data]
        if data not in _CHECKPOINTS:  # else its deal was made already, and re-runs
            new_state(record)
    except StoreError as exc:
        raise Unavailable("corrupt", f"match {match_id}'s record cannot be read: {exc}") from exc
    except Exception as exc:  # a record that does not decode or names an unknown game
        raise Unavailable(
            "corrupt", f"match {match_id}'s record cannot be read: {exc.__class__.__name__}"
        ) from exc
    labels = store.labels(match.seats)
    return StoredMatch(
        match,
        tuple(labels.get(v, str(v)) for v in match.seats),
        record,
        tuple(store.seat_results(match_id)),
        data,
    )


# -- values as JSON ------------------------------------------------------------------------


def to_json(value: Any) -> Any:
    """A view (dataclasses, tuples, cards, enums) as JSON values: cards in C2 notation."""
    if isinstance(value, Card):
        return str(value)
    if value is None or isinstance(value, bool | int | float | str):
        return value
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: to_json(getattr(value, f.name)) for f in dataclasses.fields(value)}
    if isinstance(value, Enum):
        return to_json(value.value)
    if isinstance(value, Mapping):
        return {str(k): to_json(v) for k, v in value.items()}
    if isinstance(value, Sequence | frozenset | set):
        return [to_json(v) for v in value]
    return str(value)


def cards(values: Sequence[Any] | None) -> list[str]:
    """Cards in C2 notation."""
    return [str(c) for c in values or ()]


# -- steps -----------------------------------------------------------------------------------


def state_at(record: MatchRecord, step: int) -> tuple[GameState, list[Event]]:
    """The state after the first ``step`` actions re-run from the deal, and the events of
    step ``step`` (the deal's for step 0, else those of its last action): the plain
    version of :meth:`Checkpoints.state_at`."""
    state = new_state(record)
    indexes = [a.index for a in record.actions[:step]]
    for _ in replay(state, indexes[:-1]):
        pass
    before = len(state.events) if indexes else 0
    for _ in replay(state, indexes[-1:]):
        pass
    return state, list(state.events[before:])


class Checkpoints:
    """The engine states of one record every :data:`CHECKPOINT_STEPS` actions, made as
    far as frames have asked and kept without their events (``drop_events``: a frame
    shows only its own step's), so that a frame re-runs at most that many actions from
    the nearest one instead of the whole match. Thread-safe: the kept states are only
    ever cloned, and made under a lock."""

    def __init__(self, record: MatchRecord) -> None:
        self.indexes = [a.index for a in record.actions]
        state = new_state(record)
        self.deal_events = list(state.events)
        state.drop_events(len(state.events))
        self.states = [state]  # states[k]: after k * CHECKPOINT_STEPS actions
        self.lock = threading.Lock()

    def _kept(self, k: int) -> GameState:
        with self.lock:
            while len(self.states) <= k:
                start = (len(self.states) - 1) * CHECKPOINT_STEPS
                state = self.states[-1].clone()
                for _ in replay(state, self.indexes[start : start + CHECKPOINT_STEPS]):
                    pass
                state.drop_events(len(state.events))
                self.states.append(state)
            return self.states[k]

    def state_at(self, step: int) -> tuple[GameState, list[Event]]:
        """A state of its own after the first ``step`` actions, and the events of step
        ``step``: the same as :func:`state_at` (``tests/test_web.py`` checks it)."""
        if step == 0:
            return self.states[0].clone(), list(self.deal_events)
        k = (step - 1) // CHECKPOINT_STEPS
        state = self._kept(k).clone()
        for _ in replay(state, self.indexes[k * CHECKPOINT_STEPS : step - 1]):
            pass
        state.drop_events(len(state.events))
        for _ in replay(state, self.indexes[step - 1 : step]):
            pass
        return state, list(state.events)


#: Checkpoints of the matches viewed last, by their records' bytes.
_CHECKPOINTS: BoundedCache[bytes, Checkpoints] = BoundedCache(
    lambda data: Checkpoints(_DECODED[data]), limit=CHECKPOINT_MATCHES
)


def checkpoints(stored: StoredMatch) -> Checkpoints:
    """The kept states of ``stored``'s record (cached by its bytes, when it has them)."""
    return _CHECKPOINTS[stored.data] if stored.data else Checkpoints(stored.record)


def frame(stored: StoredMatch, step: int, seat: int | None = None) -> dict[str, Any]:
    """Step ``step`` (0: the deal, n: after n actions) as the all-seeing view
    (``seat`` None) or as ``seat`` knew it: the table, the events of the step, and the
    decision taken at it."""
    record = stored.record
    total = len(record.actions)
    if not 0 <= step <= total:
        raise Unavailable("missing", f"step {step} is outside 0..{total}")
    n = len(record.seats)
    if seat is not None and not 0 <= seat < n:
        raise Unavailable("missing", f"seat {seat} is outside 0..{n - 1}")
    try:
        state, events = checkpoints(stored).state_at(step)
    except EngineError as exc:
        raise Unavailable("corrupt", f"the record does not re-run: {exc}") from exc
    viewers = range(n) if seat is None else (seat,)
    views = {s: state.view(s) for s in viewers}
    to_act = state.to_act()
    out: dict[str, Any] = {
        "step": step,
        "steps": total,
        "seat": seat,
        "to_act": to_act,
        "table": table(record.game, views, n, seat),
        "events": [
            {"seat": e.seat, "text": e.text} for e in events if seat is None or e.visible(seat)
        ],
        "decision": None,
    }
    if seat is not None:
        out["view"] = to_json(views[seat])
    if step < total and to_act is not None:
        entry = record.actions[step]
        decision: dict[str, Any] = {
            "seat": entry.seat,
            "think_ms": round(entry.think_us / 1000, 3),
            "source": entry.source,
        }
        if seat is None or seat == entry.seat:
            legal = [str(a) for a in state.legal_actions()]
            decision.update(action=entry.text, legal=legal, chosen=entry.index)
        out["decision"] = decision
    return out


def summary(stored: StoredMatch, *, seat: int | None = None) -> dict[str, Any]:
    """What a replay page needs besides its frames: the match, its seats and results, and
    one line per action. Action texts only in the all-seeing view: in a seat's view even
    its own later actions would name cards it did not know yet (cards it was to draw)."""
    record, match = stored.record, stored.match
    results = {r.seat: r for r in stored.results}
    return {
        "match": match.id,
        "game": record.game,
        "seed": record.seed,
        "options": dict(record.options),
        "tournament": match.tournament_id,
        "status": record.status,
        "steps": len(record.actions),
        "seats": [
            {
                "seat": i,
                "bot": stored.labels[i] if i < len(stored.labels) else entry.name,
                "status": entry.status,
                "forfeited": entry.forfeited,
                "rank": results[i].rank if i in results else None,
                "score": results[i].score if i in results else None,
                "stopped_by": getattr(results.get(i), "stopped_by", None),
            }
            for i, entry in enumerate(record.seats)
        ],
        "moves": [
            {
                "seat": a.seat,
                "text": a.text if seat is None else "",
                "think_ms": round(a.think_us / 1000, 3),
                "source": a.source,
            }
            for a in record.actions
        ],
        "course": _COURSES[stored.data] if stored.data else course(record),
    }


# -- the course of a match -----------------------------------------------------------------


def _hollywood_totals(v: Any) -> tuple[int, list[tuple[str, dict[str, int]]]]:
    columns = [
        (f"column {j + 1}", {f"seat {s}": c for s, c in enumerate(col.points)})
        for j, col in enumerate(v.columns)
    ]
    return v.hand_number, columns


def _gin_three_totals(v: Any) -> tuple[int, list[tuple[str, dict[str, int]]]]:
    return v.hand_number, [("scores", {f"seat {s}": x for s, x in enumerate(v.scores)})]


def _rummy500_totals(v: Any) -> tuple[int, list[tuple[str, dict[str, int]]]]:
    return v.hands_played, [("scores", {f"seat {s}": x for s, x in enumerate(v.scores)})]


def _flip_flop_totals(v: Any) -> tuple[int, list[tuple[str, dict[str, int]]]]:
    game, flip, flop = v.pots
    return v.round, [
        ("bankrolls", {f"seat {p.seat}": p.bankroll for p in v.players}),
        ("pots", {"game": game, "flip": flip, "flop": flop}),
    ]


#: Per game: what a hand (or round) is called, and from a public view its number and
#: the totals the course charts (every seat sees them, so any seat's view serves).
_TOTALS = {
    "hollywood-gin": ("hand", _hollywood_totals),
    "gin-three": ("hand", _gin_three_totals),
    "rummy-500": ("hand", _rummy500_totals),
    "flip-flop": ("round", _flip_flop_totals),
}


def course(record: MatchRecord) -> dict[str, Any] | None:
    """The match's course for its chart, from one re-run of the record: the totals at the
    deal and after each hand (Flip Flop: round), with the step each was reached at, as
    ``points`` (step, label) and ``panels`` (title, series of one value per point)."""
    known = _TOTALS.get(record.game)
    if known is None:
        return None
    unit, totals = known
    state = new_state(record)
    number, panels = totals(state.view(0))
    points = [{"step": 0, "label": "deal"}]
    samples = [panels]
    step = 0
    try:
        for step, _ in enumerate(replay(state, [a.index for a in record.actions]), start=1):
            now, panels = totals(state.view(0))
            if now != number or (step == len(record.actions) and panels != samples[-1]):
                number = now
                points.append({"step": step, "label": f"{unit} {len(points)}"})
                samples.append(panels)
    except EngineError:
        return None
    if points[-1]["step"] != step:
        # the last action ended the last hand without starting another
        points.append({"step": step, "label": f"{unit} {len(points)}"})
        samples.append(totals(state.view(0))[1])
    return {
        "steps": len(record.actions),
        "points": points,
        "panels": [
            {
                "title": title,
                "series": [
                    {"name": name, "values": [sample[k][1][name] for sample in samples]}
                    for name in series
                ],
            }
            for k, (title, series) in enumerate(samples[0])
        ],
    }


#: Courses by the record's bytes: the replay page and its summary ask for the same one.
_COURSES: BoundedCache[bytes, dict[str, Any] | None] = BoundedCache(
    lambda data: course(_DECODED[data]), limit=32
)


def export(stored: StoredMatch) -> dict[str, Any]:
    """The record as documented JSON (``docs/viewer.md``, ``arena export``)."""
    record, match = stored.record, stored.match
    results = {r.seat: r for r in stored.results}
    result = record.result
    return {
        "format": EXPORT_FORMAT,
        "match": match.id,
        "game": record.game,
        "options": dict(record.options),
        "seed": record.seed,
        "status": record.status,
        "reason": record.reason,
        "tournament": match.tournament_id,
        "duplicate_set": match.duplicate_set,
        "clock": to_json(record.clock),
        "started_unix_ms": record.started_unix_ms,
        "seats": [
            {
                "seat": i,
                "bot": stored.labels[i] if i < len(stored.labels) else entry.name,
                "status": entry.status,
                "strikes": entry.strikes,
                "forfeited": entry.forfeited,
                "rank": results[i].rank if i in results else None,
                "score": results[i].score if i in results else None,
            }
            for i, entry in enumerate(record.seats)
        ],
        "result": None
        if result is None
        else {
            "ranks": list(result.ranks),
            "scores": list(result.scores),
            "detail": to_json(result.detail),
        },
        "actions": [
            {"seat": a.seat, "text": a.text, "think_us": a.think_us, "source": a.source}
            for a in record.actions
        ],
    }


# -- the table, drawn from views -------------------------------------------------------------


def _seat(i: int, **fields: Any) -> dict[str, Any]:
    base: dict[str, Any] = {
        "seat": i,
        "role": None,
        "hand": None,
        "hand_size": 0,
        "known": [],
        "notes": [],
    }
    base.update(fields)
    return base


def _empty(n: int) -> dict[str, Any]:
    return {
        "title": "",
        "phase": "",
        "seats": [_seat(i) for i in range(n)],
        "stock": None,
        "discard": [],
        "melds": [],
        "scores": None,
        "info": [],
        "previous": [],
    }


def table(game: str, views: Mapping[int, Any], n: int, viewer: int | None) -> dict[str, Any]:
    """The table to draw, from ``views`` (every seat's, or the viewer's alone): seats
    with their hands (a hand is shown only from its own seat's view, else its size),
    stock, discard pile, melds, scores and notes."""
    out = _empty(n)
    builder = _BUILDERS.get(game)
    if builder is not None:
        builder(out, views, n)
    if all(v.to_act is None for v in views.values()):
        out["phase"] = "match over"
    out["viewer"] = viewer
    return out


def _note(out: dict[str, Any], seat: int, note: str) -> None:
    """Add ``note`` to a seat once (several views may say the same public thing)."""
    notes = out["seats"][seat]["notes"]
    if note not in notes:
        notes.append(note)


def _gin_hand(out: dict[str, Any], hand: Any, player: int, opponent: int) -> None:
    """A Gin hand seen by ``player``: its cards; the opponent's size and known cards."""
    seats = out["seats"]
    seats[player]["hand"] = cards(hand.hand)
    seats[player]["hand_size"] = len(hand.hand)
    if seats[opponent]["hand"] is None:
        seats[opponent]["hand_size"] = hand.opponent_hand_size
        seats[opponent]["known"] = cards(hand.opponent_known)
    out["stock"] = hand.stock_size
    out["discard"] = cards(hand.discard_pile)
    out["phase"] = hand.phase
    if hand.taken_from_discard is not None:
        seats[player]["notes"].append(f"may not discard {hand.taken_from_discard}")


def _gin_outcome(o: Any) -> list[str]:
    lines = [
        f"{o.kind}"
        + ("" if o.winner is None else f": seat {o.winner} wins {o.points}")
        + ("" if o.knocker is None else f" (seat {o.knocker} knocked)")
    ]
    if o.knocker_melds or o.knocker_deadwood:
        lines.append(
            "knocker: "
            + " | ".join(" ".join(cards(m)) for m in o.knocker_melds)
            + (f" deadwood {' '.join(cards(o.knocker_deadwood))}" if o.knocker_deadwood else "")
        )
    if o.defender_melds or o.defender_deadwood or o.defender_layoffs:
        lines.append(
            "defender: "
            + " | ".join(" ".join(cards(m)) for m in o.defender_melds)
            + (f" lay-offs {', '.join(o.defender_layoffs)}" if o.defender_layoffs else "")
            + (f" deadwood {' '.join(cards(o.defender_deadwood))}" if o.defender_deadwood else "")
        )
    return lines


def _hollywood(out: dict[str, Any], views: Mapping[int, Any], n: int) -> None:
    first = next(iter(views.values()))
    out["title"] = f"hand {first.hand_number}"
    for s, v in views.items():
        if v.hand is not None:
            _gin_hand(out, v.hand, s, 1 - s)
            _note(out, v.hand.dealer, "dealer")
    out["scores"] = {
        "title": "score sheet",
        "head": ["", "column 1", "column 2", "column 3", "hands won"],
        "rows": [
            [f"seat {s}"]
            + [f"{col.points[s]}" + (" ✓" if col.winner == s else "") for col in first.columns]
            + [str(first.wins[s])]
            for s in range(n)
        ],
    }
    if first.last_hand is not None:
        out["previous"] = _gin_outcome(first.last_hand)


def _gin_three(out: dict[str, Any], views: Mapping[int, Any], n: int) -> None:
    first = next(iter(views.values()))
    roles = first.roles
    out["title"] = f"hand {first.hand_number}"
    for s in range(n):
        out["seats"][s]["role"] = roles.of(s)
    for s, v in views.items():
        if v.hand is not None:
            _gin_hand(out, v.hand, s, v.hand.opponent)
        elif v.advising is not None and out["seats"][roles.captain]["hand"] is None:
            # the sitter is shown the captain's hand (T3)
            _gin_hand(out, v.advising, roles.captain, roles.box)
        if v.advice is not None:
            out["info"].append(f"the sitter's advice to the captain: {v.advice}")
    out["scores"] = {
        "title": "scores",
        "head": ["", "role", "score"],
        "rows": [[f"seat {s}", roles.of(s), str(first.scores[s])] for s in range(n)],
    }
    if first.last_hand is not None:
        out["previous"] = _gin_outcome(first.last_hand)


def _placed(p: Any) -> str:
    return str(p.card) if p.card == p.stands_for else f"{p.card}={p.stands_for}"


def _rummy500(out: dict[str, Any], views: Mapping[int, Any], n: int) -> None:
    first = next(iter(views.values()))
    out["title"] = f"hand {first.hands_played + (0 if first.hand is None else 1)}"
    for s, v in views.items():
        h = v.hand
        if h is None:
            continue
        out["seats"][s]["hand"] = cards(h.hand)
        out["phase"] = h.phase
        out["stock"] = h.stock_size
        out["discard"] = cards(h.discard_pile)
        out["melds"] = [
            {
                "label": f"{m.number}: {m.kind}",
                "cards": [_placed(p) for p in m.cards],
                "seats": [p.seat for p in m.cards],
            }
            for m in h.melds
        ]
        for t in range(n):
            seat = out["seats"][t]
            seat["hand_size"] = h.hand_sizes[t]
            if t != s and seat["hand"] is None:
                seat["known"] = cards(h.known[t])
            if h.floating[t]:
                _note(out, t, "floating")
        _note(out, h.dealer, "dealer")
        if h.must_meld is not None:
            out["seats"][s]["notes"].append(f"must meld {h.must_meld}")
        if h.may_not_discard is not None:
            out["seats"][s]["notes"].append(f"may not discard {h.may_not_discard}")
        if h.rummy_calls:
            out["info"].append("rummy calls open: " + ", ".join(h.rummy_calls))
        melded = h.melded_points
    if first.hand is None:
        melded = tuple(0 for _ in range(n))
    out["scores"] = {
        "title": "scores",
        "head": ["", "score", "melded this hand"],
        "rows": [[f"seat {s}", str(first.scores[s]), str(melded[s])] for s in range(n)],
    }
    last = first.last_hand
    if last is not None:
        out["previous"] = [
            f"hand {last.number}: {last.reason}"
            + ("" if last.went_out is None else f" (seat {last.went_out} went out)")
        ] + [
            f"seat {s}: melded {last.melded_points[s]}, left "
            f"{' '.join(cards(last.left_in_hand[s])) or 'nothing'} ({last.left_points[s]}), "
            f"hand {last.hand_scores[s]:+d}"
            for s in range(len(last.hand_scores))
        ]


def _flip_flop(out: dict[str, Any], views: Mapping[int, Any], n: int) -> None:
    first = next(iter(views.values()))
    out["title"] = f"round {first.round}"
    out["phase"] = first.phase
    out["stock"] = first.stock_size
    out["discard"] = cards(first.discard_pile)
    out["melds"] = [
        {"label": f"{sp.number}: seat {sp.owner}", "cards": cards(sp.cards), "seats": []}
        for sp in first.spreads
    ]
    out["seats"][first.dealer]["notes"].append("dealer")
    for p in first.players:
        seat = out["seats"][p.seat]
        seat["hand_size"] = p.hand_size
        seat["known"] = cards(p.face_up)
        if p.declared is not None:
            seat["notes"].append(f"declared {p.declared}")
        if not p.in_round:
            seat["notes"].append(
                "out of the match" if p.eliminated_in_round is not None else "sits out"
            )
    for s, v in views.items():
        if first.to_act is not None or v.hand:
            out["seats"][s]["hand"] = cards(v.hand)
        if v.taken_from_discard is not None:
            out["seats"][s]["notes"].append(f"may not discard {v.taken_from_discard}")
    game, flip, flop = first.pots
    out["info"].append(f"pots: game {game}, flip {flip}, flop {flop}")
    if first.flip_card is not None:
        out["info"].append(
            f"flip card {first.flip_card}: flip suit {first.flip_suit}, flop suit {first.flop_suit}"
        )
    for r in first.reveals:
        out["info"].append(f"seat {r.seat} revealed {r.card} for the {r.pot}")
    out["scores"] = {
        "title": "bankrolls",
        "head": ["", "bankroll", "set aside", "pots open to it"],
        "rows": [
            [f"seat {p.seat}", str(p.bankroll), str(p.set_aside), ", ".join(p.eligible) or "–"]
            for p in first.players
        ],
    }
    last = first.last_round
    if last is not None:
        lines = [
            f"round {last.round}: {last.ending}"
            + ("" if last.seat is None else f" (seat {last.seat})")
            + f"; game pot to {', '.join(f'seat {w}' for w in last.game_winners) or 'nobody'}"
            f" ({last.game_share} each)"
        ]
        if last.flip_winner is not None:
            lines.append(f"flip: seat {last.flip_winner} with {last.flip_card}, {last.flip_won}")
        if last.flop_winner is not None:
            lines.append(f"flop: seat {last.flop_winner} with {last.flop_card}, {last.flop_won}")
        lines += [f"seat {h.seat} shows {' '.join(cards(h.cards))} ({h.value})" for h in last.shown]
        out["previous"] = lines


_BUILDERS = {
    "hollywood-gin": _hollywood,
    "gin-three": _gin_three,
    "rummy-500": _rummy500,
    "flip-flop": _flip_flop,
}
