"""The picker's catalog: metadata from the head and tail of real files, and its cache."""

from __future__ import annotations

import os
import shutil

import orjson
import pytest

from session_tui.model import open_session
from session_tui.model.catalog import (
    CACHE_NAME,
    LIVE_SECONDS,
    SAMPLE_BYTES,
    Catalog,
    file_contains,
    list_session_files,
    match_rank,
    read_info,
)
from tests.support import SAMPLES

from .helpers import call, chain, header, message, result


def write(path, data: bytes) -> str:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)
    return str(path)


def big_tree(entries: int, tail: bytes = b"") -> bytes:
    """A tree session of ``entries`` user messages (well over the sampled
    head and tail), then ``tail``."""
    lines = [header()]
    for i in range(entries):
        lines.append(message(f"m{i}", f"m{i - 1}" if i else None, content=f"message {i} " + "x" * (i % 200)))
    data = b"".join(lines)
    assert len(data) > 4 * SAMPLE_BYTES
    return data + tail


# -- titles ---------------------------------------------------------------------------


@pytest.mark.parametrize("relative, title", [
    ("tree/crash-torn.jsonl", "The CSV exporter integration tests fail on CI. Run them and fix whatever breaks."),
    ("chat/with-sidecar.jsonl", "Rounding question"),  # the sidecar's title
    ("astorlm/3fc3f7d7-a9cc-4b2a-8f1b-80ee252c7110.jsonl", "invoice-tools: failing totals tests"),  # meta.metadata
    ("pi/2026-03-14T09-12-03-417Z_49367314-07c6-4a67-8508-8efab1434a5b.jsonl",
     "Fix half-up rounding in invoice totals"),  # session_info name
    ("claude/d7d9f764-42c4-4cfc-85bc-fce56c355e9f.jsonl", "Fix invoice rounding test failures"),
    # Codex's first user message is injected context: the prompt after it names the session
    ("codex/rollout-2026-03-16T08-20-10-019cf5bb-2c70-734a-8f4d-7f8b69651b42.jsonl",
     "tests/test_dates.py is flaky around midnight UTC. Investigate."),
])
def test_titles_per_format(relative, title):
    info = read_info(str(SAMPLES / relative))
    assert info.title == title
    with open_session(SAMPLES / relative) as session:
        assert (info.format, info.entries, info.exact) == (session.format.name, session.entries, True)


def claude_record(uuid: str, parent: str | None, text: str) -> bytes:
    return orjson.dumps({"type": "user", "uuid": uuid, "parentUuid": parent, "sessionId": "s",
                         "timestamp": "2026-03-14T11:05:00.000Z",
                         "message": {"role": "user", "content": text}}) + b"\n"


def test_claude_title_records_rank_and_need_their_leaf_in_the_file(tmp_path):
    body = claude_record("u1", None, "first prompt") + claude_record("u2", "u1", "second")
    elsewhere = orjson.dumps({"type": "summary", "summary": "Another file's talk", "leafUuid": "zz"}) + b"\n"
    path = write(tmp_path / "a.jsonl", elsewhere + body)
    assert read_info(path).title == "first prompt"  # the summary names a leaf that is not here

    here = orjson.dumps({"type": "summary", "summary": "Summary here", "leafUuid": "u2"}) + b"\n"
    write(tmp_path / "a.jsonl", here + body)
    assert read_info(path).title == "Summary here"

    ai = orjson.dumps({"type": "ai-title", "aiTitle": "AI title", "sessionId": "s"}) + b"\n"
    custom = orjson.dumps({"type": "custom-title", "customTitle": "Mine", "sessionId": "s"}) + b"\n"
    write(tmp_path / "a.jsonl", here + body + custom + ai)  # the user's own title wins, wherever it is
    assert read_info(path).title == "Mine"


def test_a_title_record_at_the_end_of_a_big_file_is_found(tmp_path):
    name = orjson.dumps({"type": "session_info", "id": "ffff0001", "parentId": None,
                         "timestamp": "2026-03-14T11:05:00.000Z", "name": "Named late"}) + b"\n"
    pi_header = orjson.dumps({"type": "session", "version": 3, "id": "p", "timestamp": "2026-03-14T11:05:00Z",
                              "cwd": "/w"}) + b"\n"
    filler = b"".join(orjson.dumps({"type": "message", "id": f"{i:08x}", "parentId": None,
                                    "timestamp": "2026-03-14T11:05:00Z",
                                    "message": {"role": "user", "content": "y" * 300}}) + b"\n"
                      for i in range(2000))
    info = read_info(write(tmp_path / "p.jsonl", pi_header + filler + name))
    assert (info.format, info.title, info.exact) == ("pi", "Named late", False)


