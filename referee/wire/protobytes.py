"""The canonical protobuf encoding written by hand: varints, length-delimited,
string, packed and varint fields, the encoded entry of every card in a string field,
and writers compiled per view dataclass.

Canonical means what the protobuf library's ``SerializeToString`` writes: fields in
number order, proto3 defaults omitted. The decision and answer messages are written
with these (:mod:`referee.wire.decisions`, :mod:`referee.wire.answers`), and
tests/test_referee_codec.py checks them byte for byte against the library.
"""

from __future__ import annotations

import dataclasses
import typing
from collections.abc import Callable, Iterable
from typing import Any

from google.protobuf.descriptor import FieldDescriptor

from referee.cards import Card
from referee.tables import BoundedCache
from referee.wire.values import CARD_TEXT


def _slow_varint(value: int) -> bytes:
    out = bytearray()
    while value > 127:
        out.append((value & 0x7F) | 0x80)
        value >>= 7
    out.append(value)
    return bytes(out)


#: The varints of 0 .. 2**14 - 1 (one and two bytes), looked up instead of computed.
SMALL = 1 << 14
VARINTS = [_slow_varint(i) for i in range(SMALL)]


def varint(value: int) -> bytes:
    """A varint; negative int32/int64 values as their 64-bit two's complement."""
    if 0 <= value < SMALL:
        return VARINTS[value]
    if value < 0:
        value += 1 << 64
    return _slow_varint(value)


def delimited(tag: bytes, payload: bytes) -> bytes:
    """A length-delimited field (a string, a submessage or a packed list)."""
    n = len(payload)
    return tag + (VARINTS[n] if n < SMALL else varint(n)) + payload


def string_field(tag: bytes, text: str) -> bytes:
    """A string field, written even when empty (callers omit an empty one)."""
    return delimited(tag, text.encode())


def packed_field(tag: bytes, values: Iterable[int]) -> bytes:
    """A packed repeated varint field."""
    return delimited(tag, b"".join([varint(v) for v in values]))


_CARD_ENTRIES: dict[bytes, list[bytes]] = {}


def card_entries(tag: bytes) -> list[bytes]:
    """The encoded entry of every card id in the string field of ``tag`` (made once)."""
    entries = _CARD_ENTRIES.get(tag)
    if entries is None:
        entries = _CARD_ENTRIES[tag] = [
            string_field(tag, text) if text else b"" for text in CARD_TEXT
        ]
    return entries


def card_table(field: int) -> list[bytes]:
    """The encoded entry of every card id in string field ``field``."""
    return card_entries(bytes(((field << 3) | 2,)))


def uint_field(tag: bytes, value: int) -> bytes:
    """An implicit-presence varint field (omitted at zero)."""
    if not value:
        return b""
    return tag + (VARINTS[value] if 0 < value < SMALL else varint(value))


def scalar(value: int) -> bytes:
    """A varint value, without a tag."""
    return VARINTS[value] if 0 <= value < SMALL else varint(value)


_HINTS: dict[type, dict[str, Any]] = {}


def field_hints(cls: type) -> dict[str, Any]:
    """The declared types of dataclass ``cls``'s fields, read once (both field-by-field
    mappings walk them: :mod:`referee.wire.views` and :func:`compiled_writer`)."""
    found = _HINTS.get(cls)
    if found is None:
        found = _HINTS[cls] = typing.get_type_hints(cls)
    return found


# Every game's view is written to bytes by a writer compiled once per dataclass and
# message type, from the dataclass's field types and the message's descriptor: the
# same walk as :func:`referee.wire.views.dataclass_to_proto`, writing the canonical
# encoding instead of filling a message (a submessage is present once any of its
# fields was set, as the protobuf library has it).
#
# Views are values (frozen dataclasses of tuples, ints, strings and cards), and an
# engine hands out the same object for what does not change within a hand (the last
# showdown, the score columns): so a writer keeps the bytes of the last submessage
# (or list of submessages) it wrote per field, and writes them again when it meets
# the same object (``is``). The pair is stored in one step, so threads sharing a
# writer never see a value with another's bytes.

_STRING = FieldDescriptor.TYPE_STRING
_MESSAGE = FieldDescriptor.TYPE_MESSAGE
#: (attribute, tag, has presence, the submessage's descriptor) per field.
_PlanEntry = tuple[str, bytes, bool, Any]
_PLANS: dict[tuple[type, Any], list[_PlanEntry]] = {}


def field_tag(fd: FieldDescriptor) -> bytes:
    """The tag of a field: its number and wire type (length-delimited for strings,
    messages and packed lists, else varint: the types the views use)."""
    length_delimited = fd.type in (_STRING, _MESSAGE) or fd.is_packed
    return varint(fd.number << 3 | (2 if length_delimited else 0))


def _plan(cls: type, descriptor: Any) -> list[_PlanEntry]:
    key = (cls, descriptor)  # descriptors are interned: one object per message type
    plan = _PLANS.get(key)
    if plan is None:
        by_name = descriptor.fields_by_name
        found = sorted(
            (by_name[f.name].number, f.name, by_name[f.name])
            for f in dataclasses.fields(cls)
            if f.name in by_name
        )
        plan = _PLANS[key] = [
            (name, field_tag(fd), fd.has_presence, fd.message_type) for _, name, fd in found
        ]
    return plan


