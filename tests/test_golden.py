"""Golden records (after OpenSpiel's playthroughs): seeded matches stored as text."""

from __future__ import annotations

import pytest

from arena import golden


@pytest.mark.parametrize("case", golden.cases(), ids=lambda c: c.filename)
def test_golden_record_is_unchanged(case: golden.Case) -> None:
    path = golden.GOLDEN_DIR / case.filename
    assert path.exists(), f"{path} is missing: run `make golden` and commit it"
    expected = path.read_text().splitlines()
    got = golden.record_text(case).splitlines()
    assert expected == got, (
        f"{path}: {golden.first_difference(expected, got)}; if intended, run `make golden`"
    )


def test_first_difference_names_the_line() -> None:
    assert golden.first_difference(["a", "b"], ["a", "c"]) == "line 2 differs: stored 'b', now 'c'"
    assert "length differs" in golden.first_difference(["a"], ["a", "b"])
