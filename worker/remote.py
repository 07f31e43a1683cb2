"""Remote bots at a worker host (docs/bots.md, "Running your bot from home"): bot
processes on their authors' machines that dial this host's referee over TLS with their
owner's API key, instead of being hosted in its bot pool.

The referee has no database, so it cannot check a key: it tells the worker of each bot
that dials in (``Matches.WatchRemote``), and the worker asks the application layer
(``admit``: whose key, whose bot, which version) and answers (``Matches.AdmitRemote``):
onto a session of the worker's own, one per bot version, kept across reconnects so that
a bot that drops and dials again resumes its matches. While a bot is connected its row
in ``remote_sessions`` is refreshed every :data:`REFRESH_S` seconds and its key checked
again: it is *online* (ladders pair it, and only this host claims its matches); a
revoked key, or a bot no longer its owner's, ends its session with the reason. A new
remote version (``qualifying``) plays its qualification over its connection first.

Arrivals are answered by :data:`ADMITTERS` threads at once, not one after another on
the thread that watches: a key is checked by one hash and one look-up (a made-up one by
the look-up alone), so a flood of made-up keys is answered quickly, and one arrival
whose answer is slow (the store busy) holds up no other. An arrival still unanswered
after the referee's :data:`~referee.service.ADMIT_S` is dropped unasked: the bot has
been told to try again already.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from referee.service import ADMIT_S
from worker import qualify
from worker.referee_link import RefereeGone, RefereeLink
from worker.store import BotVersion
from worker.store.matches import REMOTE_ONLINE_S

if TYPE_CHECKING:
    from worker.host import Host

log = logging.getLogger(__name__)

#: How often a connected remote bot's key is checked again and its row refreshed.
REFRESH_S = REMOTE_ONLINE_S / 3
#: What a remote seat's name carries in records, replays and standings.
REMOTE_MARK = " (remote)"
#: How many arrivals are being answered at once, at most.
ADMITTERS = 4


class Refused(Exception):
    """A remote bot may not play: why, and the gRPC status it is refused with."""

    def __init__(self, message: str, code: str = "PERMISSION_DENIED") -> None:
        super().__init__(message)
        self.code = code


#: ``admit(api key, bot, game)``: the version it plays as, or :class:`Refused`.
Admit = Callable[[str, str, str], BotVersion]


@dataclass
class _Bot:
    """A remote bot's version, its session on one referee, and how it connected."""

    version: BotVersion
    session_id: str
    link: RefereeLink
    api_key: str
    bot: str
    game: str
    agent: str = ""
    connected: bool = False
    qualifying: bool = False
    connection: str = ""  # the referee's id of its newest connection


