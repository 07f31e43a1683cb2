"""Action texts from a seat are untrusted (C2): whatever a seat writes, reading it
either gives an action, which the referee's check then accepts or rejects, or fails
with an EngineError (an unreadable action is the seat's fault, never the referee's).

For every registered game, states are taken at several points of random playouts
(as in the conformance suite), and each gets random text and mutations of legal
action texts: cards duplicated, tokens dropped, inserted or swapped, case changed,
rank and suit letters changed, junk appended, texts cut short or made huge.
"""

from __future__ import annotations

import functools
import random
import re

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from referee.cards import CARD_BY_ID, RANKS, SUITS
from referee.engine import Action, EngineError, GameState
from referee.games import game_names, get_game
from tests.test_conformance import combos, random_playout

#: The decisions of a playout at which a state is kept: the first few (upcards,
#: declarations, reveals) and then ever more sparsely, plus the finished match.
SNAPSHOT_AT = frozenset({0, 1, 2, 3, 4, 6, 9, 14, 22, 35, 55, 90, 150, 250, 400})
PROPERTY_SETTINGS = settings(
    max_examples=300,
    deadline=None,
    derandomize=True,
    database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)

CARD_WORDS = [str(c) for c in CARD_BY_ID.values()]
VERBS = ["pass", "draw", "stock", "discard", "knock", "arrange", "advise", "no", "advice"]
VERBS += ["meld", "layoff", "decline", "rummy", "declare", "reveal", "drop", "tunk", "out"]
VERBS += ["spread", "lay", "off", "on"]
NUMBERS = ["0", "1", "2", "3", "7", "49", "50", "-1", "+2", "1.0", "1e3", "0x10", "1_0"]
ODD_WORDS = [
    *["1S", "AX", "11H", "JJ", "TDD", "K", "10", "JK=", "JK=JK", "=", "|", ",", "-", "--"],
    *["||", ",,", ":", ";", "'", '"'],
    "\u00b2",  # superscript two: a digit to str.isdigit, not to int()
    "\u0661",  # arabic-indic one
    "A\u017f",  # long s, upper-cases to S
    "\uff21\uff33",  # full-width AS
    "\u212a",  # kelvin sign, lower-cases to k
    "\u2169",  # roman numeral ten
    "\x00",
    "\x1f",  # a unit separator: whitespace to str.split
    "\u200b",  # zero-width space
    "\u00a0",  # no-break space
    "\ud7ff",  # the last code point below the surrogates
    "\U0001f0a1",  # the playing card ace of spades
]
#: Texts in each game's grammar that random playouts seldom offer (docs/actions.md and
#: docs/games/), so that mutations also start from arrangements, melds and lay-offs.
EXAMPLE_TEXTS = {
    "hollywood-gin": [
        "arrange 5C 5D 5H | AS 2S 3S",
        "arrange 9C TC JC QC",
        "arrange -",
        "knock 7H",
    ],
    "gin-three": ["advise arrange 5C 5D 5H | AS 2S 3S", "advise knock 7H", "no advice"],
    "rummy-500": [
        "meld 5H 6H JK=7H",
        "meld 7C 7D 7S",
        "lay off 8H on 2",
        "lay off JK=8H on 1",
        "draw discard 3 KH",
        "rummy 2 5C",
        "no rummy",
        "decline",
    ],
    "flip-flop": [
        "reveal AH 2D, draw stock",
        "reveal 3C, drop",
        "spread 3H 4H 5H 6H",
        "lay off 6H on 2",
        "declare 49",
        "tunk out",
    ],
}
WORDS = [*CARD_WORDS, *(w.lower() for w in CARD_WORDS), *VERBS, *NUMBERS, *ODD_WORDS]
SEPARATORS = [" ", " ", " ", "  ", "\t", "\n", " | ", "|", ", ", ",", "=", ""]


@functools.cache
def states_of(game: str) -> tuple[list[GameState], list[str]]:
    """States of ``game`` at several points of seeded random playouts (one per seat
    count and variant), and every legal action text seen in them."""
    spec = get_game(game)
    states: list[GameState] = []
    texts: set[str] = set()
    for i, (seats, options) in enumerate(combos(spec)):
        state = spec.new_match(4242 + i, seats=seats, options=options)
        for step, (now, _) in enumerate(random_playout(state, random.Random(i))):
            if step in SNAPSHOT_AT:
                states.append(now.clone())
                texts.update(str(a) for a in now.legal_actions())
        states.append(state)  # the finished match: nothing is legal
    return states, sorted(texts)


