"""The ten-line SDK bot of docs/bots.md: discard the highest card, else the first action."""

from bots.sdk import Bot, Request, run


class MinimalBot(Bot):
    def decide(self, request: Request) -> int | str:
        discards = [a for a in request.legal_actions if a.startswith("discard ")]
        return max(discards, key=lambda a: "A23456789TJQK".index(a[8])) if discards else 0


if __name__ == "__main__":
    run(MinimalBot())  # the referee address and token come from ARENA_REFEREE / ARENA_TOKEN