# -- entries --------------------------------------------------------------------------


def test_small_files_are_counted_exactly_big_ones_estimated(tmp_path):
    small = write(tmp_path / "small.jsonl", chain(40))
    info = read_info(small)
    assert (info.entries, info.exact) == (40, True)

    big = write(tmp_path / "big.jsonl", big_tree(6000))
    info = read_info(big)
    assert not info.exact
    assert 0.8 * 6000 <= info.entries <= 1.2 * 6000


# -- problems from the tail -----------------------------------------------------------


def test_dangling_call_and_torn_tail_are_seen_in_the_tail_of_a_big_file(tmp_path):
    path = tmp_path / "run.jsonl"
    ends = call("c1", "m5999", "call_1")
    write(path, big_tree(6000, ends))
    info = read_info(str(path))
    assert (info.dangling, info.torn, info.problems()) == (True, False, ["dangling"])

    write(path, big_tree(6000, ends + result("r1", "c1", "call_1")))
    assert read_info(str(path)).problems() == []

    write(path, big_tree(6000, ends + b'{"type":"message","id":"r1","par'))  # the writer died mid-line
    info = read_info(str(path))
    assert (info.dangling, info.torn, info.problems()) == (True, True, ["dangling", "torn"])


def test_a_complete_last_record_without_newline_is_not_torn(tmp_path):
    path = write(tmp_path / "run.jsonl", chain(3) + message("m3", "m2").rstrip(b"\n"))
    info = read_info(path)
    assert (info.torn, info.entries) == (False, 4)


def test_one_response_over_several_records_and_a_later_result_are_paired(tmp_path):
    # Codex: two parallel calls, only one output after them: the other dangles.
    def item(payload):
        return orjson.dumps({"timestamp": "2026-03-14T11:05:00Z", "type": "response_item", "payload": payload}) + b"\n"

    meta = orjson.dumps({"timestamp": "2026-03-14T11:05:00Z", "type": "session_meta", "payload": {"id": "x"}}) + b"\n"
    calls = (item({"type": "function_call", "name": "shell", "arguments": "{}", "call_id": "a"})
             + item({"type": "function_call", "name": "shell", "arguments": "{}", "call_id": "b"}))
    path = tmp_path / "rollout.jsonl"
    write(path, meta + calls + item({"type": "function_call_output", "call_id": "b", "output": "ok"}))
    assert read_info(str(path)).dangling
    write(path, meta + calls + item({"type": "function_call_output", "call_id": "b", "output": "ok"})
          + item({"type": "function_call_output", "call_id": "a", "output": "ok"}))
    assert not read_info(str(path)).dangling


