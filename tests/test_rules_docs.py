"""Every rule id the project cites (`C9`, `G8`, `R4`, `F7.5`, `test_g9_…`) is defined in
docs/rules/, so that a citation always leads a reader to its rule."""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
RULES = ROOT / "docs" / "rules"
SELF = Path(__file__).resolve()

#: The page that defines the rules of each id prefix.
PAGES = {
    "C": "README.md",
    "G": "hollywood-gin.md",
    "H": "hollywood-gin.md",
    "T": "gin-three.md",
    "R": "rummy-500.md",
    "F": "flip-flop.md",
}

#: Where citations are looked for: every project text that can cite a rule.
SCANNED = ("README.md", "referee", "bots", "arena", "worker", "tests", "docs", "proto")
SUFFIXES = {".md", ".py", ".proto", ".js", ".sql"}
SKIPPED_DIRS = {"node_modules", "__pycache__", "golden"}

#: A rule is a heading (`### G9 Hand score`); a numbered step of a rule a list item
#: (`- **F7.5 Discard.**`).
RULE_HEADING = re.compile(r"^#{2,4} ([CGHTRF][1-9]\d?) ", re.M)
STEP_ITEM = re.compile(r"^[-*] \*\*([CGHTRF][1-9]\d?\.[1-9]\d?) ", re.M)

#: A cited id: prefix, number and maybe a step, standing alone. The look-arounds keep out
#: longer words and numbers (`H2Connection`, `F401`, `R500_VALUES`, hex such as `0x9E37C15`)
#: and cards, which are rank then suit (`9C`, `TC`): no card text starts with a suit letter.
CITED = re.compile(r"(?<![\w.])([CGHTRF])([1-9]\d?)(?:\.([1-9]\d?))?(?!\w)")
#: A range of ids, `G1–G10` or `F7.3-F7.5`: every id in it is cited.
CITED_RANGE = re.compile(
    r"(?<![\w.])([CGHTRF])([1-9]\d?)(?:\.([1-9]\d?))?\s*[–-]\s*\1([1-9]\d?)(?:\.([1-9]\d?))?(?!\w)"
)
#: Test names cite ids in lower case, one or more after `test_`: `test_c7_g3_the_draw…`.
TEST_NAME = re.compile(r"(?<!\w)(test(?:_[a-z][1-9]\d?)+)_")


def defined_ids() -> dict[str, str]:
    """Each id defined in docs/rules/, with the page that defines it."""
    found: dict[str, str] = {}
    for page in sorted(RULES.glob("*.md")):
        text = page.read_text(encoding="utf-8")
        for rule_id in RULE_HEADING.findall(text) + STEP_ITEM.findall(text):
            assert rule_id not in found, (
                f"{rule_id} is defined twice: {found[rule_id]}, {page.name}"
            )
            found[rule_id] = page.name
    return found


def scanned_files() -> Iterator[Path]:
    """The project's text files that may cite rules."""
    for name in SCANNED:
        top = ROOT / name
        if top.is_file():
            yield top
            continue
        for folder, dirs, files in os.walk(top):
            dirs[:] = sorted(d for d in dirs if d not in SKIPPED_DIRS and not d.startswith("."))
            for file in sorted(files):
                if Path(file).suffix in SUFFIXES:
                    yield Path(folder) / file


def ids_in_line(line: str) -> Iterator[str]:
    """The rule ids a line cites, ranges expanded, test names included."""
    for m in CITED.finditer(line):
        yield m.group(0)
    for m in CITED_RANGE.finditer(line):
        prefix, first, first_step, last, last_step = m.groups()
        if first_step is None and last_step is None:
            yield from (f"{prefix}{n}" for n in range(int(first), int(last) + 1))
        elif first_step is not None and last_step is not None and first == last:
            yield from (f"{prefix}{first}.{n}" for n in range(int(first_step), int(last_step) + 1))
    for m in TEST_NAME.finditer(line):
        for part in m.group(1).split("_")[1:]:
            if part[0].upper() in PAGES:
                yield part.upper()


def cited_ids() -> dict[str, list[str]]:
    """Each cited rule id, with the places (`file:line`) that cite it."""
    cited: dict[str, list[str]] = {}
    for path in scanned_files():
        if path == SELF:
            continue  # its ids are examples of the patterns, not citations
        rel = path.relative_to(ROOT).as_posix()
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            for rule_id in sorted(set(ids_in_line(line))):
                cited.setdefault(rule_id, []).append(f"{rel}:{number}")
    return cited


def test_the_citation_pattern_finds_ids_and_nothing_else() -> None:
    line = (
        "R4 and F7.5 (G1–G3, F7.3-F7.5) def test_c7_g3_the_draw test_d6_claim 9C TC JK "
        "H2Connection F401 R500_VALUES 0x9E3779B97F4A7C15 c9 test_g9"
    )
    expected = ["C7", "F7.3", "F7.4", "F7.5", "G1", "G2", "G3", "R4"]
    assert sorted(set(ids_in_line(line))) == expected


def test_every_cited_rule_id_is_defined_in_docs_rules() -> None:
    defined = defined_ids()
    missing = {rule_id: places for rule_id, places in cited_ids().items() if rule_id not in defined}
    assert not missing, "rule ids cited but not defined in docs/rules/:\n" + "\n".join(
        f"  {rule_id}: {', '.join(places[:5])}" for rule_id, places in sorted(missing.items())
    )


def test_each_rule_is_on_the_page_of_its_game() -> None:
    defined = defined_ids()
    misplaced = {i: page for i, page in defined.items() if PAGES[i[0]] != page}
    assert not misplaced, f"rules on the wrong page: {misplaced}"
    for prefix, page in PAGES.items():
        ids = [i for i in defined if i.startswith(prefix) and "." not in i]
        numbers = sorted(int(i[1:]) for i in ids)
        assert numbers == list(range(1, len(numbers) + 1)), f"{page}: {prefix} ids {numbers}"


def heading_anchor(heading: str) -> str:
    """The anchor a Markdown renderer gives a heading: lower case, punctuation dropped."""
    return re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")


def test_links_to_and_within_docs_rules_resolve() -> None:
    pages = [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]
    broken = []
    for page in pages:
        text = page.read_text(encoding="utf-8")
        for target in re.findall(r"\]\(([^)\s]+)\)", text):
            if "://" in target or target.startswith("#"):
                continue
            file_part, _, anchor = target.partition("#")
            resolved = (page.parent / file_part).resolve()
            if page.parent != RULES and RULES not in (resolved, *resolved.parents):
                continue
            if not resolved.exists():
                broken.append(f"{page.relative_to(ROOT)}: {target}")
            elif anchor and resolved.suffix == ".md":
                headings = re.findall(r"^#+ (.+)$", resolved.read_text(encoding="utf-8"), re.M)
                if anchor not in {heading_anchor(h) for h in headings}:
                    broken.append(f"{page.relative_to(ROOT)}: {target}")
    assert not broken, f"broken links: {broken}"
