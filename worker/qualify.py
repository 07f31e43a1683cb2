"""Qualification (docs/bots.md, "Qualification"): the short matches a new bot version
plays before it is seated in tournaments, gauntlets, duels and ladders, like fastchess's
``--compliance`` check for chess engines.

The bot is hosted as a worker hosts it: a bot pool, in the sandbox (or unconfined where
``ARENA_SANDBOX=off``), with a referee of its own, so a qualification shares nothing
with the matches of its worker. It plays one short match at each seat count its game
allows, at seat 0, against the random bot at the other seats, with the platform's clock.
It passes when it joined and every one of its seats ended ``ok``: it answered every
decision legally and in time. A failure is reported with the referee's status for the
seat, the decision it failed on (its view and the legal actions it was given) and the
tail of what the bot wrote to its standard error.

A bot's author may add chosen deals (``arena bot check --deal FILE``): each is played
once with the bot at each of its seats in turn, the random bot at the others, on the
same host and clock, and reported and judged as the qualification's matches are.

:func:`qualify` is the check itself, with no database (``arena bot check`` runs it
before a submission); :func:`run` qualifies a stored version and records the outcome
(the worker's ``arena.qualify`` task, and ``arena bot submit`` on the platform's own
machine)."""

from __future__ import annotations

import dataclasses
import io
import logging
import secrets
import tarfile
import tempfile
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from referee import settings
from referee.clock import ClockRules
from referee.games import get_game
from worker import sandbox
from worker.pool import BotPool, BotStartError
from worker.referee_link import LocalReferee, RefereeLink
from worker.store import Store

log = logging.getLogger(__name__)

RANDOM_BOT = Path(__file__).resolve().parents[1] / "bots" / "examples" / "random_bot.py"
#: The longest a qualification match may take (seconds), and the tail of the bot's
#: standard error a failure shows (characters).
MATCH_S = 300.0
STDERR_SHOWN = 4000
#: The options of a qualification match: one hand (one round of Flip Flop) is enough to
#: see a bot join, answer and finish.
SHORT = {"flip-flop": {"max_rounds": 1}}
ONE_HAND = {"max_hands": 1}
#: The pool's id of the random bot (bot version ids start at 1).
_OPPONENT = 0


@dataclasses.dataclass(frozen=True, slots=True)
class ChosenDeal:
    """A chosen deal (docs/bots.md, "Chosen deals") the candidate also plays, at each of
    its ``seats`` in turn: ``name`` is how the report names it (its file), ``deal`` its
    table, ``options`` the match's (:func:`match_options`); what the table leaves out is
    dealt from ``seed`` (when None, from one drawn for the deal: every seat is dealt the
    same cards)."""

    name: str
    deal: Mapping[str, Any]
    seats: int
    options: Mapping[str, Any]
    seed: int | None = None