def test_bad_lines_are_counted_only_where_sampled(tmp_path):
    data = big_tree(6000)
    early, middle = data.index(b"\n", 3000) + 1, data.index(b"\n", len(data) // 2) + 1
    path = write(tmp_path / "run.jsonl",
                 data[:early] + b"{not json\n" + data[early:middle] + b"{broken\n" + data[middle:])
    assert read_info(path).bad_lines == 1  # the head's, not the middle's: the file is never read in full


def test_a_file_that_is_not_a_session_is_listed_with_the_reason(tmp_path):
    path = write(tmp_path / "notes.jsonl", b'{"foo": 1}\n')
    info = read_info(path)
    assert (info.format, info.problems()) == (None, ["not a session"])


# -- listing --------------------------------------------------------------------------


def test_listing_is_recursive_marks_subagents_and_skips_symlinked_folders(tmp_path):
    shutil.copytree(SAMPLES / "claude", tmp_path / "projects" / "p")
    (tmp_path / "projects" / "p" / "notes.txt").write_text("not a session file")
    os.symlink(SAMPLES / "tree", tmp_path / "projects" / "linked")
    found = [os.path.relpath(path, tmp_path) for path, _ in list_session_files([str(tmp_path / "projects")])]
    assert len(found) == 5 and not any("linked" in p for p in found)
    infos = {os.path.basename(i.path): i for i in Catalog(str(tmp_path / "cache")).listing([str(tmp_path)])}
    assert infos["agent-a1b2c3d4e5f6a7b8c.jsonl"].subagent
    assert not infos["3a2dec82-3264-4fa4-bb60-d92b18d2e064.jsonl"].subagent


# -- the cache ------------------------------------------------------------------------


def test_cache_hit_miss_and_invalidation_on_size_or_mtime(tmp_path):
    cache = str(tmp_path / "cache")
    path = tmp_path / "s" / "run.jsonl"
    write(path, chain(2) + message("m2", "m1", content="AAAA"))
    os.utime(path, ns=(1_700_000_000_000_000_000, 1_700_000_000_000_000_000))

    first = Catalog(cache)
    [listed] = first.listing([str(tmp_path / "s")])
    assert not listed.known  # a miss: nothing cached yet
    assert first.read(str(path)).entries == 3
    first.save([str(tmp_path / "s")])

    # Same size and mtime with other bytes: the cache answers, the file is not read.
    path.write_bytes(path.read_bytes().replace(b"message 0", b"MESSAGE 0"))
    os.utime(path, ns=(1_700_000_000_000_000_000, 1_700_000_000_000_000_000))
    [hit] = Catalog(cache).listing([str(tmp_path / "s")])
    assert hit.known and hit.title == "message 0"

    os.utime(path, ns=(1_700_000_001_000_000_000, 1_700_000_001_000_000_000))  # only the mtime changes
    [miss] = Catalog(cache).listing([str(tmp_path / "s")])
    assert not miss.known
    assert read_info(str(path)).title == "MESSAGE 0"

    catalog = Catalog(cache)
    catalog.read(str(path))
    catalog.save()
    with open(path, "ab") as f:  # only the size changes (mtime put back)
        f.write(message("m3", "m2"))
    os.utime(path, ns=(1_700_000_001_000_000_000, 1_700_000_001_000_000_000))
    [miss] = Catalog(cache).listing([str(tmp_path / "s")])
    assert not miss.known


def test_a_corrupt_cache_is_ignored_and_replaced(tmp_path):
    cache = tmp_path / "cache"
    cache.mkdir()
    (cache / CACHE_NAME).write_bytes(b'{"version": 1, "files": {"x": [1, 2')
    path = write(tmp_path / "s" / "run.jsonl", chain(2))
    catalog = Catalog(str(cache))
    [info] = catalog.listing([str(tmp_path / "s")])
    assert not info.known
    assert catalog.read(path).entries == 2
    catalog.save()
    assert sorted(os.listdir(cache)) == [CACHE_NAME]  # written by rename: no temp file left
    assert os.path.abspath(path) in orjson.loads((cache / CACHE_NAME).read_bytes())["files"]
    [info] = Catalog(str(cache)).listing([str(tmp_path / "s")])
    assert info.known


def test_entries_of_deleted_files_under_the_roots_are_dropped_others_kept(tmp_path):
    cache = str(tmp_path / "cache")
    a = write(tmp_path / "a" / "one.jsonl", chain(1))
    gone = write(tmp_path / "a" / "two.jsonl", chain(2))
    other = write(tmp_path / "b" / "three.jsonl", chain(3))
    catalog = Catalog(cache)
    for path in (a, gone, other):
        catalog.read(path)
    catalog.save()
    os.unlink(gone)
    catalog = Catalog(cache)
    catalog.listing([str(tmp_path / "a")])
    catalog.save([str(tmp_path / "a")])
    kept = orjson.loads((tmp_path / "cache" / CACHE_NAME).read_bytes())["files"]
    assert sorted(kept) == sorted(map(os.path.abspath, (a, other)))


def test_the_cache_folder_comes_from_the_environment(tmp_path, monkeypatch):
    monkeypatch.setenv("SESSION_TUI_CACHE_DIR", str(tmp_path / "c"))
    catalog = Catalog()
    catalog.read(write(tmp_path / "s" / "run.jsonl", chain(1)))
    catalog.save()
    assert (tmp_path / "c" / CACHE_NAME).exists()


# -- finding files ----------------------------------------------------------------------


def test_file_contains_plain_escaped_and_across_blocks(tmp_path):
    path = write(tmp_path / "run.jsonl", chain(1) + message("m1", "m0", content='Café "quoted"\nnext'))
    assert file_contains(path, "CAFÉ")  # as written (UTF-8), any case
    assert file_contains(path, '"quoted"\nnext')  # JSON-escaped in the file
    assert not file_contains(path, "absent")
    big = write(tmp_path / "big.jsonl", b"a" * ((1 << 20) - 3) + b"needle\n")
    assert file_contains(big, "needle")


def test_match_rank():
    assert match_rank("invoice round", "Fix invoice rounding", "x/y.jsonl") == 0
    assert match_rank("proj invoice", "Fix invoice rounding", "proj/y.jsonl") == 1
    assert match_rank("fxrnd", "Fix invoice rounding", "x/y.jsonl") == 2  # letters in order
    assert match_rank("zzz", "Fix invoice rounding", "x/y.jsonl") is None


def test_a_file_is_live_for_a_few_seconds_after_a_write(tmp_path):
    info = read_info(write(tmp_path / "run.jsonl", chain(1)))
    written = info.mtime_ns / 1e9
    assert info.live(written + 1) and not info.live(written + LIVE_SECONDS + 0.1)
