"""``arena login URL``: use a platform remotely (docs/api.md, "Remote use"). It checks the
key with the platform and keeps both in the user's config folder, so that the user
commands (``bot``, ``tournament``, …) call that platform's API from then on."""

from __future__ import annotations

import argparse
import getpass
import sys
from typing import Any

from arena.commands import add_command, examples
from arena.errors import CommandError
from arena.remote import Login, Platform, config_path, save_login
from referee import settings


def register(sub: Any, bench_sub: Any) -> None:
    """Add ``arena login``."""
    p = add_command(
        sub,
        "login",
        help="use a remote platform: check an API key there and keep both",
        examples=examples(
            "arena login https://arena.example.org --key PREFIX.SECRET",
            "arena login http://127.0.0.1:8000   # asks for the key",
        ),
    )
    p.add_argument("url", help="the platform's web address (where `arena web` serves it)")
    p.add_argument(
        "--key",
        help=f"the API key (default: {settings.API_KEY}, else asked for on a terminal)",
    )
    p.set_defaults(func=cmd_login)


def cmd_login(args: argparse.Namespace) -> int:
    url = args.url.rstrip("/")
    if not url.startswith(("http://", "https://")):
        raise CommandError(f"{args.url!r} is no web address: give http(s)://HOST[:PORT]")
    key = args.key or settings.load().api_key
    if key is None and sys.stdin.isatty():
        key = getpass.getpass("API key (arena user key new printed it): ").strip() or None
    if key is None:
        raise CommandError(f"give the API key with --key or {settings.API_KEY}")
    login = Login(url, key)
    with Platform(login) as platform:
        me = platform.get("/me")  # a wrong key is refused here, and nothing is kept
    path = save_login(login)
    print(f"logged in to {url} as {me['kind']} {me['name']}; kept in {path}")
    print(f"the user commands now call that platform (remove {config_path()} to stop)")
    return 0