def check_text(state: GameState, text: str) -> None:
    """The referee's contract for one untrusted text (C2): only EngineError escapes;
    a text that reads as an action is checked against the legal list like any other,
    and the action's own text reads back to it."""
    try:
        action = state.parse_action(text)
    except EngineError:
        with pytest.raises(EngineError):
            state.apply_checked(text)  # raises before applying anything
        return
    assert isinstance(action, Action)
    assert state.parse_action(str(action)) == action
    if action not in state.legal_actions():
        with pytest.raises(EngineError):
            state.apply_checked(text)


def any_state(game: str, data: st.DataObject) -> GameState:
    """One of the kept states of ``game``, drawn by index so that failures print short."""
    states, _ = states_of(game)
    return states[data.draw(st.integers(0, len(states) - 1), label="state number")]


word_soup = st.lists(
    st.tuples(st.sampled_from(WORDS), st.sampled_from(SEPARATORS)), max_size=12
).map(lambda pairs: "".join(w + s for w, s in pairs))
huge = st.builds(
    lambda piece, times: piece * times,
    st.sampled_from(["9", "AS ", "AS 2S 3S | ", "reveal AS, ", "advise ", "JK=", "\x00", " "]),
    st.integers(1000, 20_000),
)
random_text = st.one_of(
    st.text(),  # any code points but surrogates, control characters included
    st.text(alphabet=st.characters(codec="ascii")),
    st.text(alphabet=st.sampled_from(RANKS + SUITS + "10 |,=-JKjk\t\n")),
    word_soup,
    huge,
)


@pytest.mark.parametrize("game", game_names())
@PROPERTY_SETTINGS
@given(data=st.data())
def test_c2_any_text_is_an_action_or_an_engine_error(game: str, data: st.DataObject) -> None:
    state = any_state(game, data)
    text = data.draw(random_text, label="text")
    check_text(state, text)


#: What a mutation may put in place of a token or next to it, by kind of token; the
#: odd ones first, since Hypothesis draws the first entries of a list the most.
REPLACEMENTS = {
    "card": ["JK", "jk=jk", "JK=5H", "10h", "1S", *CARD_WORDS, *(w.lower() for w in CARD_WORDS)],
    "number": ["\u00b2", "\u0661", "\uff11", "9" * 5000, "9" * 40, *NUMBERS],
    "word": VERBS,
    "odd": ODD_WORDS,
}
CARD_TOKEN = re.compile(r"(JK=)?(10|[2-9TJQKA])[CDHS]|JK", re.IGNORECASE)
MUTATIONS = [
    "duplicate",
    "drop",
    "insert",
    "swap",
    "replace",
    "case",
    "letter",
    "junk",
    "truncate",
    "repeat",
]


def _respell(text: str, data: st.DataObject) -> str:
    """The text with any of its cards and numbers written as others, or as bad ones."""
    tokens = text.split(" ")
    for i, token in enumerate(tokens):
        pool = "card" if CARD_TOKEN.fullmatch(token) else "number" if token.isdigit() else ""
        if pool and data.draw(st.booleans(), label=f"respell {token}"):
            tokens[i] = data.draw(st.sampled_from(REPLACEMENTS[pool]), label="as")
    return " ".join(tokens)


def _mutate(text: str, data: st.DataObject) -> str:
    """One mutation of an action text, chosen by ``data``: token edits on the text
    split at single spaces (so `` | `` and ``,`` stay tokens), or character edits."""
    tokens = text.split(" ")
    kind = data.draw(st.sampled_from(MUTATIONS), label="mutation")
    at = data.draw(st.integers(0, len(tokens) - 1), label="at token")
    if kind == "duplicate":
        tokens.insert(at, tokens[at])
    elif kind == "drop":
        del tokens[at]
    elif kind in ("insert", "replace"):
        pool = data.draw(st.sampled_from(sorted(REPLACEMENTS)), label="kind of token")
        word = data.draw(st.sampled_from(REPLACEMENTS[pool]), label="token")
        if kind == "insert":
            tokens.insert(at, word)
        else:
            tokens[at] = word
    elif kind == "swap":
        other = data.draw(st.integers(0, len(tokens) - 1), label="other token")
        tokens[at], tokens[other] = tokens[other], tokens[at]
    elif kind == "case":
        flips = data.draw(st.lists(st.booleans(), min_size=len(tokens[at])), label="upper")
        tokens[at] = "".join(
            c.upper() if up else c.lower() for c, up in zip(tokens[at], flips, strict=False)
        )
    elif kind == "letter" and tokens[at]:
        i = data.draw(st.integers(0, len(tokens[at]) - 1), label="letter")
        new = data.draw(st.sampled_from(RANKS + SUITS + "01BXZjk=|,\u017f\u0661"), label="to")
        tokens[at] = tokens[at][:i] + new + tokens[at][i + 1 :]
    elif kind == "junk":
        return text + data.draw(st.one_of(word_soup, st.text(max_size=8)), label="junk")
    elif kind == "truncate":
        return text[: data.draw(st.integers(0, len(text)), label="length")]
    elif kind == "repeat":
        times = data.draw(st.integers(2, 3000), label="times")
        tokens[at] = tokens[at] * times if times < 50 else " ".join([tokens[at]] * times)
    return " ".join(tokens)


