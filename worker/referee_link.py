"""A worker's referee: the local referee process it starts (:class:`LocalReferee`) and the
calls it makes on the referee's match service (:class:`RefereeLink`), with the platform's
credential on every call (``docs/protocol.md``)."""

from __future__ import annotations

import contextlib
import logging
import os
import secrets
import shutil
import signal
import subprocess
import sys
import tempfile
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

import grpc

from referee import settings
from referee.auth import SECRET_ENV, SecretError, call_metadata, platform_secret
from referee.clock import ClockRules
from referee.record import deal_json
from referee.wire import clock_to_proto, options_to_proto
from rummyarena.v1 import match_pb2, match_pb2_grpc
from worker.children import child_env

#: How long a call on the match service may take (the referee answers at once).
log = logging.getLogger(__name__)
CALL_S = 10.0


class RefereeGone(RuntimeError):
    """The worker's referee refused a call or stopped answering; ``code`` is the gRPC
    status name (``UNAVAILABLE`` when it is away)."""

    def __init__(self, message: str, code: str = "UNAVAILABLE") -> None:
        super().__init__(message)
        self.code = code


#: What of the worker's environment its referee does not get: it needs neither the
#: database nor the broker, nor a user's key.
NOT_FOR_THE_REFEREE = (
    settings.DATABASE_URL,
    settings.REDIS_URL,
    settings.REDIS_PREFIX,
    settings.API_KEY,
    settings.PLATFORM,
    settings.TEST_DATABASE_URL,
)


def _referee_environment() -> dict[str, str]:
    return {k: v for k, v in os.environ.items() if k not in NOT_FOR_THE_REFEREE}


class LocalReferee:
    """A referee process of this worker's own, on a free loopback port, with the
    platform's secret (``ARENA_REFEREE_SECRET`` or the one under ``ARENA_HOME``: the
    platform's other processes, the web app's live view among them, may call its match
    service), else a fresh one; it is stopped with the worker (and dies with it if the
    worker is killed). ``host`` is the address it listens on: loopback unless the
    platform's processes run on other hosts. With ``--remote HOST:PORT`` (and
    ``--tls-cert``, ``--tls-key``) among ``extra_args`` it also takes remote bots on
    that TLS port: :attr:`remote_port` is the port bound (0 without).

    Its hosted bots serve their sessions on its Unix socket (:attr:`socket`), which
    only this user and the sandboxes it is bound into reach; its TCP port takes no
    session keys unless ``tcp_sessions`` (for hosted bots that run unconfined, which
    are given the TCP address: docs/sandbox.md)."""

    def __init__(
        self,
        *,
        extra_args: Sequence[str] = (),
        host: str = "127.0.0.1",
        tcp_sessions: bool = False,
    ) -> None:
        try:
            self.secret = platform_secret()
        except SecretError as exc:
            # this worker's matches still play; only the live view cannot follow them
            log.warning("%s; the worker's referee takes a secret of its own", exc)
            self.secret = secrets.token_urlsafe(24)
        # the socket sandboxed bots reach it through, in a folder only this user may enter
        self.folder = Path(tempfile.mkdtemp(prefix="arena-referee-"))
        self.socket = str(self.folder / "referee.sock")
        self.process = subprocess.Popen(
            # a short grace: the worker stops its bots before its referee
            [
                *(sys.executable, "-m", "arena", "referee", "--port", "0", "--host", host),
                *("--unix", self.socket, "--grace", "2", *extra_args),
                *(("--tcp-sessions",) if tcp_sessions else ()),
            ],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            env=child_env({**_referee_environment(), SECRET_ENV: self.secret}),
            text=True,
            process_group=0,
        )
        assert self.process.stdout is not None
        line = self.process.stdout.readline()
        if "listening on" not in line:
            self.stop()
            raise RefereeGone(f"the worker's referee did not start (it said {line.strip()!r})")
        self.address = line.split()[-1]
        self.remote_port = 0
        if "--remote" in extra_args:
            while line and "remote bots:" not in line:  # the TLS line may come first
                line = self.process.stdout.readline()
            if "remote bots:" not in line:
                self.stop()
                raise RefereeGone("the worker's referee did not open its remote port")
            self.remote_port = int(line.split()[-1].rsplit(":", 1)[1])

    @property
    def alive(self) -> bool:
        """True while the referee process runs."""
        return self.process.poll() is None

    def stop(self) -> None:
        """SIGTERM, then SIGKILL after 10 s."""
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        if self.process.stdout is not None:
            self.process.stdout.close()
        shutil.rmtree(self.folder, ignore_errors=True)


