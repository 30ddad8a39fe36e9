"""The index against what a hostile file, a second process or the disk do:
one writer at a time, no secret at rest, damage rebuilt, a full disk or a
read-only cache said in one line and the index kept."""

from __future__ import annotations

import errno
import json
import os
import stat
import subprocess
import sys
import time

import pytest

from session_tui.model.search_index.database import NAME
from session_tui.model.search_index.feeder import IndexFeeder
from tests.model.fleet.builders import Writer
from tests.support import REPO, tmpfs


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


PEM_BODY = "MIIEpAIBAAKCAQEA7b3xQ" + "Kq9" * 20
PEM = "-----BEGIN RSA PRIVATE KEY-----\n" + PEM_BODY + "\nqwerty" + "Zx" * 30 + "\n-----END RSA PRIVATE KEY-----"
PASSWORD = "Hunter2Secret99"
POSTGRES = f"postgres://admin:{PASSWORD}@db.example.com:5432/app"
ANTHROPIC = "sk-ant-api03-" + "q7Xr2LmN9vT4bK8wZp3sY6dH1jF5gC0eA" * 3 + "-xYz9AA"


def _leaky(folder):
    """A session with a secret in its first bytes and three in its records."""
    folder.mkdir()
    path = folder / "leak.jsonl"
    w = Writer(path, "pi", time.time()).prompt(f"deploy with {POSTGRES} please", ago=30)
    w.prompt(f"the key is {ANTHROPIC} ok", ago=20).prompt(f"the deploy key:\n{PEM}\nthanks", ago=10)
    first, rest = path.read_text().split("\n", 1)
    path.write_text(first.replace("49367314-07c6-4a67-8508-8efab1434a5b", ANTHROPIC) + "\n" + rest)
    assert ANTHROPIC in path.read_bytes()[:256].decode()
    return folder


def test_the_index_keeps_no_secret_at_rest_and_secret_finds_the_records_that_held_one(tmp_path):
    from session_tui.model.search_index.database import open_database
    from session_tui.model.search_index.indexer import catch_up
    from session_tui.model.search_index.query import parse
    from session_tui.model.search_index.search import run_query

    folder = _leaky(tmp_path / "sessions")
    cache = tmp_path / "cache"
    db = open_database(str(cache))
    try:
        catch_up(db, [str(folder)])
        roots = [str(folder)]

        def lines(text):
            return sorted(h.line for h in run_query(db, parse(text), roots).hits)

        assert lines("secret:") == [1, 2, 3, 4]  # (the header's id is the key too)
        assert lines("secret:anthropic-key") == [1, 3] and len(lines("secret:private-key")) == 1
        assert len(lines("deploy secret:url-credentials")) == 1
        assert lines(f'"{ANTHROPIC[10:40]}"') == [] and lines(PASSWORD) == []  # (masked: no trigram of it)
        assert len(lines("deploy")) == 2  # the text around them still found
        stored = b"".join(
            (cache / f"{NAME}{suffix}").read_bytes() for suffix in ("", "-wal") if (cache / f"{NAME}{suffix}").exists()
        )
        for secret in (ANTHROPIC[13:40], PASSWORD, PEM_BODY[:20], "qwertyZx"):
            assert secret.encode() not in stored, secret
        assert stat.S_IMODE(os.stat(cache).st_mode) == 0o700
        for suffix in ("", "-wal", "-shm"):
            assert stat.S_IMODE(os.stat(cache / f"{NAME}{suffix}").st_mode) == 0o600, suffix
    finally:
        db.close()


def test_a_kind_of_secret_that_is_none_is_one_line():
    import pytest

    from session_tui.model.search_index.query import QueryError, parse

    with pytest.raises(QueryError, match="secret:nope: not a kind"):
        parse("secret:nope")


def _run(cache, *args):
    """``search ARGS --json``; every hit shown (``--limit``), so its total is exact: past the hits
    shown, candidates are counted only for a moment (a loaded machine's total is "at least")."""
    child = _search(cache, *args, "--limit", "1000")
    out, err = child.communicate(timeout=120)
    return child.returncode, out, err


