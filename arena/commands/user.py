"""``arena user create | list`` and ``arena user key new | list | revoke``: users and their
API keys (docs/api.md). The operations and who may ask for them are
:mod:`arena.app.users`'; this module parses, asks :func:`arena.client.users` (this
machine's store, or the platform's API when one is set) and prints."""

from __future__ import annotations

import argparse
import json
from datetime import datetime
from typing import Any

from arena import client
from arena.app import users
from arena.commands import add_command, examples, json_argument, plain_table, print_table
from referee import settings
from worker.store import NewKey

SHOWN_ONCE = "shown this once (the platform keeps only its hash)"


def register(sub: Any, bench_sub: Any) -> None:
    """Add ``arena user`` and its actions."""
    user = add_command(
        sub,
        "user",
        help="users and their API keys",
        examples=examples(
            "arena user create ann", "arena user key list", "arena user key revoke 3f2a9c01d4e5"
        ),
    )
    actions = user.add_subparsers(dest="user_command", required=True, metavar="ACTION")
    create = add_command(
        actions,
        "create",
        help="make a user and their first API key, printed once (operators only)",
        examples=examples("arena user create ann", "arena user create ops --operator --json"),
    )
    create.add_argument("name", help="the user's name (as a bot name: letters, digits, -_.)")
    create.add_argument("--operator", action="store_true", help="the user may do everything")
    json_argument(create, "the user and the key")
    create.set_defaults(func=cmd_create)

    listing = add_command(
        actions,
        "list",
        help="every user: operator or not, working keys, bots (operators only)",
        examples=examples("arena user list", "arena user list --json"),
    )
    json_argument(listing, "the users")
    listing.set_defaults(func=cmd_list)

    key = add_command(
        actions,
        "key",
        help="a user's API keys: new, list, revoke",
        examples=examples(
            "arena user key new", "arena user key list --user ann", "arena user key revoke PREFIX"
        ),
    )
    key_actions = key.add_subparsers(dest="key_command", required=True, metavar="ACTION")
    new = add_command(
        key_actions,
        "new",
        help="make an API key, printed once: yours, or another user's (operators)",
        examples=examples("arena user key new", "arena user key new --user ann --json"),
    )
    _user_argument(new)
    json_argument(new, "the key")
    new.set_defaults(func=cmd_key_new)

    keys = add_command(
        key_actions,
        "list",
        help="API keys by prefix: created, last used, revoked",
        examples=examples("arena user key list", "arena user key list --user ann --json"),
    )
    _user_argument(keys)
    json_argument(keys, "the keys")
    keys.set_defaults(func=cmd_key_list)

    revoke = add_command(
        key_actions,
        "revoke",
        help="revoke an API key: it is refused from then on",
        examples=examples("arena user key revoke 3f2a9c01d4e5"),
    )
    revoke.add_argument("prefix", help="the key's prefix (its first 12 characters)")
    revoke.set_defaults(func=cmd_key_revoke)


def _user_argument(parser: Any) -> None:
    parser.add_argument(
        "--user",
        metavar="NAME",
        help=f"whose (default: yours, the user of {settings.API_KEY}; another's: operators)",
    )


def _day(moment: datetime | None) -> str:
    return "" if moment is None else f"{moment:%Y-%m-%d %H:%M}"


def _print_new_key(made: NewKey, opening: str) -> None:
    print(f"{opening}; the API key, {SHOWN_ONCE}:")
    print(f"  {made.text}")
    print(
        f"{made.key.user} acts with it as {settings.API_KEY}; "
        f"`arena user key list --user {made.key.user}` lists it by its prefix {made.key.prefix}"
    )


def cmd_create(args: argparse.Namespace) -> int:
    with client.users() as asked:
        made = asked.create_user(args.name, operator=args.operator)
    if args.json:
        print(json.dumps({**users.new_key_dict(made), "operator": args.operator}))
    else:
        role = "an operator" if args.operator else "not an operator"
        _print_new_key(made, f"made user {made.key.user} ({role})")
    return 0


def cmd_list(args: argparse.Namespace) -> int:
    with client.users() as asked:
        found = asked.list_users()
    if args.json:
        print(json.dumps([users.user_dict(u) for u in found]))
        return 0
    print_table(
        plain_table(
            ("user", "operator", "keys", "bots", "created"),
            (
                (
                    u.user.name,
                    "yes" if u.user.operator else "no",
                    str(u.keys),
                    str(u.bots),
                    _day(u.user.created_at),
                )
                for u in found
            ),
        )
    )
    return 0


def cmd_key_new(args: argparse.Namespace) -> int:
    with client.users() as asked:
        made = asked.new_key(args.user)
    if args.json:
        print(json.dumps(users.new_key_dict(made)))
    else:
        _print_new_key(made, f"made a key of {made.key.user}")
    return 0


def cmd_key_list(args: argparse.Namespace) -> int:
    with client.users() as asked:
        keys = asked.list_keys(args.user)
        whose = args.user or asked.me()
    if args.json:
        print(json.dumps([users.key_dict(k) for k in keys]))
        return 0
    if not keys:
        print(f"{whose} has no API keys (arena user key new --user {whose})")
        return 0
    print_table(
        plain_table(
            ("prefix", "user", "created", "last used", "revoked"),
            (
                (
                    k.prefix,
                    k.user,
                    _day(k.created_at),
                    _day(k.last_used_at) or "never",
                    _day(k.revoked_at),
                )
                for k in keys
            ),
        )
    )
    return 0


def cmd_key_revoke(args: argparse.Namespace) -> int:
    with client.users() as asked:
        revoked = asked.revoke_key(args.prefix)
    key = revoked.key
    if revoked.already:
        print(f"key {key.prefix} of {key.user} was revoked already, {_day(key.revoked_at)}")
    else:
        print(f"revoked key {key.prefix} of {key.user}: it is refused from now on")
    return 0
