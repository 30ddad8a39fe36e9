"""The index against what a hostile file, a second process or the disk do:
one writer at a time, no secret at rest, damage rebuilt, a full disk or a
read-only cache said in one line and the index kept."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time

from session_tui.model.search_index.feeder import IndexFeeder
from tests.fleet.builders import Writer
from tests.support import REPO


def _sessions(folder, count=12, answers=30):
    folder.mkdir()
    now = time.time()
    for k in range(count):
        w = Writer(folder / f"s{k:02d}.jsonl", "pi", now).prompt(f"topic number {k} zebra", ago=600 - k)
        for _ in range(answers):
            w.answer("lorem ipsum dolor " * 10, ago=500 - k)
    return folder


def _search(cache, *args):
    env = {**os.environ, "SESSION_TUI_CACHE_DIR": str(cache)}
    return subprocess.Popen(
        [sys.executable, "-m", "session_tui", "search", *args, "--json"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
        cwd=REPO,
    )


def test_first_searches_at_once_and_a_feeder_write_one_at_a_time_and_agree(tmp_path):
    folder = _sessions(tmp_path / "sessions")
    cache = tmp_path / "cache"
    feeder = IndexFeeder(str(cache), spacing=0.01)
    children = [_search(cache, "zebra", str(folder)) for _ in range(4)]
    feeder.changed(str(p) for p in folder.iterdir())
    outs = [child.communicate(timeout=120) for child in children]
    deadline = time.monotonic() + 60
    while feeder.caught_up < 1 and time.monotonic() < deadline:
        time.sleep(0.01)
    feeder.close()
    assert feeder.caught_up >= 1
    assert [child.returncode for child in children] == [0] * 4, [err for _, err in outs]
    hits = [[(h["file"], h["line"]) for h in json.loads(out)["hits"]] for out, _ in outs]
    assert len(hits[0]) == 12 and all(h == hits[0] for h in hits)
    assert all(err == "" for _, err in outs)
