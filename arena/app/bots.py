"""Bots: submitting a version (under the actor's name, or an operator's choice of
owner), retiring a bot, and the check made on each bot a tournament, gauntlet or duel
is to seat (``docs/api.md``, "Who may do what")."""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import PurePosixPath

from arena.app import limits
from arena.app.actors import Action, Actor, require
from arena.app.errors import Invalid, NotFound, RateLimited
from worker import archive as archives
from worker.archive import ArchiveError, Member
from worker.store import Bot, BotVersion, Store
from worker.store.bots import bot_name_problem

#: The most a submission holds (docs/bots.md): its files' sizes together, and its
#: entries, files and folders (:data:`worker.archive.LIMITS` has the rest).
ARCHIVE_LIMITS = archives.LIMITS
MAX_BYTES = ARCHIVE_LIMITS.max_bytes
MAX_ENTRIES = ARCHIVE_LIMITS.max_entries
#: The archive formats a version may be stored in.
ARCHIVE_FORMATS = ("tar",)
#: The most a command holds: its words, and the characters of each.
MAX_COMMAND_WORDS = 32
MAX_WORD = 1000
#: What a version's command runs on (docs/bots.md, "The manifest"): the platform's
#: Python and SDK, Node.js and the ``rummy-arena`` SDK, or a program of the bot's own.
RUNTIMES = ("python", "node", "binary")


@dataclass(frozen=True, slots=True)
class Submitted:
    """A submission's outcome: the version that holds the content, and whether it is new
    (the same content again is the same version)."""

    version: BotVersion
    new: bool


@dataclass(frozen=True, slots=True)
class Retired:
    """A retired bot, and whether it was retired already (its date kept)."""

    bot: Bot
    already: bool


def submit(
    store: Store,
    actor: Actor,
    *,
    name: str,
    game: str,
    archive: bytes,
    command: Sequence[str],
    archive_format: str = "tar",
    owner: str | None = None,
    runtime: str | None = None,
    qualify: bool = False,
) -> Submitted:
    """Store ``archive`` as a version of the bot ``name`` playing ``game``. A new name is
    registered for ``owner`` (default: the actor, who alone may name another user when an
    operator); an existing name takes versions from its owner or an operator only. Nothing
    is stored when the submission is refused. A new version of a retired bot brings it
    back. ``runtime`` is one of :data:`RUNTIMES`; None infers it from ``command``.

    A new version is ``qualifying`` (docs/bots.md, "Qualification": the caller sends it
    to be qualified) unless an operator submits it: an operator vouches for their own
    code, and their version is ``exempt`` unless they ask to ``qualify`` it too."""
    problem = bot_name_problem(name)
    if problem is not None:
        raise Invalid(problem)
    check_command(command)
    runtime = check_runtime(runtime, command)
    # who may submit under this name is settled before a byte of the archive is read
    existing = store.bot_by_name(name)
    if existing is not None:
        require(
            actor,
            Action.SUBMIT,
            whose=existing.owner,
            what=f"submit a version of bot {name!r}, which belongs to {existing.owner}",
        )
        if owner is not None and owner != existing.owner:
            raise Invalid(f"bot {name!r} belongs to {existing.owner}; it cannot go to {owner}")
        owner = existing.owner
    else:
        owner = owner or actor.name
        require(
            actor,
            Action.SUBMIT,
            whose=owner,
            what=f"register bot {name!r}"
            + ("" if owner is None or owner == actor.name else f" for {owner}"),
        )
        if owner is not None and owner != actor.name and store.user(owner) is None:
            raise NotFound(f"no user named {owner!r}: make them first (arena user create {owner})")
    submitter = actor.name
    assert owner is not None and submitter is not None  # require refused the anonymous
    members = check_archive(archive, archive_format)
    check_entry_point(command, files_of(members))
    # what is stored is the platform's own form of what was checked, never the upload
    archive = archives.pack(members)
    content_hash = hashlib.sha256(archive).hexdigest()
    if existing is not None:
        for rated in store.bot_versions(existing.id):
            if rated.version.content_hash == content_hash:
                if rated.version.game != game:
                    raise Invalid(
                        f"this content is already {rated.version.label}, submitted for "
                        f"{rated.version.game}; a version plays one game"
                    )
                return Submitted(rated.version, new=False)
    limits.check(store, actor, "submissions")  # the same content again is no new write
    bot_id = store.add_bot(name, owner)
    manifest = {
        "game": game,
        "command": list(command),
        "archive": archive_format,
        "runtime": runtime,
    }
    exempt = actor.is_operator and not qualify
    try:
        with limits.counted(actor, "submissions") as allowance:
            version = store.add_bot_version(
                bot_id,
                archive,
                manifest,
                submitter,
                "exempt" if exempt else "qualifying",
                allowance=allowance,
            )
    except RateLimited:
        if existing is None:  # the name goes with the refused version
            store.remove_bot_without_versions(bot_id)
        raise
    if existing is not None and existing.retired_at is not None:
        store.set_retired(bot_id, False)
    return Submitted(version, new=True)


def check_command(command: Sequence[str]) -> None:
    """:class:`Invalid` unless ``command`` is a command a worker can start: 1 to
    :data:`MAX_COMMAND_WORDS` words of printable text."""
    if not 1 <= len(command) <= MAX_COMMAND_WORDS:
        raise Invalid(f"command: 1 to {MAX_COMMAND_WORDS} words, not {len(command)}")
    for word in command:
        if not (isinstance(word, str) and 0 < len(word) <= MAX_WORD and word.isprintable()):
            raise Invalid(
                f"command: each word is 1–{MAX_WORD} printable characters, not {word!r:.60}"
            )