#: Writers compiled per (dataclass, message descriptor); None where a field's type is
#: not one the compiler knows (those views go through the protobuf messages).
Writer = Callable[[Any], bytes | None]
_COMPILED: dict[tuple[type, Any], Writer | None] = {}


def _string_entries(tag: bytes) -> BoundedCache[str, bytes]:
    """The encoded entries of a string field, by text, made on first use (the texts of
    a view's strings come from small sets: phases, roles, kinds of showdown)."""
    return BoundedCache(lambda text: string_field(tag, text))


def _is_dataclass_type(hint: Any) -> bool:
    return isinstance(hint, type) and dataclasses.is_dataclass(hint)


def _field_lines(
    name: str, hint: Any, tag: bytes, presence: bool, sub: Any, env: dict[str, Any]
) -> list[str] | None:
    """The lines that write one field, by its declared type (``None`` is always
    skipped, as :func:`referee.wire.views.dataclass_to_proto` does); None for a type
    not known here."""
    args = typing.get_args(hint)
    if type(None) in args:  # Optional[X]
        rest = [a for a in args if a is not type(None)]
        if len(rest) != 1:
            return None
        hint, args = rest[0], typing.get_args(rest[0])
    t = f"T_{name}"
    env[t] = tag
    head = [f"    v = value.{name}", "    if v is not None:"]
    if hint is Card:
        env[f"E_{name}"] = card_entries(tag)
        return [*head, "        touched = True", f"        parts.append(E_{name}[v])"]
    if hint is int or hint is bool:
        test = "True" if presence else "v"
        return [
            *head,
            "        touched = True",
            f"        if {test}:",
            f"            parts.append({t} + (VARINTS[v] if 0 <= v < SMALL else varint(v)))",
        ]
    if hint is str:
        test = "True" if presence else "v"
        env[f"S_{name}"] = _string_entries(tag)
        return [
            *head,
            "        touched = True",
            f"        if {test}:",
            f"            parts.append(S_{name}[v])",
        ]
    if _is_dataclass_type(hint):
        writer = compiled_writer(hint, sub)
        if writer is None:
            return None
        env[f"W_{name}"] = writer
        env[f"M_{name}"] = [(None, None)]
        return [
            *head,
            f"        last = M_{name}[0]",
            "        if last[0] is v:",
            "            entry = last[1]",
            "        else:",
            f"            body = W_{name}(v)",
            f"            entry = None if body is None else delimited({t}, body)",
            f"            M_{name}[0] = (v, entry)",
            "        if entry is not None:",
            "            touched = True",
            "            parts.append(entry)",
        ]
    if typing.get_origin(hint) is not tuple or not args:
        return None
    item = args[0]
    if args[-1] is not Ellipsis and any(a is not item for a in args):
        return None  # a fixed tuple of mixed types
    body: list[str]
    if item is Card:
        env[f"E_{name}"] = card_entries(tag).__getitem__
        body = [f"            parts += map(E_{name}, v)"]
    elif item is int or item is bool:
        body = [f"            parts.append(delimited({t}, b''.join(map(varint, v))))"]
    elif item is str:
        env[f"S_{name}"] = _string_entries(tag).__getitem__
        body = [f"            parts += map(S_{name}, v)"]
    elif typing.get_origin(item) is tuple and typing.get_args(item)[:1] == (Card,):
        env["E_cards"] = card_entries(b"\x0a").__getitem__  # Cards.cards
        body = [
            "            for cards in v:",
            f"                parts.append(delimited({t}, b''.join(map(E_cards, cards))))",
        ]
    elif _is_dataclass_type(item) and (writer := compiled_writer(item, sub)) is not None:
        env[f"W_{name}"] = writer
        env[f"M_{name}"] = [(None, b"")]
        body = [
            f"            last = M_{name}[0]",
            "            if last[0] is not v:",
            f"                items = [delimited({t}, W_{name}(x) or b'') for x in v]",
            f"                last = M_{name}[0] = (v, b''.join(items))",
            "            parts.append(last[1])",
        ]
    else:
        return None
    return [*head, "        if v:", "            touched = True", *body]


def compiled_writer(cls: type, descriptor: Any) -> Writer | None:
    """A function writing dataclass ``cls`` as message ``descriptor``, straight-line
    code made once from the field types (as ``dataclasses`` makes ``__init__``); None
    when a field's type is not one known here, or ``cls`` is not frozen (the writer
    keeps bytes by object, which only a value makes safe)."""
    key = (cls, descriptor)
    if key in _COMPILED:
        return _COMPILED[key]
    _COMPILED[key] = None  # until it is made (a type that contains itself gets None)
    if not getattr(getattr(cls, "__dataclass_params__", None), "frozen", False):
        return None
    hints = field_hints(cls)
    env: dict[str, Any] = {
        "SMALL": SMALL,
        "VARINTS": VARINTS,
        "varint": varint,
        "delimited": delimited,
    }
    lines = ["def write(value):", "    parts = []", "    touched = False"]
    for name, tag, presence, sub in _plan(cls, descriptor):
        field_lines = _field_lines(name, hints[name], tag, presence, sub, env)
        if field_lines is None:
            return None
        lines += field_lines
    lines.append("    return b''.join(parts) if touched else None")
    exec("\n".join(lines), env)  # our own source, made from the dataclass fields
    writer: Writer = env["write"]
    _COMPILED[key] = writer
    return writer
