"""``arena bench admission``: how long a genuine remote bot waits to be admitted, with
no one else dialling, during a flood of made-up keys from another address, and during a
flood of API keys on a hosted bot's own socket (docs/protocol.md, "Listeners";
docs/performance.md). A real worker host (its referee, its remote listener over TLS, its
admitters) and a scratch database; the bot is a real gRPC client timed from the moment
it opens its channel (TCP, TLS, ``Serve``) to the headers that say its session is on."""

from __future__ import annotations

import asyncio
import datetime
import ipaddress
import logging
import secrets
import socket
import statistics
import tempfile
import threading
import time
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import grpc

from arena.bench.store import ScratchDatabase
from rummyarena.v1 import bot_pb2, bot_pb2_grpc

GAME = "hollywood-gin"
BOT = "benchr"
#: The flood's dialling streams, over this many channels.
CHANNELS = 10
#: The address the flood comes from (another machine, to the referee's per-source queue).
ELSEWHERE = "127.0.0.2"


@dataclass(frozen=True, slots=True)
class AdmissionBench:
    """Each condition's admission times of the genuine bot, in ms, and what the floods
    were answered."""

    dials: int
    flood: int
    alone_ms: list[float]
    key_flood_ms: list[float]
    socket_flood_ms: list[float]
    key_flood_refusals: dict[str, int] = field(default_factory=dict)
    socket_flood_refusals: dict[str, int] = field(default_factory=dict)

    def median(self, condition: str) -> float:
        return float(statistics.median(getattr(self, f"{condition}_ms")))

    def as_dict(self) -> dict[str, Any]:
        out = asdict(self)
        for condition in ("alone", "key_flood", "socket_flood"):
            out[f"{condition}_median_ms"] = self.median(condition)
        return out


def self_signed() -> tuple[bytes, bytes]:
    """A certificate for localhost and 127.0.0.1 that is its own CA, and its key (PEM)."""
    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import NameOID

    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "localhost")])
    now = datetime.datetime.now(datetime.UTC)
    cert = (
        x509.CertificateBuilder()
        .subject_name(name)
        .issuer_name(name)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(minutes=5))
        .not_valid_after(now + datetime.timedelta(days=1))
        .add_extension(
            x509.SubjectAlternativeName(
                [x509.DNSName("localhost"), x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]
            ),
            critical=False,
        )
        .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
        .sign(key, hashes.SHA256())
    )
    key_pem = key.private_bytes(
        serialization.Encoding.PEM,
        serialization.PrivateFormat.PKCS8,
        serialization.NoEncryption(),
    )
    return cert.public_bytes(serialization.Encoding.PEM), key_pem


def write_self_signed(folder: Path) -> tuple[Path, Path]:
    """:func:`self_signed`'s certificate (its own CA) and key, as files in ``folder``."""
    cert, key = self_signed()
    (folder / "cert.pem").write_bytes(cert)
    (folder / "key.pem").write_bytes(key)
    return folder / "cert.pem", folder / "key.pem"


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _dial(address: str, ca: bytes, key: str) -> float:
    """One genuine arrival: ms from opening the channel to the headers of its session."""
    started = time.perf_counter()
    with grpc.secure_channel(address, grpc.ssl_channel_credentials(ca)) as channel:
        request = bot_pb2.ServeRequest(api_key=key, bot=BOT, game=GAME, agent="bench")
        call = bot_pb2_grpc.RefereeStub(channel).Serve(request, timeout=120)  # type: ignore[no-untyped-call]
        call.initial_metadata()  # the referee sends them once the platform admitted it
        took = (time.perf_counter() - started) * 1000
        if call.done():  # it ended instead: refused
            raise RuntimeError(f"the genuine bot was not admitted: {call.details()}")
        call.cancel()
    return took