def match_options(game: str, chosen: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """The options of a qualification match of ``game``: one hand (one round of Flip
    Flop), under any ``chosen`` (a deal file's) that set more."""
    return {**SHORT.get(game, ONE_HAND), **(chosen or {})}


@dataclasses.dataclass(frozen=True, slots=True)
class _Version:
    label: str
    manifest: dict[str, Any]


class _Versions:
    """The versions a qualification hosts: the random bot and, but for a remote bot's, the
    candidate."""

    def __init__(
        self,
        candidate: int | None = None,
        archive: bytes = b"",
        manifest: dict[str, Any] | None = None,
    ) -> None:
        data = RANDOM_BOT.read_bytes()
        buffer = io.BytesIO()
        with tarfile.open(fileobj=buffer, mode="w") as tar:
            info = tarfile.TarInfo(RANDOM_BOT.name)
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
        random_command = ["python", "-m", "arena", "bot", "run", RANDOM_BOT.name]
        self.archives = {_OPPONENT: buffer.getvalue()}
        self.versions = {
            _OPPONENT: _Version("random_bot", {"command": random_command, "runtime": "python"})
        }
        if candidate is not None:
            self.archives[candidate] = archive
            self.versions[candidate] = _Version("candidate", manifest or {})

    def bot_version(self, version_id: int) -> _Version:
        return self.versions[version_id]

    def bot_archive(self, version_id: int) -> bytes:
        return self.archives[version_id]


def seat_counts(game: str) -> range:
    """Every number of players ``game`` may be played by."""
    spec = get_game(game)
    return range(spec.min_seats, spec.max_seats + 1)


class _Hosted:
    """The candidate as the qualification's own pool hosts it."""

    def __init__(self, pool: BotPool, version_id: int) -> None:
        self.pool, self.version_id = pool, version_id
        self.mark: int | None = None

    def session(self) -> str:
        session = self.pool.session(self.version_id)
        self.mark = self.pool.log_mark(self.version_id)  # what it writes from here on
        return session

    def exit_note(self) -> str | None:
        return self.pool.exit_note(self.version_id)

    def stderr(self) -> str:
        return self.pool.log_since(self.version_id, self.mark)


class _Remote:
    """A remote candidate: the session it holds on the host's referee. What it writes
    stays on its author's machine."""

    def __init__(self, session_id: str) -> None:
        self.session_id = session_id

    def session(self) -> str:
        return self.session_id

    def exit_note(self) -> str | None:
        return None

    def stderr(self) -> str:
        return ""


def qualify(
    archive: bytes,
    command: Sequence[str],
    game: str,
    *,
    runtime: str | None = None,
    version_id: int = 1,
    counts: Sequence[int] | None = None,
    deals: Sequence[ChosenDeal] = (),
) -> dict[str, Any]:
    """Host the bot (``version_id`` names it in the pool: its sandbox uid) and play its
    qualification matches, then each of ``deals`` at each of its seats; the report
    (docs/bots.md), with ``deals`` when some were given.
    :class:`~worker.sandbox.SandboxUnavailable` when this host cannot confine it and the
    sandbox is not off."""
    box = sandbox.configure(settings.sandbox_mode())
    manifest = {"command": list(command), "runtime": runtime}
    versions = _Versions(version_id, archive, manifest)
    referee = LocalReferee(tcp_sessions=not box.on)  # unconfined bots dial its TCP port
    link = RefereeLink(referee.address, referee.secret, referee.socket)
    with tempfile.TemporaryDirectory(prefix="arena-qualify-") as root:
        pool = BotPool(versions, link, root=Path(root), sandbox=box)
        try:
            candidate = _Hosted(pool, version_id)
            report = _qualify(pool, link, candidate, game, counts, box.mode)
            if deals:
                played = [_play_deal(pool, link, candidate, game, d) for d in deals]
                report["deals"] = [m for matches in played for m in matches]
                report["qualified"] = report["qualified"] and all(m["ok"] for m in report["deals"])
            return report
        finally:
            pool.close()
            link.close()
            referee.stop()


def qualify_remote(
    link: RefereeLink, session_id: str, game: str, box: sandbox.Sandbox
) -> dict[str, Any]:
    """Play the qualification of a remote bot connected to the referee of ``link`` through
    ``session_id``, against the random bot hosted here (in ``box``); the report."""
    with tempfile.TemporaryDirectory(prefix="arena-qualify-") as root:
        pool = BotPool(_Versions(), link, root=Path(root), sandbox=box)
        try:
            return _qualify(pool, link, _Remote(session_id), game, None, "remote")
        finally:
            pool.close()


def _qualify(
    pool: BotPool,
    link: RefereeLink,
    candidate: _Hosted | _Remote,
    game: str,
    counts: Sequence[int] | None,
    mode: str,
) -> dict[str, Any]:
    matches: list[dict[str, Any]] = []
    for seats in counts or seat_counts(game):
        matches.append(_play(pool, link, candidate, game, seats))
        if not matches[-1]["ok"]:
            break  # one failure is the report: the next matches would repeat it
    return {
        "game": game,
        "qualified": bool(matches) and all(m["ok"] for m in matches),
        "sandbox": mode,
        "matches": matches,
    }


def _play_deal(
    pool: BotPool, link: RefereeLink, candidate: _Hosted, game: str, chosen: ChosenDeal
) -> list[dict[str, Any]]:
    """The chosen deal played once with the candidate at each of its seats, each dealt
    the same cards: every seat is a position of its own, so a failure at one does not
    end the others."""
    if chosen.seed is None:
        chosen = dataclasses.replace(chosen, seed=secrets.randbits(63))
    out = []
    for seat in range(chosen.seats):
        played = _play(pool, link, candidate, game, chosen.seats, seat=seat, chosen=chosen)
        out.append({"deal": chosen.name, "seat": seat, "seed": chosen.seed, **played})
    return out


def _play(
    pool: BotPool,
    link: RefereeLink,
    candidate: _Hosted | _Remote,
    game: str,
    seats: int,
    *,
    seat: int = 0,
    chosen: ChosenDeal | None = None,
) -> dict[str, Any]:
    """One qualification match of ``seats`` players, the candidate at ``seat`` and the
    random bot at the others, dealt from ``chosen`` when given."""
    from referee.record import deal_json
    from referee.wire import decode_record

    kind = "qualify" if chosen is None else f"qualify-deal-{seat}"
    match_id = f"{kind}-{seats}-{secrets.token_hex(4)}"
    names = ["candidate" if i == seat else f"random_bot {i}" for i in range(seats)]
    sessions = ["" if i == seat else pool.session(_OPPONENT) for i in range(seats)]
    faults = [""] * seats
    try:
        sessions[seat] = candidate.session()
    except BotStartError as exc:  # the bot cannot start: its seat forfeits
        faults[seat] = str(exc)
    link.create_match(
        match_id,
        game,
        match_options(game) if chosen is None else chosen.options,
        secrets.randbits(63) if chosen is None or chosen.seed is None else chosen.seed,
        names,
        sessions,
        ClockRules(),
        faults,
        deal=None if chosen is None else chosen.deal,
    )
    record = decode_record(link.wait(match_id, MATCH_S, release=True).record_data)
    if chosen is not None and record.deal != deal_json(chosen.deal):
        # a referee older than chosen deals in CreateMatch dealt the match from its seed
        raise RuntimeError(f"the referee at {link.address} did not deal {chosen.name}")
    status = record.seats[seat].status
    out: dict[str, Any] = {"seats": seats, "status": status, "ok": status == "ok"}
    if not out["ok"]:
        out["reason"] = faults[seat] or _reason(status, candidate.exit_note())
        out["decision"] = _failed_decision(record, seat)
        out["stderr"] = candidate.stderr()[-STDERR_SHOWN:]
    return out


def _reason(status: str, exit_note: str | None) -> str:
    said = {
        "timeout": "it did not answer a decision within its time",
        "invalid": "it answered a decision with an action that is not legal",
        "crashed": "it reported an error instead of an answer",
        "disconnected": "it never joined its match, or left it before the end",
    }.get(status, status)
    return said + (f" ({exit_note})" if exit_note else "")


def _failed_decision(record: Any, seat: int = 0) -> dict[str, Any] | None:
    """The first decision ``seat`` did not answer well: its view and legal actions, found
    by re-running the engine on the record to that point; None if it failed before any
    decision (it never joined)."""
    from google.protobuf.json_format import MessageToDict

    from referee.record import new_state, replay
    from referee.wire.views import view_to_proto

    position = next(
        (
            i
            for i, a in enumerate(record.actions)
            if a.seat == seat and a.source != "bot" and a.source != "forced"
        ),
        None,
    )
    if position is None:
        return None
    state = new_state(record)
    for _ in replay(state, (a.index for a in record.actions[:position])):
        pass
    return {
        "action": position,
        "view": MessageToDict(view_to_proto(state.view(seat))),
        "legal_actions": [str(a) for a in state.legal_actions()],
        "referee_chose": record.actions[position].text,
        "source": record.actions[position].source,
    }


def run(store: Store, version_id: int) -> dict[str, Any] | None:
    """Qualify the stored version ``version_id`` if it is qualifying, and record the
    outcome (``qualified`` or ``failed``, with the report); None if it was not qualifying
    (decided already: running the same qualification twice is harmless). A platform that
    cannot host the bot at all (no sandbox where one is needed) leaves it qualifying,
    for a worker that can."""
    version = store.bot_version(version_id)
    if version.qualification != "qualifying":
        return None
    manifest = version.manifest
    report = qualify(
        store.bot_archive(version_id),
        list(manifest.get("command") or ()),
        version.game,
        runtime=manifest.get("runtime"),
        version_id=version_id,
    )
    if not store.finish_qualification(version_id, report):
        return None
    log.info(
        "bot %s %s its qualification", version.label, "passed" if report["qualified"] else "failed"
    )
    return report
