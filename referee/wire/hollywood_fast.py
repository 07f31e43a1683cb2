"""Hollywood Gin's decision written in one pass from the engine's state, without
making the view: the referee's hot path, and the one message with a second writer.

Every view is written by the writer compiled for its dataclass
(:func:`referee.wire.protobytes.compiled_writer`), Hollywood Gin's too. Making a
Gin view per decision and writing it that way costs the referee about a tenth of
its decisions per second, which takes it below its goal (0.70 of bare gRPC;
``docs/performance.md``, "One writer for every view"). So for Hollywood Gin the
referee writes the GinHandView from the hand's bit masks with table look-ups, and
takes the fields that change only between hands (the score columns, the last
showdown) from the compiled writer once per hand. ``tests/test_referee_codec.py``
checks every decision of whole matches byte for byte against the compiled writer
and the protobuf library. The tags come from the .proto's descriptors.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from typing import Any

from referee.actions import DISCARD_TEXTS
from referee.cards import Card
from referee.games.gin_hand import PHASE_ARRANGE, PHASE_DISCARD, GinHand
from referee.games.hollywood_gin import HollywoodGin, HollywoodView
from referee.wire.entries import event_entry, legal_entry
from referee.wire.protobytes import (
    SMALL,
    VARINTS,
    card_entries,
    compiled_writer,
    field_tag,
    string_field,
    uint_field,
    varint,
)
from rummyarena.v1 import views_pb2


def _tags(descriptor: Any) -> dict[str, bytes]:
    """The tag of every field of a message."""
    return {fd.name: field_tag(fd) for fd in descriptor.fields}


_HAND = _tags(views_pb2.GinHandView.DESCRIPTOR)
_VIEW = _tags(views_pb2.HollywoodGinView.DESCRIPTOR)
_PLAYER_VIEW = _tags(views_pb2.PlayerView.DESCRIPTOR)["hollywood_gin"]
_HAND_CARDS = card_entries(_HAND["hand"])
_KNOWN_CARDS = card_entries(_HAND["opponent_known"])
_PILE_CARDS = card_entries(_HAND["discard_pile"])
_TAKEN_CARD = card_entries(_HAND["taken_from_discard"])
_SIZE, _STOCK, _TURNS = _HAND["opponent_hand_size"], _HAND["stock_size"], _HAND["turns"]
_VIEW_HAND = _VIEW["hand"]
_WRITE_VIEW = compiled_writer(HollywoodView, views_pb2.HollywoodGinView.DESCRIPTOR)


#: GinHandView fields player, opponent, dealer and phase, by their values.
_HAND_HEADS: dict[tuple[int, int, int, str], bytes] = {}


def _hand_head(player: int, opponent: int, dealer: int, phase_text: str) -> bytes:
    key = (player, opponent, dealer, phase_text)
    head = _HAND_HEADS.get(key)
    if head is None:
        head = _HAND_HEADS[key] = (
            uint_field(_HAND["player"], player)
            + uint_field(_HAND["opponent"], opponent)
            + uint_field(_HAND["dealer"], dealer)
            + (string_field(_HAND["phase"], phase_text) if phase_text else b"")
        )
    return head


class _SuitEntries(dict[int, bytes]):
    """The encoded entries of the cards of one suit, joined, for every 13-bit rank mask
    of that suit (card id ``16 * suit + rank``), made on first use: a hand's cards are
    four look-ups, in card id order, instead of one entry per card."""

    __slots__ = ("base", "entries")

    def __init__(self, entries: Sequence[bytes], suit: int) -> None:
        super().__init__()
        self.entries = entries
        self.base = 16 * suit

    def __missing__(self, ranks: int) -> bytes:
        base, entries = self.base, self.entries
        value = self[ranks] = b"".join([entries[base + r] for r in range(13) if ranks >> r & 1])
        return value


def _suit_tables(entries: Sequence[bytes]) -> tuple[_SuitEntries, ...]:
    return tuple(_SuitEntries(entries, suit) for suit in range(4))


_HAND_SUITS = _suit_tables(_HAND_CARDS)
_KNOWN_SUITS = _suit_tables(_KNOWN_CARDS)
#: Decision.legal_actions entries of the discards (``discard C``), by suit and ranks.
_DISCARD_SUITS = _suit_tables(
    [legal_entry(DISCARD_TEXTS[c]) if c in DISCARD_TEXTS else b"" for c in range(65)]
)
#: Encoded Decision.legal_actions blocks of the phases with fixed texts (draw, upcard):
#: a handful of entries (the knocker's arrangements are never kept).
_LEGAL_BLOCKS: dict[tuple[str, ...], bytes] = {}


class HollywoodWriter:
    """One match's Hollywood Gin decisions, written from the state; keeps what changes
    only between hands and the last discard pile it wrote."""

    __slots__ = ("_heads", "_pile", "_pile_ids", "_sheet_len", "_tail")

    def __init__(self) -> None:
        self._sheet_len = -1
        self._heads: list[bytes] = []  # HollywoodGinView seat, to_act, hand_number by seat
        self._tail = b""  # HollywoodGinView columns, wins, last_hand
        self._pile_ids: list[Card] = []
        self._pile = b""

    def decision(
        self, state: HollywoodGin, seat: int, decision_id: int, seen: int, clock: bytes
    ) -> tuple[bytes, Sequence[str], int]:
        """The RefereeMessage of ``seat``'s decision (``seat`` is to act), its legal
        action texts, and how many events the seat has now been sent (those from index
        ``seen`` on are in the message)."""
        hand: GinHand = state.hand
        texts = hand.legal_texts
        if texts is None:
            texts = hand.texts()
        played = len(state.sheet)
        if played != self._sheet_len:
            self._new_hand(state, played)
        V = VARINTS
        dealer = hand.dealer
        opponent = dealer if seat == hand.non_dealer else hand.non_dealer
        phase = hand.phase
        key = (seat, opponent, dealer, phase._value_)  # the text (.value is a property)
        hands = hand.hands
        mask = hands[seat]
        h = _HAND_SUITS
        block = [
            _HAND_HEADS.get(key) or _hand_head(*key),
            h[0][mask & 0x1FFF],
            h[1][mask >> 16 & 0x1FFF],
            h[2][mask >> 32 & 0x1FFF],
            h[3][mask >> 48 & 0x1FFF],
        ]
        size = hands[opponent].bit_count()
        if size:
            block.append(_SIZE + V[size])
        known = hand.known[opponent]
        if known:
            k = _KNOWN_SUITS
            block += (
                k[0][known & 0x1FFF],
                k[1][known >> 16 & 0x1FFF],
                k[2][known >> 32 & 0x1FFF],
                k[3][known >> 48 & 0x1FFF],
            )
        # the discard pile changes at its top, a card at a time (a discard puts one
        # there, a draw takes it): the last one written, with its top card put or taken
        pile = hand.discard_pile
        ids = self._pile_ids
        n = len(pile)
        if n != len(ids) or pile != ids:
            if n == len(ids) + 1 and pile[:-1] == ids:
                self._pile += _PILE_CARDS[pile[-1]]
            elif n == len(ids) - 1 and pile == ids[:-1]:
                self._pile = self._pile[: -len(_PILE_CARDS[ids[-1]])]
            else:
                self._pile = b"".join([_PILE_CARDS[c] for c in pile])
            self._pile_ids = pile.copy()
        block.append(self._pile)
        stock = len(hand.deck) - hand.stock_pos
        if stock:
            block.append(_STOCK + V[stock])
        taken = hand.taken
        if taken >= 0:
            block.append(_TAKEN_CARD[taken])
        turns = hand.turns
        if turns:
            block.append(_TURNS + (V[turns] if turns < SMALL else varint(turns)))
        hand_bytes = b"".join(block)
        n = len(hand_bytes)
        hollywood = b"".join(
            (
                self._heads[seat],
                _VIEW_HAND,
                V[n] if n < SMALL else varint(n),
                hand_bytes,
                self._tail,
            )
        )
        n = len(hollywood)
        view = _PLAYER_VIEW + (V[n] if n < SMALL else varint(n)) + hollywood
        n = len(view)
        parts = [uint_field(b"\x08", decision_id), b"\x12", V[n] if n < SMALL else varint(n), view]
        # Decision.legal_actions: the discards by suit, then the knocks (the order of
        # GinHand._discard_actions); the draw and upcard lists are a handful, kept
        if phase is PHASE_DISCARD:
            if taken >= 0:
                mask &= ~(1 << taken)
            d = _DISCARD_SUITS
            parts += (
                d[0][mask & 0x1FFF],
                d[1][mask >> 16 & 0x1FFF],
                d[2][mask >> 32 & 0x1FFF],
                d[3][mask >> 48 & 0x1FFF],
            )
            parts += map(legal_entry, texts[mask.bit_count() :])  # the knocks
        else:
            legal = _LEGAL_BLOCKS.get(texts)
            if legal is None:
                legal = b"".join(map(legal_entry, texts))
                if phase is not PHASE_ARRANGE:  # never keep the knocker's arrangements
                    _LEGAL_BLOCKS[texts] = legal
            parts.append(legal)
        events = state.events
        count = len(events)
        for e in events[seen:]:
            if e.visible_to is None or seat in e.visible_to:
                parts.append(event_entry(e))
        parts.append(clock)
        body = b"".join(parts)
        n = len(body)
        return b"\x12" + (V[n] if n < SMALL else varint(n)) + body, texts, count

    def _new_hand(self, state: HollywoodGin, played: int) -> None:
        """What changes only when a hand ends: the view's fields before the hand (seat,
        to act, hand number) by seat, and those after it (the columns, the hands won,
        the last showdown), the latter written by the compiled writer."""
        self._sheet_len = played
        number = _VIEW["hand_number"] + varint(played + 1)
        self._heads = [
            uint_field(_VIEW["seat"], s) + _VIEW["to_act"] + VARINTS[s] + number for s in (0, 1)
        ]
        assert _WRITE_VIEW is not None
        tail = dataclasses.replace(state.view(0), seat=0, to_act=None, hand_number=0, hand=None)
        self._tail = _WRITE_VIEW(tail) or b""
