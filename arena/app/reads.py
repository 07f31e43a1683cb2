"""What anyone may read (``docs/api.md``, "Who may do what"): bots, tournaments and their
standings, as the JSON-ready values that ``arena … --json`` prints and the API answers,
so that every front end says the same. Results of a duplicate deal whose set is still
being played are left out for everyone (``docs/architecture.md``, decision 13)."""

from __future__ import annotations

from datetime import datetime
from typing import TYPE_CHECKING, Any

from arena.app.actors import Action, Actor, allowed, require
from arena.app.errors import NotFound
from referee import settings
from worker.store import (
    PLATFORM_USER,
    BotVersion,
    Ladder,
    LadderStanding,
    SeatMatch,
    Store,
    StoreError,
    Tournament,
)

if TYPE_CHECKING:
    from worker.ratings import BradleyTerryFit
    from worker.standings import Standings

#: The recent matches a bot's page lists per version.
RECENT_MATCHES = 10


def iso(at: datetime | None) -> str | None:
    """A time as the JSON answers write it (ISO 8601, to the second), or None."""
    return None if at is None else at.isoformat(timespec="seconds")


def version_dict(version: BotVersion) -> dict[str, Any]:
    """A bot version as JSON-ready values."""
    return {
        "version": version.version,
        "label": version.label,
        "content_hash": version.content_hash,
        "game": version.game,
        "command": list(version.manifest.get("command", [])),
        "submitted_by": version.submitted_by,
        "submitted_at": iso(version.submitted_at),
        "qualification": version.qualification,
    }


def bots(
    store: Store, actor: Actor, *, limit: int | None = None, offset: int = 0
) -> list[dict[str, Any]]:
    """Every bot (by name), with its number of versions, its latest and that one's Elo."""
    require(actor, Action.READ, what="list the bots")
    listed = store.list_bots()
    end = None if limit is None else offset + limit
    return [
        {
            "name": b.bot.name,
            "owner": b.bot.owner,
            "house": b.bot.owner == PLATFORM_USER,
            "retired": b.bot.retired_at is not None,
            "versions": b.versions,
            "latest": b.latest.version,
            "game": b.latest.game,
            "elo": None if b.rating is None else round(b.rating, 1),
            "games": b.games,
        }
        for b in listed[offset:end]
    ]


def _seat_match(m: SeatMatch, held: set[int]) -> dict[str, Any]:
    hidden = m.match_id in held  # its result tells what its sibling is still playing
    return {
        "match": m.match_id,
        "game": m.game,
        "state": "held" if hidden else m.state,
        "seat": m.seat,
        "rank": None if hidden else m.rank,
        "score": None if hidden else m.score,
        "status": None if hidden else m.status,
        "forfeit": None if hidden else m.forfeit,
        "finished_at": None if hidden else iso(m.finished_at),
    }


def bot(store: Store, actor: Actor, name: str) -> dict[str, Any]:
    """A bot's public page: its owner, its versions with their Elo and recent matches."""
    require(actor, Action.READ, what=f"read bot {name!r}")
    found = store.bot_by_name(name)
    if found is None:
        raise NotFound(f"no bot named {name!r} (see arena bot list)")
    versions = store.bot_versions(found.id)
    recent = {v.version.id: store.recent_matches(v.version.id, RECENT_MATCHES) for v in versions}
    held = store.held_matches([m.match_id for ms in recent.values() for m in ms])
    logs = allowed(actor, Action.LOGS, found.owner)
    return {
        "name": found.name,
        "owner": found.owner,
        "house": found.owner == PLATFORM_USER,
        "retired_at": iso(found.retired_at),
        "sandbox": settings.sandbox_mode(),
        "versions": [
            {
                **version_dict(v.version),
                "elo": None if v.rating is None else round(v.rating, 1),
                "games": v.games,
                "qualification_report": qualification_report(store, v.version, logs=logs),
                "recent_matches": [_seat_match(m, held) for m in recent[v.version.id]],
            }
            for v in versions
        ],
    }


def qualification_report(store: Store, version: BotVersion, *, logs: bool) -> dict[str, Any] | None:
    """A version's qualification report (docs/bots.md, "Qualification"); what its bot
    wrote to its standard error only with ``logs`` (its owner's and the operators')."""
    if version.qualification not in ("qualified", "failed"):
        return None
    report = store.qualification_report(version.id)
    if report is None or logs:
        return report
    return {**report, "matches": [_without_stderr(m) for m in report.get("matches", [])]}


def _without_stderr(match: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in match.items() if k != "stderr"}


def _tournament(store: Store, tournament_id: int) -> Tournament:
    try:
        return store.tournament(tournament_id)
    except StoreError:
        raise NotFound(f"no tournament {tournament_id} (see arena tournament list)") from None


def tournaments(
    store: Store, actor: Actor, *, limit: int = 50, offset: int = 0
) -> list[dict[str, Any]]:
    """The newest tournaments first, with their progress."""
    require(actor, Action.READ, what="list the tournaments")
    return [
        {
            "id": t.id,
            "name": t.name,
            "game": t.game,
            "state": t.state,
            "duplicate": t.duplicate,
            "bots": len(t.entries),
            "created_by": t.created_by,
            "progress": store.tournament_progress(t.id),
        }
        for t in store.list_tournaments(limit, offset=offset)
    ]


