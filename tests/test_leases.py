"""A worker renews the leases of every match it plays from one thread (worker/leases.py,
docs/architecture.md decision 6): a match that outlives its lease stays its worker's, and
a lease taken over by another worker is dropped and said in that play's log."""

from __future__ import annotations

import logging

import pytest

from tests.store_fixtures import make_bots
from worker import logs
from worker.leases import Leases
from worker.store import Store

pytest_plugins = ["tests.store_fixtures"]

GAME = "hollywood-gin"


def _expires(store: Store, match_id: int) -> object:
    found = store.match(match_id)
    assert found is not None
    return found.lease_expires


def test_d6_one_statement_renews_every_lease_held_and_no_other(store: Store) -> None:
    a, b = make_bots(store, 2)
    ids = [store.create_match(GAME, [a, b]).id for _ in range(3)]
    claimed = [store.claim_match(f"w/{i}", lease_seconds=5) for i in range(3)]
    assert [m.id for m in claimed if m is not None] == ids
    before = [_expires(store, m) for m in ids]
    renewed = store.renew_leases([(ids[0], "w/0"), (ids[1], "w/1"), (ids[2], "w/other")], 600)
    assert renewed == {ids[0], ids[1]}  # the third is held by w/2, not w/other
    after = [_expires(store, m) for m in ids]
    assert after[0] > before[0] and after[1] > before[1]  # type: ignore[operator]
    assert after[2] == before[2]
    assert store.renew_leases([], 600) == set()


def test_d6_leases_renews_while_held_and_says_when_a_lease_is_lost(
    store: Store, caplog: pytest.LogCaptureFixture
) -> None:
    a, b = make_bots(store, 2)
    kept, lost = (store.create_match(GAME, [a, b]).id for _ in range(2))
    assert store.claim_match("w/kept", lease_seconds=600, match_id=kept) is not None
    assert store.claim_match("w/lost", lease_seconds=600, match_id=lost) is not None
    leases = Leases(store, lease_s=600)
    said_here = logging.getLogger("worker.leases")
    said_here.addHandler(logs._KEEPER)  # as configure_logging puts it on the root logger
    try:
        with (
            logs.about_match(kept),
            leases.held(kept, "w/kept"),
            logs.about_match(lost) as said,
            leases.held(lost, "w/lost"),
        ):
            store.renew_lease(kept, "w/kept", lease_seconds=-1)  # as if about to run out
            store.renew_lease(lost, "w/lost", lease_seconds=-1)
            assert store.claim_match("w/thief", match_id=lost) is not None  # taken over
            with caplog.at_level(logging.WARNING, logger="worker.leases"):
                leases.renew()
            m = store.match(kept)
            assert m is not None and m.state == "running" and m.lease_holder == "w/kept"
            assert store.claim_match("w/other", match_id=kept) is None  # renewed: still ours
            # the lost lease is said once, in its own play's context, and not renewed again
            assert [r.getMessage() for r in caplog.records] == [
                f"match {lost}: the lease is no longer ours"
            ]
            assert getattr(caplog.records[0], "match_id", None) == lost
            assert [line["message"] for line in said.lines] == [caplog.records[0].getMessage()]
            leases.renew()
            assert len(caplog.records) == 1
    finally:
        said_here.removeHandler(logs._KEEPER)
        leases.close()
