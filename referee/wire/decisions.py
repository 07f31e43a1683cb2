"""The decision message: the one message a seat gets per decision (ARCHITECTURE
decision 3), as protobuf (:func:`decision_message`) and written straight to its
wire bytes (:class:`DecisionEncoder`, the referee's hot path)."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from referee.actions import DISCARD_TEXTS
from referee.cards import Card
from referee.engine import Event
from referee.games.gin_hand import PHASE_ARRANGE, PHASE_DISCARD, GinHand
from referee.games.gin_three import GinThreeView
from referee.games.gin_views import HandView, OutcomeView
from referee.games.hollywood_gin import HollywoodGin, HollywoodView
from referee.tables import BoundedCache
from referee.wire.protobytes import (
    SMALL,
    VARINTS,
    card_table,
    compiled_writer,
    delimited,
    packed_field,
    string_field,
    uint_field,
    varint,
)
from referee.wire.views import FIELD_MAPPED_VIEWS, advice_of, view_to_proto
from rummyarena.v1 import bot_pb2, views_pb2


def decision_message(
    decision_id: int,
    view: Any,
    legal: Sequence[str],
    events: Iterable[Event],
    decision_ms: int,
    bank_ms: int,
) -> bot_pb2.RefereeMessage:
    """The one message of a decision (ARCHITECTURE decision 3)."""
    msg = bot_pb2.RefereeMessage()
    d = msg.decision
    d.decision_id = decision_id
    view_to_proto(view, d.view)
    d.legal_actions.extend(legal)
    advice = advice_of(view)
    if advice is not None:
        d.advice = advice
    add = d.events.add
    for e in events:
        if e.seat is None:
            add(text=e.text)
        else:
            add(seat=e.seat, text=e.text)
    d.clock.decision_ms = decision_ms
    d.clock.bank_ms = bank_ms
    return msg


# -- the decision message straight to wire bytes ---------------------------------------------
#
# The hot path of the referee: one message per decision. Instead of filling a
# RefereeMessage field by field and serialising it, the bytes are written
# directly in the canonical protobuf encoding (fields in number order, proto3
# defaults omitted), with the encoded card entries precomputed per field and the
# parts that rarely change (the last hand's showdown, the score columns) cached
# per match: ``DecisionEncoder.decision(...)`` equals
# ``decision_message(...).SerializeToString()`` for every view
# (tests/test_referee_codec.py); views without a hand-written encoder go through
# :func:`view_to_proto`.

_MELD_CARDS = card_table(1)  # Meld.cards
_HAND_CARDS = card_table(5)  # GinHandView.hand
_KNOWN_CARDS = card_table(7)  # GinHandView.opponent_known
_PILE_CARDS = card_table(8)  # GinHandView.discard_pile
_TAKEN_CARD = card_table(10)  # GinHandView.taken_from_discard
_KNOCKER_DEADWOOD = card_table(6)  # GinOutcome.knocker_deadwood
_DEFENDER_DEADWOOD = card_table(9)  # GinOutcome.defender_deadwood
#: Encoded Decision.legal_actions entries by text.
_LEGAL: BoundedCache[str, bytes] = BoundedCache(lambda text: string_field(b"\x1a", text), 20_000)


#: GinHandView fields 1-4 (player, opponent, dealer, phase) by their values.
_HAND_HEADS: dict[tuple[int, int, int, str], bytes] = {}


def _hand_head(player: int, opponent: int, dealer: int, phase_text: str) -> bytes:
    key = (player, opponent, dealer, phase_text)
    head = _HAND_HEADS.get(key)
    if head is None:
        head = _HAND_HEADS[key] = (
            uint_field(b"\x08", player)
            + uint_field(b"\x10", opponent)
            + uint_field(b"\x18", dealer)
            + (string_field(b"\x22", phase_text) if phase_text else b"")
        )
    return head


def _hand_fields(
    player: int,
    opponent: int,
    dealer: int,
    phase_text: str,
    hand: Iterable[int],
    opponent_hand_size: int,
    opponent_known: Iterable[int],
    discard_pile: Iterable[int],
    stock_size: int,
    taken: int | None,
    turns: int,
) -> bytes:
    """A GinHandView message's bytes, field by field (the fields of ``HandView``)."""
    parts = [
        _hand_head(player, opponent, dealer, phase_text),
        *[_HAND_CARDS[c] for c in hand],
        uint_field(b"\x30", opponent_hand_size),
        *[_KNOWN_CARDS[c] for c in opponent_known],
        *[_PILE_CARDS[c] for c in discard_pile],
        uint_field(b"\x48", stock_size),
    ]
    if taken is not None:
        parts.append(_TAKEN_CARD[taken])
    parts.append(uint_field(b"\x58", turns))
    return b"".join(parts)