def shown_standings(
    store: Store, tournament: Tournament
) -> tuple[Standings, BradleyTerryFit | None, int]:
    """The tournament's standings and batch fit over the results that may be shown: a
    duplicate set with a match still queued or running counts none of its results yet
    (decision 13); and how many finished matches are left out for that. The same fit as
    the store's (``Store.bradley_terry_fit``: one cluster per match, or per set)."""
    from worker import ratings
    from worker.standings import standings as tabulate

    results = store.tournament_results(tournament.id)
    held = store.held_matches([r.match_id for r in results if r.duplicate_set is not None])
    shown = [r for r in results if r.match_id not in held]
    tally = ratings.PairwiseTally()
    for r in shown:
        cluster = (
            ("match", r.match_id)
            if r.duplicate_set is None
            else ("set", (tournament.id, r.duplicate_set))
        )
        tally.add_match(
            [ratings.SeatResult(s.version, s.rank, s.forfeit) for s in r.seats], cluster
        )
    batch: list[Any] = []
    fit = None
    if shown:
        try:
            batch = ratings.bradley_terry(tally)
            fit = ratings.fit_bradley_terry(tally)
        except ratings.NoFiniteFit:
            batch, fit = [], None
    labels = store.labels(tournament.entries)
    elo = {r.bot_version_id: r.rating for r in store.ratings(tournament.game)}
    return tabulate(tournament.entries, labels, shown, elo, batch), fit, len(held)


def standings(store: Store, actor: Actor, tournament_id: int) -> dict[str, Any]:
    """A tournament's settings, progress and standings (and, with duplicate deals, the
    results over whole deals), as ``arena tournament standings --json`` prints them."""
    require(actor, Action.READ, what=f"read tournament {tournament_id}")
    tournament = _tournament(store, tournament_id)
    table, _, held = shown_standings(store, tournament)
    counts = store.tournament_progress(tournament_id)
    duplicate = (
        store.duplicate_standings(tournament_id=tournament_id)
        if tournament.duplicate and not held
        else []
    )
    labels = store.labels(tournament.entries)
    if counts["queued"] == 0 and counts["running"] == 0 and tournament.state == "running":
        store.set_tournament_state(tournament_id, "done")  # its last match finished
    first = (
        store.list_matches(tournament_id=tournament_id, state="done", limit=1)
        if counts["done"]
        else []
    )
    return {
        "tournament": tournament_id,
        "name": tournament.name,
        "game": tournament.game,
        "format": tournament.format,
        "duplicate": tournament.duplicate,
        "created_by": tournament.created_by,
        "settings": shown_settings(tournament),
        "progress": counts,
        "held": held,
        **table.as_dict(),
        "duplicate_sets": [
            {
                "bot": labels.get(int(d.player), str(d.player)),  # type: ignore[call-overload]
                "sets": d.sets,
                "set_points": d.set_points,
                "mean_score": d.mean_score,
            }
            for d in duplicate
        ],
        "first_match": first[0].id if first else None,
    }


def ladder_rows(store: Store, game: str) -> tuple[Ladder | None, list[LadderStanding]]:
    """The game's ladder (the one named after the game, else the first) and its pool,
    best first by conservative rating (placing and unrated versions last)."""
    from worker import skill

    ladders = store.ladders(game=game)
    if not ladders:
        return None, []
    chosen = next((lad for lad in ladders if lad.name == game), ladders[0])
    rows = store.ladder_standings(chosen)

    def key(row: LadderStanding) -> tuple[int, float]:
        if row.mu is None or row.sigma is None:
            return (1, 0.0)
        return (0, -skill.conservative(row.mu, row.sigma))

    return chosen, sorted(rows, key=key)


def leaderboard(store: Store, actor: Actor, game: str) -> list[dict[str, Any]]:
    """The game's leaderboard, best first, as ``arena leaderboard --json``: the ladder's
    pool with its ratings when the game has a ladder, else the online Elo of every rated
    version."""
    from referee.games import game_names
    from worker import skill

    require(actor, Action.READ, what=f"read the leaderboard of {game}")
    if game not in game_names():
        raise NotFound(f"no game {game!r}: the games are {', '.join(game_names())}")
    ladder, pool = ladder_rows(store, game)
    if ladder is None:
        return [
            {
                "place": i + 1,
                "bot": r.label,
                "bot_version_id": r.bot_version_id,
                "elo": round(r.rating, 1),
                "games": r.games,
            }
            for i, r in enumerate(store.ratings(game))
        ]
    out: list[dict[str, Any]] = []
    for i, p in enumerate(pool):
        line: dict[str, Any] = {
            "place": i + 1,
            "bot": p.label,
            "bot_version_id": p.version,
            "ladder": ladder.name,
            "ladder_games": p.games,
            "last_played": p.last_played_at.isoformat() if p.last_played_at else None,
            "elo": None if p.elo is None else round(p.elo, 1),
            "rating": None,
        }
        if p.mu is not None and p.sigma is not None:
            value, low, high = skill.display(p.mu, p.sigma)
            line.update(
                rating=round(value, 1),
                low=round(low, 1),
                high=round(high, 1),
                mu=round(p.mu, 3),
                sigma=round(p.sigma, 3),
                provisional=skill.provisional(p.sigma),
            )
        out.append(line)
    return out


def shown_settings(tournament: Tournament) -> dict[str, Any]:
    """A tournament's settings as anyone may read them: its ``seed`` is None while its
    matches may still be played, since every match's deal comes from it (a bot that read
    it could work out its opponents' cards); it is shown once the tournament is over."""
    shown = dict(tournament.options)
    if "seed" in shown and tournament.state in ("open", "running"):
        shown["seed"] = None
    return shown
