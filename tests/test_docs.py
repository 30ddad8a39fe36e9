"""The README is a front page and the guide lives in docs/: the README stays
short, every page of docs/ is in the site's nav, and no relative link of the
README or of a page points to a file that is not there."""

from __future__ import annotations

import re
from pathlib import Path

from tests.support import REPO

DOCS = REPO / "docs"
LINK = re.compile(r"\]\(([^)\s]+)\)")


def pages() -> list[Path]:
    return sorted(DOCS.rglob("*.md"))


def test_the_readme_is_a_front_page():
    assert len((REPO / "README.md").read_text().splitlines()) <= 250


def test_every_page_is_in_the_sites_nav():
    nav = (REPO / "mkdocs.yml").read_text()
    listed = set(re.findall(r":\s*([\w/.-]+\.md)\s*$", nav, re.M))
    assert listed == {str(page.relative_to(DOCS)) for page in pages()}


def test_no_relative_link_points_to_a_missing_file():
    broken = []
    for doc in [REPO / "README.md", REPO / "CONTRIBUTING.md", *pages()]:
        for target in LINK.findall(doc.read_text()):
            if re.match(r"^(https?:|mailto:|#)", target):
                continue
            path = (doc.parent / target.split("#")[0]).resolve()
            if not path.exists():
                broken.append(f"{doc.relative_to(REPO)}: {target}")
    assert not broken, broken


def test_the_command_line_reference_is_what_the_parser_prints():
    import subprocess
    import sys

    run = subprocess.run(
        [sys.executable, "scripts/cli_reference.py", "--check"], cwd=REPO, capture_output=True, text=True
    )
    assert run.returncode == 0, run.stderr


def _slug(heading: str) -> str:
    """A heading's anchor, as mkdocs and GitHub make it (for the headings these pages have)."""
    text = re.sub(r"[^\w\s-]", "", heading.strip().lower())
    return re.sub(r"\s", "-", text)


def test_every_anchor_the_code_and_pages_cite_is_a_heading():
    anchors = {
        page.relative_to(DOCS).as_posix(): {_slug(h) for h in re.findall(r"^#+ (.+)$", page.read_text(), re.M)}
        for page in pages()
    }
    cited = re.compile(r"docs/([\w/-]+\.md)#([\w-]+)|\]\(([\w/.-]+\.md)#([\w-]+)\)")
    sources = [*REPO.glob("session_tui/**/*.py"), *REPO.glob("tests/**/*.py"), *pages(), REPO / "README.md"]
    missing = []
    for source in sources:
        for match in cited.finditer(source.read_text()):
            page, anchor = (match.group(1), match.group(2)) if match.group(1) else (match.group(3), match.group(4))
            if source.is_relative_to(DOCS) and not match.group(1):  # a page's link: relative to its folder
                page = (source.parent / page).resolve().relative_to(DOCS.resolve()).as_posix()
            if page.startswith("docs/"):
                page = page.removeprefix("docs/")
            if anchor not in anchors.get(page, set()):
                missing.append(f"{source.relative_to(REPO)}: {page}#{anchor}")
    assert not missing, missing


def test_the_resume_pages_data_folders_and_opencode_figures_are_the_repositorys():
    """Every ``tests/data/…/`` folder the resume page names is there, and its
    opencode dry-run figures are the goldens kept (tests/golden/dry-run)."""
    page = (DOCS / "guide" / "resume.md").read_text()
    for folder in re.findall(r"`(tests/data/[\w.-]+)/", page):
        assert (REPO / folder).is_dir(), folder
    assert "live-2026-12-03" in page and "For Claude Code, Codex and pi," not in page
    kept = len(list((REPO / "tests" / "golden" / "dry-run").glob("opencode-*.json")))
    figures = re.findall(r"^\| opencode.*dry run:? (\d+) / (\d+)", page, re.M)
    assert len(figures) == 2 and all(int(a) == int(b) == kept for a, b in figures), (figures, kept)