def _hand_bytes(hand: HandView) -> bytes:
    return _hand_fields(
        hand.player,
        hand.opponent,
        hand.dealer,
        hand.phase,
        hand.hand,
        hand.opponent_hand_size,
        hand.opponent_known,
        hand.discard_pile,
        hand.stock_size,
        hand.taken_from_discard,
        hand.turns,
    )


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
    [string_field(b"\x1a", DISCARD_TEXTS[c]) if c in DISCARD_TEXTS else b"" for c in range(65)]
)
#: Encoded Decision.events entries by event (bounded: cleared when full; not a
#: BoundedCache, because only events with short texts are kept: those recur (a draw,
#: a discard, a column won), while the long ones name a whole hand (a deal, an
#: arrangement) and would only fill the table).
_EVENTS: dict[Event, bytes] = {}
_EVENTS_MAX = 20_000
_EVENT_TEXT_KEPT = 24
#: Encoded Decision.legal_actions blocks of the phases with fixed texts (draw, upcard):
#: a handful of entries (the knocker's arrangements are never kept).
_LEGAL_BLOCKS: dict[tuple[str, ...], bytes] = {}


def _new_event_entry(e: Event) -> bytes:
    """The Decision.events entry of ``e``, made and kept (``_EVENTS``)."""
    said = string_field(b"\x12", e.text) if e.text else b""
    if e.seat is None:
        entry = delimited(b"\x2a", said)
    else:
        entry = delimited(b"\x2a", b"\x08" + varint(e.seat) + said)
    if len(e.text) <= _EVENT_TEXT_KEPT:
        if len(_EVENTS) >= _EVENTS_MAX:
            _EVENTS.clear()
        _EVENTS[e] = entry
    return entry


def _outcome_bytes(outcome: OutcomeView) -> bytes:
    parts = [string_field(b"\x0a", outcome.kind) if outcome.kind else b""]
    if outcome.winner is not None:
        parts.append(b"\x10" + varint(outcome.winner))
    parts.append(uint_field(b"\x18", outcome.points))
    if outcome.knocker is not None:
        parts.append(b"\x20" + varint(outcome.knocker))
    for meld in outcome.knocker_melds:
        parts.append(delimited(b"\x2a", b"".join([_MELD_CARDS[c] for c in meld])))
    parts.extend([_KNOCKER_DEADWOOD[c] for c in outcome.knocker_deadwood])
    for meld in outcome.defender_melds:
        parts.append(delimited(b"\x3a", b"".join([_MELD_CARDS[c] for c in meld])))
    parts.extend([string_field(b"\x42", t) for t in outcome.defender_layoffs])
    parts.extend([_DEFENDER_DEADWOOD[c] for c in outcome.defender_deadwood])
    return b"".join(parts)


#: view dataclass -> (the PlayerView field's tag, its message descriptor), for the
#: views that map by field name (their writers: :func:`compiled_writer`)
_MAPPED_VIEWS: dict[type, tuple[bytes, Any]] = {}


def _mapped_view_bytes(view: Any) -> bytes | None:
    """The PlayerView of a view that maps by field name, in bytes; None for other views
    and for views no writer could be compiled for."""
    found = _MAPPED_VIEWS.get(type(view))
    if found is None:
        return None
    tag, descriptor = found
    write = compiled_writer(type(view), descriptor)
    if write is None:
        return None
    body = write(view)
    return b"" if body is None else delimited(tag, body)


def _register_mapped_views() -> None:
    fields = views_pb2.PlayerView.DESCRIPTOR.fields_by_name
    for view_type, oneof in FIELD_MAPPED_VIEWS.items():
        fd = fields[oneof]
        _MAPPED_VIEWS[view_type] = (varint(fd.number << 3 | 2), fd.message_type)


_register_mapped_views()


