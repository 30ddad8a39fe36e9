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
