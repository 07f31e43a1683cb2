"""Stacked Gin deals for rule tests: name the hands, the upcard and the top of the stock."""

from __future__ import annotations

from referee.cards import STANDARD_CARDS, Card, parse_cards


def gin_deck(non_dealer: str, dealer: str, upcard: str, stock_top: str = "") -> list[Card]:
    """A 52-card deck, top first, that deals these hands (G2: one card at a time,
    non-dealer first), turns ``upcard`` and has ``stock_top`` on top of the stock;
    the other cards follow in canonical order."""
    nd, dl = parse_cards(non_dealer), parse_cards(dealer)
    assert len(nd) == len(dl) == 10, "each Gin hand has ten cards"
    up = parse_cards(upcard)
    top = parse_cards(stock_top)
    deck: list[Card] = []
    for a, b in zip(nd, dl, strict=True):
        deck += [a, b]
    deck += up + top
    named = set(deck)
    assert len(named) == len(deck), "a card is named twice"
    deck += [c for c in STANDARD_CARDS if c not in named]
    return deck