class DecisionEncoder:
    """Writes one match's decision messages as bytes, caching what rarely changes."""

    __slots__ = (
        "_bank_ms",
        "_clock",
        "_clock_ms",
        "_columns",
        "_columns_key",
        "_hand_tail",
        "_heads",
        "_outcome",
        "_outcome_key",
        "_pile",
        "_pile_ids",
        "_sheet_len",
    )

    def __init__(self, decision_ms: int) -> None:
        self._clock_ms = uint_field(b"\x08", decision_ms)
        self._bank_ms = -1
        self._clock = b""
        self._outcome_key: OutcomeView | None = None
        self._outcome = b""
        self._columns_key: tuple[Any, ...] | None = None
        self._columns = b""
        self._sheet_len = -1
        # per hand: HollywoodView fields 1-3 by seat, and fields 5-7 (columns, showdown)
        self._heads: list[bytes] = []
        self._hand_tail = b""
        self._pile_ids: list[Card] = []
        self._pile = b""

    def _last_hand(self, tag: bytes, outcome: OutcomeView) -> bytes:
        if outcome is not self._outcome_key and outcome != self._outcome_key:
            self._outcome_key = outcome
            self._outcome = delimited(tag, _outcome_bytes(outcome))
        return self._outcome

    def _hollywood(self, view: HollywoodView) -> bytes:
        parts = [uint_field(b"\x08", view.seat)]
        if view.to_act is not None:
            parts.append(b"\x10" + varint(view.to_act))
        parts.append(uint_field(b"\x18", view.hand_number))
        if view.hand is not None:
            parts.append(delimited(b"\x22", _hand_bytes(view.hand)))
        key = (view.columns, view.column_winners, view.wins)
        if key != self._columns_key:
            self._columns_key = key
            self._columns = self._columns_bytes(view.columns, view.column_winners, view.wins)
        parts.append(self._columns)
        if view.last_hand is not None:
            parts.append(self._last_hand(b"\x3a", view.last_hand))
        return delimited(b"\x0a", b"".join(parts))  # PlayerView.hollywood_gin

    def _gin_three(self, view: GinThreeView) -> bytes:
        parts = [uint_field(b"\x08", view.seat)]
        if view.to_act is not None:
            parts.append(b"\x10" + varint(view.to_act))
        if view.role:
            parts.append(string_field(b"\x1a", view.role))
        r = view.roles
        roles = (
            uint_field(b"\x08", r.box)
            + uint_field(b"\x10", r.captain)
            + uint_field(b"\x18", r.sitter)
        )
        parts.append(delimited(b"\x22", roles))
        if view.scores:
            parts.append(packed_field(b"\x2a", view.scores))
        parts.append(uint_field(b"\x30", view.hand_number))
        if view.hand is not None:
            parts.append(delimited(b"\x3a", _hand_bytes(view.hand)))
        if view.advising is not None:
            parts.append(delimited(b"\x42", _hand_bytes(view.advising)))
        if view.advice is not None:
            parts.append(string_field(b"\x4a", view.advice))
        if view.last_hand is not None:
            parts.append(self._last_hand(b"\x52", view.last_hand))
        return delimited(b"\x12", b"".join(parts))  # PlayerView.gin_three

    def _columns_bytes(
        self,
        columns: Sequence[Sequence[int]],
        winners: Sequence[int | None],
        wins: Sequence[int],
    ) -> bytes:
        cols = []
        for points, winner in zip(columns, winners, strict=True):
            col = packed_field(b"\x0a", points) if points else b""
            if winner is not None:
                col += b"\x10" + varint(winner)
            cols.append(delimited(b"\x2a", col))
        if wins:
            cols.append(packed_field(b"\x32", wins))
        return b"".join(cols)

    def decision_from_state(
        self, state: Any, seat: int, decision_id: int, seen: int, bank_ms: int
    ) -> tuple[bytes, Sequence[str], int] | None:
        """The whole RefereeMessage of ``seat``'s decision written in one pass from the
        state, for the games this encoder has a state writer for (Hollywood Gin; the
        referee's hot path), with the legal action texts and how many events the seat
        has now been sent (events from index ``seen`` on). Equal to :meth:`decision` of
        the seat's view and events (tests/test_referee_codec.py); None for the other
        games (the caller goes through the view), or when ``seat`` is not to act.

        One function on purpose: the referee runs it between gRPC's work on the same
        core, where every call and every object it touches costs a cache miss, so the
        GinHandView (``referee/games/gin_views.py`` says what each field holds) is
        written by table look-ups in place: the hand's cards, the opponent's known
        cards and the discards are four look-ups each (``_SuitEntries``), the discard
        pile is the last one written or extended by its new top card, and what changes
        only when a hand ends is kept per hand."""
        if type(state) is not HollywoodGin or state.over:
            return None
        hand: GinHand = state.hand
        if hand.turn != seat:
            return None
        texts = hand.legal_texts
        if texts is None:
            texts = hand.texts()
        played = len(state.sheet)
        if played != self._sheet_len:
            self._new_hand(state, played)
        V = VARINTS
        # GinHandView: fields 1-4, the hand, the opponent's hand size and known cards
        dealer = hand.dealer
        opponent = dealer if seat == hand.non_dealer else hand.non_dealer
        phase = hand.phase
        key = (seat, opponent, dealer, phase._value_)  # not .value: a property
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
            block.append(b"\x30" + V[size])
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
            block.append(b"\x48" + V[stock])
        taken = hand.taken
        if taken >= 0:
            block.append(_TAKEN_CARD[taken])
        turns = hand.turns
        if turns:
            block.append(b"\x58" + (V[turns] if turns < SMALL else varint(turns)))
        hand_bytes = b"".join(block)
        # HollywoodView: fields 1-3, the hand (4), then the columns and the showdown
        n = len(hand_bytes)
        hollywood = b"".join(
            (
                self._heads[seat],
                b"\x22",
                V[n] if n < SMALL else varint(n),
                hand_bytes,
                self._hand_tail,
            )
        )
        n = len(hollywood)
        view = b"\x0a" + (V[n] if n < SMALL else varint(n)) + hollywood
        n = len(view)
        parts = [
            uint_field(b"\x08", decision_id),
            b"\x12",
            V[n] if n < SMALL else varint(n),
            view,
        ]
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
            for text in texts[mask.bit_count() :]:  # the knocks
                parts.append(_LEGAL[text])
        else:
            legal = _LEGAL_BLOCKS.get(texts)
            if legal is None:
                legal = b"".join([_LEGAL[t] for t in texts])
                if phase is not PHASE_ARRANGE:  # never keep the knocker's arrangements
                    _LEGAL_BLOCKS[texts] = legal
            parts.append(legal)
        events = state.events
        count = len(events)
        if seen < count:
            entries = _EVENTS
            for e in events[seen:]:
                if e.visible_to is None or seat in e.visible_to:
                    parts.append(entries.get(e) or _new_event_entry(e))
        if bank_ms != self._bank_ms:  # the bank changes only when a seat runs over
            self._bank_ms = bank_ms
            self._clock = delimited(b"\x32", self._clock_ms + uint_field(b"\x10", bank_ms))
        parts.append(self._clock)
        body = b"".join(parts)
        n = len(body)
        return b"\x12" + (V[n] if n < SMALL else varint(n)) + body, texts, count

    def _new_hand(self, state: HollywoodGin, played: int) -> None:
        """What a Hollywood Gin decision holds that changes only when a hand ends: the
        HollywoodView fields before the hand (seat, to act, hand number) by seat, and
        those after it (the columns, the last hand's showdown)."""
        self._sheet_len = played
        number = b"\x18" + varint(played + 1)
        self._heads = [uint_field(b"\x08", s) + b"\x10" + VARINTS[s] + number for s in (0, 1)]
        sheet = state.score_sheet
        tail = self._columns_bytes(sheet.columns, sheet.column_winners, sheet.wins)
        last = state.last_hand
        if last is not None:
            tail += self._last_hand(b"\x3a", last)
        self._hand_tail = tail

    def view_bytes(self, view: Any) -> bytes:
        """The PlayerView message of ``view`` as bytes."""
        kind = type(view)
        if kind is HollywoodView:
            return self._hollywood(view)
        if kind is GinThreeView:
            return self._gin_three(view)
        mapped = _mapped_view_bytes(view)
        if mapped is not None:
            return mapped
        data: bytes = view_to_proto(view).SerializeToString()
        return data

    def decision(
        self,
        decision_id: int,
        view: Any,
        legal: Sequence[str],
        events: Iterable[Event],
        bank_ms: int,
    ) -> bytes:
        """The RefereeMessage of one decision, serialised."""
        return self.decision_with(
            decision_id, self.view_bytes(view), legal, advice_of(view), events, bank_ms
        )

    def decision_with(
        self,
        decision_id: int,
        view_bytes: bytes,
        legal: Sequence[str],
        advice: str | None,
        events: Iterable[Event],
        bank_ms: int,
    ) -> bytes:
        """The RefereeMessage of one decision, serialised, around a PlayerView already
        in bytes (:meth:`view_bytes`)."""
        parts = [uint_field(b"\x08", decision_id), delimited(b"\x12", view_bytes)]
        parts += [_LEGAL[text] for text in legal]
        if advice is not None:
            parts.append(string_field(b"\x22", advice))
        known = _EVENTS
        parts += [known.get(e) or _new_event_entry(e) for e in events]
        if bank_ms != self._bank_ms:  # the bank changes only when a seat runs over
            self._bank_ms = bank_ms
            self._clock = delimited(b"\x32", self._clock_ms + uint_field(b"\x10", bank_ms))
        parts.append(self._clock)
        return delimited(b"\x12", b"".join(parts))  # RefereeMessage.decision