@pytest.mark.parametrize("game", game_names())
@PROPERTY_SETTINGS
@given(data=st.data())
def test_c2_mutated_legal_texts_are_actions_or_engine_errors(
    game: str, data: st.DataObject
) -> None:
    state = any_state(game, data)
    _, seen = states_of(game)
    bases = [st.sampled_from(seen)]
    if game in EXAMPLE_TEXTS:
        bases.append(st.sampled_from(EXAMPLE_TEXTS[game]))
    legal = [str(a) for a in state.legal_actions()]
    if legal:
        bases.append(st.sampled_from(legal))
    text = data.draw(st.one_of(bases), label="legal text")
    if data.draw(st.booleans(), label="respell"):
        text = _respell(text, data)
    for _ in range(data.draw(st.integers(0, 2), label="mutations")):
        text = _mutate(text, data)
    check_text(state, text)


@pytest.mark.parametrize(
    ("game", "text", "named"),
    [
        pytest.param("hollywood-gin", "arrange JC JC 9C", "JC is named twice", id="gin-dup"),
        pytest.param(
            "hollywood-gin", "arrange 9C TC JC | JC QC KC", "JC is named twice", id="gin-dup-melds"
        ),
        pytest.param("hollywood-gin", "arrange JK 2S 3S", "without jokers", id="gin-joker"),
        pytest.param("hollywood-gin", "arrange AS 2S 3S |", "empty meld", id="gin-empty-meld"),
        pytest.param("gin-three", "advise arrange JC JC 9C", "JC is named twice", id="advise-dup"),
        pytest.param("rummy-500", "lay off AS on \u00b2", "printable ASCII", id="r500-sup2"),
        pytest.param("rummy-500", "lay off AS on 999", "from 1 to 36", id="r500-meld-999"),
        pytest.param("rummy-500", "lay off AS on 0", "meld number", id="r500-meld-0"),
        pytest.param("rummy-500", "layoff AS on 1", "lay off C on N", id="r500-layoff"),
        pytest.param(
            "rummy-500", "draw discard " + "9" * 5000 + " AS", "too long", id="r500-huge-depth"
        ),
        pytest.param("rummy-500", "rummy 99999 AS", "from 1 to 108", id="r500-rummy-99999"),
        pytest.param("rummy-500", "draw\x1fstock", "'\\x1f'", id="r500-unit-separator"),
        pytest.param("flip-flop", "lay off AS on \u00b2", "printable ASCII", id="ff-sup2"),
        pytest.param("flip-flop", "lay off AS on 100", "spread number", id="ff-spread-100"),
        pytest.param(
            "flip-flop", "reveal AS, " * 90 + "draw stock", "a reveal goes with", id="ff-nested"
        ),
        pytest.param("flip-flop", "reveal AS, " * 2000 + "draw stock", "too long", id="ff-huge"),
        pytest.param("hollywood-gin", "discard A\u017f", "position 9", id="gin-long-s"),
        pytest.param("hollywood-gin", " \t\n", "empty action text", id="gin-blank"),
    ],
)
def test_c2_bad_texts_are_engine_errors_naming_the_fault(game: str, text: str, named: str) -> None:
    """Texts that once escaped the parsers as other exceptions (a repeated card, a joker
    in a Gin meld, digits that are no ASCII digits, a number too long for int(), nested
    reveals), or were read as actions through look-alike characters."""
    state = get_game(game).new_match(7)
    with pytest.raises(EngineError, match=re.escape(named)):
        state.parse_action(text)


@pytest.mark.parametrize(
    ("game", "text", "canonical"),
    [
        ("hollywood-gin", "  Draw\tSTOCK\n", "draw stock"),
        ("hollywood-gin", "arrange as 2s 3s|5h 5c 5d", "arrange 5C 5D 5H | AS 2S 3S"),
        ("gin-three", "advise discard 10d", "advise discard TD"),
        ("rummy-500", "draw discard 003 kh", "draw discard 3 KH"),
        ("rummy-500", "lay off jk=8h on 01", "lay off JK=8H on 1"),
        ("flip-flop", "reveal ah 2d ,  DRAW  stock", "reveal AH 2D, draw stock"),
        ("flip-flop", "lay off 6h on 02", "lay off 6H on 2"),
    ],
)
def test_c2_lenient_spellings_still_read(game: str, text: str, canonical: str) -> None:
    """C2's leniency on input (case, ``10``, spacing, leading zeros) is kept."""
    assert str(get_game(game).new_match(7).parse_action(text)) == canonical
