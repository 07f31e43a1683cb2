"""The leases of the matches one worker process is playing, renewed from one thread.

A claim holds a match for ``lease_s`` seconds (:meth:`worker.store.Store.claim_match`);
while it is played the worker extends it every third of that, so a match outlives its
lease only when its worker is gone or cut off (and then another worker may claim it: the
finish of the first is refused, so the match is counted once). One thread renews every
match the process holds in one statement a tick, rather than a thread per match started
and joined for each play.

A lease found no longer its holder's is dropped and said, in the context of that play
(its log lines carry the match's id and are kept with the match, :mod:`worker.logs`).
"""

from __future__ import annotations

import contextlib
import contextvars
import logging
import threading
from collections.abc import Iterator
from typing import Any

log = logging.getLogger(__name__)


class Leases:
    """The leases one worker holds (match id → holder), renewed every ``lease_s / 3``
    seconds by one thread, started with the first lease and stopped by :meth:`close`.
    Thread-safe."""

    def __init__(self, store: Any, lease_s: float) -> None:
        self.store = store
        self.lease_s = lease_s
        self._held: dict[int, tuple[str, contextvars.Context]] = {}
        self._lock = threading.Lock()
        self._closed = threading.Event()
        self._thread: threading.Thread | None = None

    @contextlib.contextmanager
    def held(self, match_id: int, holder: str) -> Iterator[None]:
        """Renew the lease of ``match_id`` under ``holder`` while the block runs."""
        with self._lock:
            self._held[match_id] = (holder, contextvars.copy_context())
            if self._thread is None:
                self._thread = threading.Thread(target=self._run, name="leases", daemon=True)
                self._thread.start()
        try:
            yield
        finally:
            with self._lock:
                if self._held.get(match_id, (None,))[0] == holder:
                    del self._held[match_id]

    def renew(self) -> None:
        """Renew every lease held now; drop (and say) those that are no longer ours."""
        with self._lock:
            held = {m: h for m, (h, _) in self._held.items()}
        if not held:
            return
        try:
            renewed = self.store.renew_leases(list(held.items()), self.lease_s)
        except Exception:  # the store is away: try again at the next tick
            log.exception("renewing the leases of matches %s failed", sorted(held))
            return
        for match_id in held.keys() - renewed:
            with self._lock:
                entry = self._held.get(match_id)
                if entry is None or entry[0] != held[match_id]:
                    continue  # its play ended meanwhile
                del self._held[match_id]
            entry[1].run(log.warning, "match %d: the lease is no longer ours", match_id)

    def close(self) -> None:
        """Stop renewing (the worker is closing)."""
        self._closed.set()
        if self._thread is not None:
            self._thread.join()

    def _run(self) -> None:
        while not self._closed.wait(self.lease_s / 3):
            self.renew()