class RemoteDesk:
    """The remote bots of one worker host. Thread-safe."""

    def __init__(self, host: Host, admit: Admit) -> None:
        self.host = host
        self.admit = admit
        self._bots: dict[int, _Bot] = {}  # by version id
        self._lock = threading.Lock()
        self._admitters = ThreadPoolExecutor(ADMITTERS, thread_name_prefix="remote-admit")

    def start(self) -> list[threading.Thread]:
        """Take remote bots (a thread watching the referee, and :data:`ADMITTERS` that
        answer arrivals) and keep them checked."""
        threads = [
            threading.Thread(target=self._watch, name="remote-watch", daemon=True),
            threading.Thread(target=self._refresh, name="remote-refresh", daemon=True),
        ]
        for thread in threads:
            thread.start()
        return threads

    def session(self, version_id: int) -> str | None:
        """The session of a remote bot's version while it is connected here."""
        with self._lock:
            bot = self._bots.get(version_id)
            return None if bot is None or not bot.connected else bot.session_id

    # -- the referee's news ------------------------------------------------------------

    def _watch(self) -> None:
        host = self.host
        while host._wait_ready():
            link = host.link
            try:
                for event in link.watch_remote():
                    kind = event.WhichOneof("kind")
                    if kind == "arrived":
                        self._admitters.submit(
                            self._answer, link, event.connection_id, event.arrived, time.monotonic()
                        )
                    elif kind == "left":
                        self._left(event.connection_id, event.left.session_id)
            except RefereeGone as exc:
                if not host.stopping.is_set():
                    log.warning("the referee's remote bots are gone with it: %s", exc)
            except Exception:  # a store or referee fault: watch again
                log.exception("remote bots: watching the referee failed; watching again")
            self._forget(link)
            if host.stopping.wait(0.5):
                return

    def _answer(self, link: RefereeLink, connection: str, arrival: Any, heard: float) -> None:
        """Answer an arrival heard at ``heard`` (monotonic), unless the referee has given
        up on it; a fault is logged (the bot is told to try again by the referee)."""
        if self.host.stopping.is_set():
            return
        if time.monotonic() - heard > ADMIT_S:
            log.warning("remote bot %r from %s: not answered in time", arrival.bot, arrival.peer)
            return
        try:
            self._arrived(link, connection, arrival)
        except Exception:
            log.exception("remote bot %r from %s could not be answered", arrival.bot, arrival.peer)

    def _arrived(self, link: RefereeLink, connection: str, arrival: Any) -> None:
        try:
            version = self.admit(arrival.api_key, arrival.bot, arrival.game)
        except Refused as refused:
            log.warning("remote bot %r from %s refused: %s", arrival.bot, arrival.peer, refused)
            _quietly(link.refuse_remote, connection, str(refused), refused.code)
            return
        with self._lock:
            bot = self._bots.get(version.id)
            if bot is None or bot.link is not link:
                session_id, _key = link.open_session(version.label + REMOTE_MARK)
                bot = self._bots[version.id] = _Bot(
                    version, session_id, link, arrival.api_key, arrival.bot, arrival.game
                )
            bot.api_key, bot.agent, bot.connected = arrival.api_key, arrival.agent, True
            bot.connection = connection
            qualify_now = version.qualification == "qualifying" and not bot.qualifying
            bot.qualifying = bot.qualifying or qualify_now
        # online before it is admitted: its departure, which may come as soon as it is,
        # then finds it so (and sets it offline)
        self.host.store.set_remote_online(version.id, self.host.name, arrival.agent)
        try:
            link.admit_remote(connection, bot.session_id)
        except RefereeGone as exc:
            log.warning("remote bot %s could not be admitted: %s", version.label, exc)
            self._left(connection, bot.session_id)
            with self._lock:
                bot.qualifying = bot.qualifying and not qualify_now
            return
        log.info("remote bot %s connected from %s (%s)", version.label, arrival.peer, arrival.agent)
        if qualify_now:
            threading.Thread(
                target=self._qualify, args=(bot,), name=f"qualify-{version.id}", daemon=True
            ).start()

    def _left(self, connection: str, session_id: str) -> None:
        with self._lock:
            bot = next((b for b in self._bots.values() if b.session_id == session_id), None)
            if bot is None or bot.connection != connection:
                return  # gone, or an older connection of a bot that dialled again
            bot.connected = False
        self.host.store.set_remote_offline(bot.version.id, self.host.name)
        log.info("remote bot %s disconnected", bot.version.label)

    def _forget(self, link: RefereeLink) -> None:
        """The referee of ``link`` is gone, and its sessions with it."""
        with self._lock:
            gone = [b for b in self._bots.values() if b.link is link]
            for bot in gone:
                del self._bots[bot.version.id]
        for bot in gone:
            _quietly(self.host.store.set_remote_offline, bot.version.id, self.host.name)

    # -- while they stay ---------------------------------------------------------------

    def _refresh(self) -> None:
        while not self.host.stopping.wait(REFRESH_S):
            with self._lock:
                connected = [b for b in self._bots.values() if b.connected]
            kept = []
            for bot in connected:
                try:
                    self.admit(bot.api_key, bot.bot, bot.game)
                    kept.append(bot.version.id)
                except Refused as refused:
                    self._expel(bot, str(refused))
                except Exception:  # the store away: try again next time
                    log.exception("remote bot %s: its key could not be checked", bot.version.label)
                    kept.append(bot.version.id)
            if kept:
                _quietly(self.host.store.touch_remote, kept, self.host.name)

    def _expel(self, bot: _Bot, reason: str) -> None:
        """End a remote bot's session: its key no longer lets it play."""
        log.warning("remote bot %s: session ended: %s", bot.version.label, reason)
        with self._lock:
            self._bots.pop(bot.version.id, None)
        _quietly(bot.link.close_session, bot.session_id, reason)
        _quietly(self.host.store.set_remote_offline, bot.version.id, self.host.name)

    def _qualify(self, bot: _Bot) -> None:
        """Play a new remote version's qualification over its connection and record the
        outcome; if it dropped meanwhile, it qualifies on its next connection."""
        try:
            report = qualify.qualify_remote(
                bot.link, bot.session_id, bot.version.game, self.host.pool.sandbox
            )
            with self._lock:
                still = bot.connected and self._bots.get(bot.version.id) is bot
            if still or report["qualified"]:
                self.host.store.finish_qualification(bot.version.id, report)
                log.info(
                    "remote bot %s %s its qualification",
                    bot.version.label,
                    "passed" if report["qualified"] else "failed",
                )
        except Exception:
            log.exception("remote bot %s: its qualification could not be played", bot.version.label)
        finally:
            with self._lock:
                bot.qualifying = False


def _quietly(call: Callable[..., Any], *args: Any) -> None:
    """``call(*args)``, logging rather than raising: the referee or the store may be
    away, and the next refresh or connection tells again."""
    try:
        call(*args)
    except Exception as exc:
        log.warning("remote bots: %s failed: %s", getattr(call, "__name__", call), exc)