def test_damaged_pages_in_the_middle_of_the_index_are_moved_aside_and_built_again(tmp_path):
    folder = _sessions(tmp_path / "sessions", count=40, answers=60)
    cache = tmp_path / "cache"
    code, out, err = _run(cache, "zebra", str(folder))
    assert code == 0, err
    index = cache / NAME
    size = index.stat().st_size
    assert size >= 64 * 4096  # (a real index of many pages)
    with open(index, "r+b") as f:  # every page from a quarter to three quarters overwritten, the header kept
        f.seek(size // 4)
        f.write(b"\xa5" * (size // 2))
    code, out, err = _run(cache, "zebra", str(folder))
    assert code == 0, err
    assert len(err.splitlines()) == 1 and "building it again" in err
    assert json.loads(out)["total"] == 40
    assert len([p for p in cache.glob(f"{NAME}.corrupt-*") if p.name[-1].isdigit()]) == 1  # (and its -wal, -shm)
    code, out, err = _run(cache, "zebra", str(folder))  # and it stays mended
    assert code == 0 and err == "" and json.loads(out)["total"] == 40


def test_a_full_disk_is_one_line_and_the_index_is_kept(tmp_path):
    folder = _sessions(tmp_path / "sessions", count=2, answers=2)
    with tmpfs(tmp_path / "small", "2m") as small:
        cache = small / "cache"
        code, _, err = _run(cache, "zebra", str(folder))
        assert code == 0, err
        kept = (cache / NAME).stat().st_ino
        _sessions(folder / "more", count=20, answers=20)  # (then the disk is filled)
        filler = small / "filler"
        with open(filler, "wb", buffering=0) as f:
            try:
                while True:
                    f.write(b"\0" * 4096)
            except OSError as exc:
                assert exc.errno == errno.ENOSPC
        code, out, err = _run(cache, "zebra", str(folder))
        assert code == 2 and out == "" and len(err.splitlines()) == 1 and "full" in err, err
        assert (cache / NAME).stat().st_ino == kept and not list(cache.glob("*.corrupt-*"))
        filler.unlink()
        code, out, err = _run(cache, "zebra", str(folder))
        assert code == 0 and err == "" and json.loads(out)["total"] == 22, err
        assert (cache / NAME).stat().st_ino == kept


def test_a_read_only_cache_is_one_line_and_the_index_is_kept(tmp_path):
    folder = _sessions(tmp_path / "sessions", count=2, answers=2)
    with tmpfs(tmp_path / "ro", "4m") as ro:
        cache = ro / "cache"
        code, _, err = _run(cache, "zebra", str(folder))
        assert code == 0, err
        before = (cache / NAME).read_bytes()
        _sessions(folder / "more", count=2, answers=2)
        remounted = subprocess.run(["mount", "-o", "remount,ro", str(ro)], capture_output=True)
        if remounted.returncode != 0:
            pytest.skip(f"cannot make the tmpfs read-only: {remounted.stderr.decode().strip()}")
        assert not os.access(cache, os.W_OK)  # (read-only even for root)
        code, out, err = _run(cache, "zebra", str(folder))
        assert code == 2 and out == "" and len(err.splitlines()) == 1 and "Traceback" not in err, err
        subprocess.run(["mount", "-o", "remount,rw", str(ro)], check=True)
        assert (cache / NAME).read_bytes() == before and not list(cache.glob("*.corrupt-*"))


def test_an_unreadable_folder_under_a_root_is_passed_over_with_one_notice(tmp_path, monkeypatch):
    from session_tui.model.search_index.database import open_database
    from session_tui.model.search_index.indexer import catch_up

    folder = _sessions(tmp_path / "sessions", count=2, answers=1)
    locked = folder / "locked"
    _sessions(locked, count=1, answers=1)
    locked.chmod(0)
    try:
        if os.access(locked, os.R_OK):  # (root reads it anyway: the listing is refused as it would be)
            scandir = os.scandir

            def refusing(path=".", *args):
                if os.fspath(path) == str(locked):
                    raise PermissionError(13, "Permission denied", str(path))
                return scandir(path, *args)

            monkeypatch.setattr(os, "scandir", refusing)
        said: list[str] = []
        db = open_database(str(tmp_path / "cache"))
        try:
            done = catch_up(db, [str(folder)], notice=said.append)
        finally:
            db.close()
        assert done.files == 2 and len(said) == 1 and str(locked) in said[0] and "passed over" in said[0]
    finally:
        locked.chmod(0o700)


def test_every_kind_of_secret_among_plain_records_is_masked_in_the_index(tmp_path):
    """The reader masks only the lines the detector's byte prefilter flags
    in a block: each planted secret, between plain records, is still found
    and kept out of the index."""
    from session_tui.model.search_index.database import open_database
    from session_tui.model.search_index.indexer import catch_up
    from session_tui.model.search_index.query import parse
    from session_tui.model.search_index.search import run_query
    from tests.secret_samples import PLANTED

    folder = tmp_path / "sessions"
    folder.mkdir()
    w = Writer(folder / "many.jsonl", "pi", time.time())
    ago = 10_000.0
    for kind, _, text in PLANTED:
        w.prompt("plain words before it, nothing to see", ago=ago)
        w.prompt(f"planted {kind}: {text}", ago=ago - 1)
        ago -= 2
    db = open_database(str(tmp_path / "cache"))
    try:
        catch_up(db, [str(folder)])
        found = run_query(db, parse("planted secret:"), [str(folder)], limit=10_000)
        assert found.total == len(PLANTED)
        assert run_query(db, parse("plain secret:"), [str(folder)]).total == 0
    finally:
        db.close()