class _Flood:
    """``count`` streams dialling ``target`` again and again, each with a request made by
    ``request()``, on a loop of its own thread, until stopped; ``refusals`` counts the
    status codes they were answered with. With ``source``, through a proxy whose
    connections come from that address."""

    def __init__(
        self,
        target: str,
        count: int,
        request: Any,
        credentials: grpc.ChannelCredentials | None = None,
        source: str | None = None,
    ) -> None:
        self.target, self.count, self.request = target, count, request
        self.credentials, self.source = credentials, source
        self.refusals: Counter[str] = Counter()
        self.stop = threading.Event()
        self.thread = threading.Thread(target=lambda: asyncio.run(self._run()), daemon=True)

    async def _proxy(self) -> tuple[asyncio.Server, str]:
        host, port = self.target.rsplit(":", 1)

        async def pump(src: asyncio.StreamReader, dst: asyncio.StreamWriter) -> None:
            try:
                while data := await src.read(65536):
                    dst.write(data)
                    await dst.drain()
            except OSError:
                pass
            finally:
                dst.close()

        async def serve(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
            try:
                up_reader, up_writer = await asyncio.open_connection(
                    host, int(port), local_addr=(self.source, 0)
                )
                await asyncio.gather(pump(reader, up_writer), pump(up_reader, writer))
            except (OSError, asyncio.CancelledError):  # the flood is over
                writer.close()

        server = await asyncio.start_server(serve, "127.0.0.1", 0)
        return server, f"127.0.0.1:{server.sockets[0].getsockname()[1]}"

    async def _run(self) -> None:
        proxy, target = (None, self.target)
        if self.source is not None:
            proxy, target = await self._proxy()
        channels = [
            grpc.aio.insecure_channel(target)
            if self.credentials is None
            else grpc.aio.secure_channel(target, self.credentials)
            for _ in range(CHANNELS)
        ]

        async def dial(channel: grpc.aio.Channel) -> None:
            while not self.stop.is_set():
                stub = bot_pb2_grpc.RefereeStub(channel)  # type: ignore[no-untyped-call]
                call = stub.Serve(self.request(), timeout=30)
                try:
                    async for _ in call:
                        pass
                except grpc.aio.AioRpcError as exc:
                    self.refusals[exc.code().name] += 1

        try:
            await asyncio.gather(*(dial(channels[i % CHANNELS]) for i in range(self.count)))
        finally:
            for channel in channels:
                await channel.close()
            if proxy is not None:
                proxy.close()

    def __enter__(self) -> _Flood:
        self.thread.start()
        deadline = time.monotonic() + 120
        while sum(self.refusals.values()) < self.count and time.monotonic() < deadline:
            time.sleep(0.05)  # in full flow: each stream was answered once at least
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop.set()
        self.thread.join(60)


def _made_up_key() -> bot_pb2.ServeRequest:
    fake = f"{secrets.token_hex(6)}.{secrets.token_urlsafe(32)}"
    return bot_pb2.ServeRequest(api_key=fake, bot=BOT, game=GAME, agent="flood")


@contextmanager
def _platform(url: str, redis_url: str) -> Iterator[tuple[str, bytes, str, Any]]:
    """A worker host taking remote bots over TLS, on a scratch database holding a user
    and their remote bot: its remote address, its certificate, the user's key, the host."""
    from arena.app.remote import admitter
    from worker.host import start_host
    from worker.store import Store

    with (
        ScratchDatabase(url) as scratch,
        Store.open(scratch, max_size=8) as store,
        tempfile.TemporaryDirectory(prefix="arena-bench-") as folder,
    ):
        cert, key = write_self_signed(Path(folder))
        store.create_user("bench")
        made = store.create_key("bench")
        store.remote_version(store.add_bot(BOT, "bench"), GAME, "bench", "exempt")
        address = f"127.0.0.1:{_free_port()}"
        remote = ["--remote", address, "--tls-cert", str(cert), "--tls-key", str(key)]
        host = start_host(store, redis_url, remote=remote, admit=admitter(store))
        try:
            yield address, cert.read_bytes(), made.text, host
        finally:
            host.close()


def bench_admission(
    url: str, redis_url: str, *, dials: int = 15, flood: int = 300
) -> AdmissionBench:
    """Time ``dials`` admissions of a genuine remote bot in each condition: alone; while
    ``flood`` streams dial with made-up keys over TLS from another address; while as many
    dial a hosted bot's own socket with API keys (what a bot inside a sandbox can send)."""
    # each refusal of the floods is logged as a warning: thousands of them
    logging.getLogger("worker.remote").setLevel(logging.ERROR)
    with _platform(url, redis_url) as (address, ca, key, host):
        for _ in range(3):  # the first connections of the process are slower: not counted
            _dial(address, ca, key)

        def times() -> list[float]:
            taken = []
            for _ in range(dials):
                taken.append(_dial(address, ca, key))
                time.sleep(0.1)  # its departure is heard before it comes again
            return taken

        alone = times()
        credentials = grpc.ssl_channel_credentials(ca)
        with _Flood(address, flood, _made_up_key, credentials, ELSEWHERE) as keys:
            key_flood = times()
        with tempfile.TemporaryDirectory(prefix="arena-bench-") as folder:
            own = f"{folder}/s.sock"
            session_id, _ = host.link.open_session("flood", own)
            try:
                with _Flood(f"unix:{own}", flood, _made_up_key) as sockets:
                    socket_flood = times()
            finally:
                host.link.close_session(session_id)
    return AdmissionBench(
        dials,
        flood,
        alone,
        key_flood,
        socket_flood,
        dict(keys.refusals),
        dict(sockets.refusals),
    )
