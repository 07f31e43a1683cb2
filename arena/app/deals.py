"""A match's deal as anyone may check it (docs/protocol.md, "Checking a deal"): the
commitment to its seed, published from the moment the match is made; its seed and salt,
revealed only once the match has ended and, for a duplicate deal, every match of its set
with it (:func:`sealed`, the one place that rule is decided); and the check that the
revealed seed is the committed one and the one its record was dealt from.

The seed is secret while the match, or another match of its deal, is still to be played:
it determines every hand and the stock order, and a bot may read the API while it plays
(docs/architecture.md, decisions 2 and 13)."""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum
from typing import Any

from arena.app import replay
from arena.app.actors import Action, Actor, require
from arena.app.errors import NotFound
from referee.record import MatchRecord, Verdict, verify
from worker.store import Match, Store, seed_commitment

#: How the commitment is computed, as the page, the API and ``arena match show`` say it.
COMMITMENT = "sha256(seed as 8 bytes big-endian || seed_salt)"


class Sealed(Enum):
    """Why a match's seed and salt are not shown yet."""

    #: The match has not been played to its end (queued, running; or failed or cancelled,
    #: and a failed match may be queued again by ``arena tournament retry``).
    UNFINISHED = "unfinished"
    #: The match has ended, but another match of its duplicate deal, dealt from the same
    #: seed, is still queued or running.
    SET_PLAYING = "set playing"


def sealed(store: Store, match: Match) -> Sealed | None:
    """Why ``match``'s seed and salt are still secret, or None once they may be shown:
    the match is done and, for a duplicate deal, no match of its set is queued or
    running (the rule that holds back its record, :func:`~arena.app.replay.held_back`)."""
    if match.state != "done":
        return Sealed.UNFINISHED
    if replay.held_back(store, match):
        return Sealed.SET_PLAYING
    return None


@dataclass(frozen=True, slots=True)
class Deal:
    """A match's commitment, and its seed and salt once revealed (None before)."""

    match: int
    state: str
    commitment: bytes
    seed: int | None
    salt: bytes | None
    sealed: Sealed | None

    @property
    def why_sealed(self) -> str | None:
        """Why the seed and salt are not shown yet, in one sentence (None once they are)."""
        if self.sealed is Sealed.UNFINISHED:
            again = " (a failed match may be played again)" if self.state == "failed" else ""
            return (
                f"match {self.match} is {self.state}{again}: its seed and salt are revealed "
                "once it has been played to its end"
            )
        if self.sealed is Sealed.SET_PLAYING:
            return (
                f"match {self.match} shares its deal with matches of its duplicate set that "
                "are still queued or running: its seed and salt are revealed once every "
                "match of the set has ended"
            )
        return None

    def as_json(self) -> dict[str, Any]:
        """The deal's fields of a match's JSON (``arena match show --json``, the API)."""
        return {
            "seed": self.seed,
            "seed_salt": None if self.salt is None else self.salt.hex(),
            "seed_commitment": self.commitment.hex(),
            "commitment": COMMITMENT,
            "sealed": None
            if self.sealed is None
            else {"reason": self.sealed.value, "message": self.why_sealed},
        }

    @classmethod
    def from_json(cls, shown: dict[str, Any]) -> Deal:
        """The deal of a match's JSON as :func:`arena.app.matches.show` gives it (a
        platform's answer: what a remote ``arena verify`` checks)."""
        salt, sealed = shown.get("seed_salt"), shown.get("sealed")
        return cls(
            match=int(shown["match"]),
            state=str(shown["state"]),
            commitment=bytes.fromhex(shown["seed_commitment"]),
            seed=None if shown.get("seed") is None else int(shown["seed"]),
            salt=None if salt is None else bytes.fromhex(salt),
            sealed=None if sealed is None else Sealed(sealed["reason"]),
        )


def of(store: Store, match: Match) -> Deal:
    """``match``'s deal, its seed and salt left out while :func:`sealed`."""
    why = sealed(store, match)
    return Deal(
        match.id,
        match.state,
        match.seed_commitment,
        None if why else match.seed,
        None if why else match.seed_salt,
        why,
    )


def opened(store: Store, actor: Actor, match_id: int) -> Deal:
    """The deal of match ``match_id`` (:class:`NotFound` for none): anyone may read it."""
    require(actor, Action.READ, what=f"read match {match_id}")
    match = store.match(match_id)
    if match is None:
        raise NotFound(f"no match {match_id} in the store")
    return of(store, match)


@dataclass(frozen=True, slots=True)
class Check:
    """What ``arena verify MATCH`` found: the commitment recomputed from the revealed seed
    and salt, the seed the record was dealt from, and the engine's re-run of the record."""

    deal: Deal
    computed: bytes
    record_seed: int
    engine: Verdict

    @property
    def commitment_ok(self) -> bool:
        """The seed and salt open the published commitment, and the record was dealt
        from that seed."""
        return self.computed == self.deal.commitment and self.record_seed == self.deal.seed

    @property
    def ok(self) -> bool:
        return self.commitment_ok and self.engine.ok

    @property
    def commitment_message(self) -> str:
        if self.computed != self.deal.commitment:
            return (
                f"the seed and salt do not match the commitment: {COMMITMENT} is "
                f"{self.computed.hex()}, the published commitment {self.deal.commitment.hex()}"
            )
        if self.record_seed != self.deal.seed:
            return (
                f"the record was dealt from seed {self.record_seed}, not from the committed "
                f"seed {self.deal.seed}"
            )
        return (
            f"the seed and salt match the commitment ({COMMITMENT} = "
            f"{self.computed.hex()}) and the record was dealt from that seed"
        )


def check(deal: Deal, record: MatchRecord) -> Check:
    """Check a revealed ``deal`` against its commitment and ``record``, and re-run the
    record on the engine (:func:`referee.record.verify`)."""
    if deal.seed is None or deal.salt is None:
        raise ValueError(f"match {deal.match}'s seed is not revealed: {deal.why_sealed}")
    # a seed outside 0..2**64-1 has no 8-byte form, so it opens no commitment
    computed = seed_commitment(deal.seed, deal.salt) if 0 <= deal.seed < 1 << 64 else b""
    return Check(deal, computed, record.seed, verify(record))
