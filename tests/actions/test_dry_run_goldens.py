"""What the pinned real clients sent in session-tui's own dry run (recorded
with ``scripts/record_goldens.py --dry-run``): session-tui's context at the
leaf reduces to the same steps, and the oracle's capture of the same client
(tests/golden) to the same steps too. No client needed."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import orjson
import pytest

from session_tui.actions.export import export
from session_tui.model.resume.steps import context_steps
from session_tui.model.session.session import open_session
from tests.support import REPO, golden_form

GOLDENS = sorted((REPO / "tests" / "golden" / "dry-run").glob("*.json"))


def golden_stem(path: Path) -> str:
    """A file's name in its goldens (scripts/record_goldens.py): Copilot CLI's ``<id>/events.jsonl`` by its folder,
    an opencode session (``<folder>/opencode.db#<id>``) by its database's folder and its id."""
    if "#" in path.name:
        return f"{path.parent.name}-{path.name.partition('#')[2]}"
    if path.name != "events.jsonl":
        return path.stem
    return path.parent.name + (f"-{path.parent.parent.name}" if path.parent.parent.name in ("resumed", "fixed") else "")


def test_every_sample_of_a_client_has_a_dry_run_golden():
    samples = [p for fmt in ("claude", "codex", "pi", "qwen") for p in (REPO / "sample_sessions" / fmt).glob("*.jsonl")]
    assert len(samples) == 11
    assert {f"{p.parent.name}-{p.stem}" for p in samples} <= {g.stem for g in GOLDENS}


def _opened(source: Path, folder: Path) -> Path:
    """What to open for ``source``: an opencode session's database copied
    into ``folder`` first (reading a WAL in place rewrites the ``-shm``
    beside it in the repository), any other file where it is."""
    database, sep, _ = source.name.partition("#")
    if not sep:
        return source
    for suffix in ("", "-wal", "-shm"):
        if (source.parent / (database + suffix)).exists():
            shutil.copyfile(source.parent / (database + suffix), folder / (database + suffix))
    return folder / source.name


def _files(folder: Path) -> dict[str, tuple[int, int]]:
    return {p.name: (p.stat().st_size, p.stat().st_mtime_ns) for p in sorted(folder.iterdir())}


@pytest.mark.parametrize("golden", GOLDENS, ids=[g.stem for g in GOLDENS])
def test_the_dry_run_capture_agrees_with_the_context_and_the_oracle(golden, tmp_path):
    data = json.loads(golden.read_text())
    assert data["accepted"] and data["agrees"]
    source = REPO / data["file"]
    before = _files(source.parent)
    with open_session(_opened(source, tmp_path)) as session:
        context = orjson.loads(export(session, "json", context=True))
    assert _files(source.parent) == before  # (nothing made or touched in the repository)
    assert golden_form(context_steps(data["format"], context)) == data["steps"]
    oracle = REPO / "tests" / "golden" / f"{data['format']}-{golden_stem(REPO / data['file'])}-orig.json"
    assert json.loads(oracle.read_text())["steps"] == data["steps"]
