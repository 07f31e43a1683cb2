"""The web viewer: leaderboards, tournaments, bots, matches and replays, rendered on the
server from the platform's store (``docs/viewer.md``). ``app.create_app`` builds the
Starlette application; ``replay`` re-runs stored matches for it and for ``arena replay``."""