def check_runtime(runtime: str | None, command: Sequence[str]) -> str:
    """``runtime`` if it is one of :data:`RUNTIMES` (:class:`Invalid` naming them if
    not); None is inferred from ``command``: ``node`` for a Node.js program or a
    JavaScript file, ``python`` for a Python one or a ``.py`` file, ``binary`` else."""
    if runtime is None:
        program = PurePosixPath(command[0]).name if command else ""
        words = command[1:]
        if program in ("node", "nodejs") or any(w.endswith((".js", ".mjs", ".cjs")) for w in words):
            return "node"
        if program.startswith("python") or any(w.endswith(".py") for w in words):
            return "python"
        return "binary"
    if runtime not in RUNTIMES:
        raise Invalid(
            f"runtime: {runtime!r:.40} is not one the platform runs; it is one of "
            + ", ".join(RUNTIMES)
        )
    return runtime


#: The words of a command that name a file of the bot: those ending so, or holding a
#: ``/`` (options, ``-x``, are not files).
SOURCE_SUFFIXES = (".py", ".js", ".mjs", ".cjs", ".sh")


def check_entry_point(command: Sequence[str], files: Iterable[str]) -> None:
    """:class:`Invalid` unless every file ``command`` names in the bot's folder is one
    of its ``files``: its program when a relative path, and each argument that is a
    path or a source file (``bot.py``, ``src/main.js``), none outside the folder. A
    program named bare (``python``, ``node``) is found on the sandbox's ``PATH``; an
    absolute one is the system's."""
    files = set(files)
    program, *arguments = command
    named = [program] if "/" in program and not program.startswith("/") else []
    named += [
        word
        for word in arguments
        if not word.startswith("-") and ("/" in word or word.endswith(SOURCE_SUFFIXES))
    ]
    for word in named:
        path = PurePosixPath(word)
        if path.is_absolute() or ".." in path.parts:
            raise Invalid(f"command: {word!r:.80} is outside the bot's folder")
        if str(path) not in files:
            listed = ", ".join(sorted(files)[:5]) or "no files"
            raise Invalid(
                f"command: {word!r:.80} is not a file of the bot (it holds {listed}"
                f"{', …' if len(files) > 5 else ''}): fix the manifest's command"
            )


def check_archive(archive: bytes, archive_format: str = "tar") -> list[Member]:
    """The members of ``archive``, read by :func:`worker.archive.read` (the reader the
    worker unpacks with); :class:`Invalid` saying why in one line unless it is an
    uncompressed tar of at most :data:`MAX_ENTRIES` plain files and folders,
    :data:`MAX_BYTES` together, every path inside the folder (no links, devices,
    absolute or ``..`` paths), and every Python file in it one that compiles (a syntax
    error is named by file and line, not found as a forfeit in the bot's first match)."""
    if archive_format not in ARCHIVE_FORMATS:
        raise Invalid(f"archive_format {archive_format!r}: one of {', '.join(ARCHIVE_FORMATS)}")
    try:
        members = archives.read(archive)
    except ArchiveError as exc:
        raise Invalid(str(exc)) from None
    for member in members:
        if member.data is not None and member.path.endswith(".py"):
            _check_python(member.path, member.data)
    return members


def files_of(members: Iterable[Member]) -> set[str]:
    """The paths of the files among ``members``."""
    return {member.path for member in members if member.is_file}


def _check_python(name: str, source: bytes) -> None:
    """:class:`Invalid` naming the file, line and error when ``source`` does not compile."""
    try:
        compile(source, name, "exec", dont_inherit=True)
    except SyntaxError as exc:
        where = f"line {exc.lineno}" + (f", column {exc.offset}" if exc.offset else "")
        raise Invalid(
            f"{name} does not compile ({where}: {exc.msg}): fix it and submit again; "
            "nothing was stored"
        ) from None
    except ValueError as exc:  # a NUL byte in the source
        raise Invalid(f"{name} does not compile ({exc}): nothing was stored") from None


def retire(store: Store, actor: Actor, name: str) -> Retired:
    """Retire the bot ``name``: ladders leave it out and tournaments, gauntlets and duels
    refuse it from now on (matches already queued still play)."""
    bot = store.bot_by_name(name)
    if bot is None:
        raise NotFound(f"no bot named {name!r} (see arena bot list)")
    require(actor, Action.RETIRE, whose=bot.owner, what=_theirs(f"retire bot {name!r}", bot))
    return Retired(store.set_retired(bot.id, True), already=bot.retired_at is not None)


def check_entry(actor: Actor, bot: Bot) -> None:
    """Refuse ``bot`` for a new tournament, gauntlet or duel that ``actor`` makes: one
    retired, or one that is neither the actor's nor a house bot (but to an operator)."""
    require(actor, Action.ENTER, whose=bot.owner, what=_theirs(f"enter bot {bot.name!r}", bot))
    if bot.retired_at is not None:
        raise Invalid(
            f"bot {bot.name} is retired (since {bot.retired_at:%Y-%m-%d}): it plays no new "
            "matches; a new version (arena bot submit) brings it back"
        )


def check_playable(version: BotVersion) -> None:
    """Refuse a version for new matches unless it qualified or is exempt, saying what to
    do about it."""
    if version.playable:
        return
    if version.qualification == "qualifying":
        raise Invalid(
            f"{version.label} has not qualified yet: it plays no matches until it has "
            f"(arena bot show {version.bot_name} says when)"
        )
    raise Invalid(
        f"{version.label} failed its qualification: it plays no matches (arena bot show "
        f"{version.bot_name} says why; fix it, check it with arena bot check, submit again)"
    )


def _theirs(what: str, bot: Bot) -> str:
    return f"{what}, which belongs to {bot.owner}"