class RefereeLink:
    """The match service of the referee at ``address``: create matches seated by bot
    sessions, wait for their results, fetch and release their records."""

    def __init__(self, address: str, secret: str, socket: str | None = None) -> None:
        self.address = address
        self.socket = socket  # the referee's Unix socket file, for sandboxed bots
        self.channel = grpc.insecure_channel(address)
        self.stub = match_pb2_grpc.MatchesStub(self.channel)  # type: ignore[no-untyped-call]
        self.metadata = call_metadata(secret)

    def close(self) -> None:
        """Close the channel."""
        self.channel.close()

    def _call(self, method: str, request: Any, timeout: float = CALL_S) -> Any:
        try:
            return getattr(self.stub, method)(request, timeout=timeout, metadata=self.metadata)
        except grpc.RpcError as exc:
            raise self._gone(method, exc) from exc

    def _gone(self, method: str, exc: grpc.RpcError) -> RefereeGone:
        code = exc.code()
        return RefereeGone(
            f"the referee at {self.address} refused {method}: {code.name}: {exc.details()}",
            code.name,
        )

    def open_session(self, name: str, socket: str = "") -> tuple[str, str]:
        """A new bot session: (session id, key). The key is the bot process's credential.
        With ``socket``, the referee serves the session alone on a Unix socket made there
        (in a folder of the worker's), removed when the session closes."""
        request = match_pb2.OpenSessionRequest(name=name, socket=socket)
        reply = self._call("OpenSession", request)
        return reply.session_id, reply.key

    def close_session(self, session_id: str, reason: str = "") -> None:
        """End a bot session (its process's serve loop returns; with ``reason``, it ends
        with PERMISSION_DENIED and that message: a revoked key); quiet if already gone."""
        request = match_pb2.CloseSessionRequest(session_id=session_id, reason=reason)
        with contextlib.suppress(RefereeGone):
            self._call("CloseSession", request)

    def watch_remote(self) -> Iterator[match_pb2.RemoteEvent]:
        """The remote bots' arrivals and departures (docs/protocol.md, "Remote bots"), as
        they come; returns once the referee has taken the watch, so a bot that dials in
        from then on is heard of. Iterating blocks; closing the iterator ends the watch;
        :class:`RefereeGone` when the referee refuses it or goes away."""
        call = self.stub.WatchRemote(match_pb2.WatchRemoteRequest(), metadata=self.metadata)
        try:
            call.initial_metadata()
        except grpc.RpcError as exc:
            raise self._gone("WatchRemote", exc) from exc

        def events() -> Iterator[match_pb2.RemoteEvent]:
            try:
                yield from call
            except grpc.RpcError as exc:
                if exc.code() != grpc.StatusCode.CANCELLED:
                    raise self._gone("WatchRemote", exc) from exc
            else:
                raise RefereeGone(f"the referee at {self.address} ended the watch of remote bots")
            finally:
                call.cancel()

        return events()

    def admit_remote(self, connection_id: str, session_id: str) -> None:
        """Admit a waiting remote connection onto the open session ``session_id``;
        :class:`RefereeGone` with code ``NOT_FOUND`` when it no longer waits."""
        request = match_pb2.AdmitRemoteRequest(connection_id=connection_id, session_id=session_id)
        self._call("AdmitRemote", request)

    def refuse_remote(
        self, connection_id: str, refusal: str, code: str = "PERMISSION_DENIED"
    ) -> None:
        """Refuse a waiting remote connection: its Serve ends with ``code`` (a gRPC status
        name; UNAUTHENTICATED for a key the platform does not know) and ``refusal``;
        :class:`RefereeGone` with code ``NOT_FOUND`` when it no longer waits."""
        request = match_pb2.AdmitRemoteRequest(
            connection_id=connection_id, refusal=refusal, code=code
        )
        self._call("AdmitRemote", request)

    def create_match(
        self,
        match_id: str,
        game: str,
        options: Mapping[str, Any],
        seed: int,
        names: Sequence[str],
        sessions: Sequence[str],
        clock: ClockRules | None = None,
        faults: Sequence[str] = (),
        deal: Mapping[str, Any] | None = None,
    ) -> None:
        """Create a match whose seats are told to the bot sessions ``sessions``; a seat
        with a fault in ``faults`` (its bot cannot play) forfeits before the deal. With
        ``deal``, a chosen deal's table (:func:`referee.scenario.deal`), the first hand
        is dealt from it and what it leaves out from ``seed``."""
        request = match_pb2.CreateMatchRequest(
            game=game,
            seed=seed,
            seat_names=list(names),
            seat_sessions=list(sessions),
            match_id=match_id,
            seat_faults=list(faults) if any(faults) else [],
            deal=deal_json(deal) if deal is not None else "",
        )
        options_to_proto(dict(options), request.options)
        if clock is not None:
            request.clock.CopyFrom(clock_to_proto(clock))
        self._call("CreateMatch", request)

    def wait(self, match_id: str, timeout: float, *, release: bool = False) -> Any:
        """Wait for the match to end (one call, not its stream of events); its
        ``GetMatchResponse`` with the record's bytes as the referee wrote them
        (``record_data``). With ``release`` the referee forgets the match once it has
        answered (the caller keeps the record), which saves a :meth:`release`."""
        request = match_pb2.GetMatchRequest(
            match_id=match_id, wait=True, record_bytes=True, release=release
        )
        return self._call("GetMatch", request, timeout=timeout)

    def release(self, match_id: str) -> None:
        """Let the referee forget a finished match whose record is stored."""
        with contextlib.suppress(RefereeGone):
            self._call("ReleaseMatch", match_pb2.ReleaseMatchRequest(match_id=match_id))
