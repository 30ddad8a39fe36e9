"""Search's chunks (archive schema 4): a long line's searched text in
overlapping pieces, found wherever a term falls in it; the files read a
few at a time, newest first; a file pushed before its chunks existed."""

from __future__ import annotations

import json
import os
from pathlib import Path

import psycopg
import pytest

from session_tui.model.reading.archived import connect
from session_tui.model.reading.searched import CHUNK, OVERLAP, chunks_of
from session_tui.model.search_index import archive_search
from session_tui.model.search_index.archive_search import Where, run_archive_query
from session_tui.model.search_index.query import parse
from tests.support import run_cli

from .test_archive import init, push, tree_lines

STEP = CHUNK - OVERLAP


def _search(*args: str) -> dict:
    done = run_cli("search", *args, "--json", "--limit", "1000")
    assert done.returncode in (0, 1), done.stderr
    return json.loads(done.stdout)


def _named(found: dict, prefix: str) -> dict:
    hits = [{**hit, "file": hit["file"].removeprefix(prefix)} for hit in found["hits"]]
    return {"hits": hits, "total": found["total"]}


def test_chunks_overlap_so_every_short_piece_is_whole_in_one():
    text = "".join(chr(0x41 + k % 26) for k in range(10 * CHUNK + 7))
    pieces = chunks_of(text)
    assert all(len(p) <= CHUNK for p in pieces) and pieces[0] == text[:CHUNK] and text.endswith(pieces[-1])
    for at in range(0, len(text) - OVERLAP, 97):
        assert any(text[at : at + OVERLAP] in p for p in pieces), at
    assert chunks_of("short") == ["short"]


def _long_record(k: int, content: str) -> dict:
    return {
        "type": "message",
        "id": f"e{k}",
        "parentId": f"e{k - 1}" if k else None,
        "createdAt": f"2026-03-15T19:10:{k:02d}.000Z",
        "message": {"role": "user" if k % 2 == 0 else "assistant", "content": content},
    }


def test_terms_anywhere_in_a_long_line_are_found_as_in_the_files(db_url, tmp_path):
    """Words, pieces inside words, a phrase longer than the overlap and two
    words in different chunks of one 40 KB line: the hits of the files."""
    filler = [f"w{n:05d}" for n in range(7000)]
    long_phrase = "a long phrase " * 20  # (280 characters: looked up by its start)
    at = {STEP - 3: "boundaryzulu", 2 * STEP + 5: "HEREsplitWORD", 3 * STEP - 40: long_phrase, 15_000: "farapart"}
    text = " ".join(filler)
    for where, what in sorted(at.items(), reverse=True):
        text = text[:where] + " " + what + " " + text[where:]
    folder = tmp_path / "s"
    folder.mkdir()
    records = [_long_record(0, "short one farapart"), _long_record(1, text), _long_record(2, "w00042 alone")]
    (folder / "long.jsonl").write_text("".join(json.dumps(r) + "\n" for r in records))
    init(db_url)
    assert push(db_url, str(folder), "--machine", "m", "--no-redact").returncode == 0
    with psycopg.connect(db_url) as conn:
        assert conn.execute("SELECT count(*) FROM chunks WHERE NOT whole").fetchone()[0] > 10
    queries = ["boundaryzulu", "ndaryzu", "splitword", "tWORD", f'"{long_phrase.strip()}"', "farapart w06999"]
    queries += ["farapart w00042", '"w00042 alone"', "w0004", "parentId", "createdAt"]
    for query in queries:
        local = _named(_search(query, str(folder)), "")
        remote = _named(_search(query, db_url), f"{db_url}#m")
        assert remote == local, query
        assert local["total"] >= (0 if query in ("parentId", "createdAt") else 1), query


def test_files_read_a_few_at_a_time_give_the_hits_of_one_query(db_url, tmp_path, monkeypatch):
    folder = tmp_path / "many"
    folder.mkdir()
    for n in range(12):
        path = folder / f"s{n:02d}.jsonl"
        records = tree_lines(6, text=f"batchword file{n}")
        if n % 3:  # (entries of another day each: the files' times say nothing of them)
            records = records.replace(b"2026-03-15T", f"2026-03-{n + 10:02d}T".encode())
        path.write_bytes(records)
        os.utime(path, ns=(1_700_000_000_000_000_000 - n * 10**9,) * 2)
    init(db_url)
    assert push(db_url, str(folder), "--machine", "m").returncode == 0
    conn = connect(db_url, read_only=True)
    try:
        where = Where(db_url, [])
        whole = run_archive_query(conn, where, parse("batchword"), limit=1000)
        monkeypatch.setattr(archive_search, "FIRST_BATCH", 1)  # (one file first, then as the hits say)
        cases = [("batchword", 1000), ("batchword", 5), ("batchword", 13), ("role:user", 7), ("file3", 2)]
        for query, limit in cases + [("after:2026-03-16 batchword", 4), ("batchword before:2026-03-15", 3)]:
            batched = run_archive_query(conn, where, parse(query), limit=limit)
            local = run_cli("search", query, str(folder), "--json", "--limit", str(limit))
            expected = json.loads(local.stdout)
            assert [(Path(h.file).name, h.line) for h in batched.hits] == [
                (Path(h["file"]).name, h["line"]) for h in expected["hits"]
            ], query
            if batched.exact and expected.get("total_exact", True):
                assert batched.total == expected["total"], query
        assert whole.total == 72 and whole.exact
    finally:
        conn.close()


def test_a_file_pushed_before_its_chunks_is_read_whole_then_sent_again(db_url, tmp_path):
    (tmp_path / "s.jsonl").write_bytes(tree_lines(4, text="legacyword"))
    init(db_url)
    assert push(db_url, str(tmp_path), "--machine", "m").returncode == 0
    with psycopg.connect(db_url) as conn:  # (as a push of schema 3 left it)
        conn.execute("DELETE FROM chunks")
        conn.execute("UPDATE files SET chunked = false")
    assert _search("legacyword", db_url)["total"] == 4
    again = push(db_url, str(tmp_path), "--machine", "m")
    assert again.returncode == 0 and "indexed for search" in again.stdout, again.stdout
    with psycopg.connect(db_url) as conn:
        assert conn.execute("SELECT count(*), bool_and(chunked) FROM chunks, files").fetchone() == (4, True)
    assert _search("legacyword", db_url)["total"] == 4
    assert "indexed for search" not in push(db_url, str(tmp_path), "--machine", "m").stdout


@pytest.mark.parametrize("text", ["NUL \\u0000 inside nulpiece", "lone \\ud83d surrogatepiece"])
def test_what_a_chunk_cannot_hold_is_cut_around(db_url, tmp_path, text):
    line = '{"type":"message","id":"e0","parentId":null,"createdAt":"2026-03-15T19:10:00.000Z",'
    line += f'"message":{{"role":"user","content":"{text}"}}}}\n'
    (tmp_path / "s.jsonl").write_text(line)
    init(db_url)
    assert push(db_url, str(tmp_path), "--machine", "m", "--no-redact").returncode == 0
    word = text.split()[-1]
    for query in (word, word[2:7]):
        local = _named(_search(query, str(tmp_path)), "")
        assert _named(_search(query, db_url), f"{db_url}#m") == local and local["total"] == 1, query


def test_the_next_batch_asks_for_what_the_page_still_needs():
    read = 4 << 20
    assert archive_search._budget(read, 0, 50) >= 1 << 60  # (none found: the rest at once, one look-up)
    assert archive_search._budget(read, 10, 50) == 2 * read * 5
    assert archive_search._budget(read, 50, 50) == 2 * read
    assert archive_search._budget(1, 1, 50) == archive_search.FIRST_BATCH


def test_a_batch_holds_its_budget_of_bytes_even_when_its_newest_files_are_small():
    sizes = [3_000, 2_000, 5 << 20, 1 << 20, 1 << 20]
    files = [archive_search._File(k, "m", f"/s{k}.jsonl", "tree", None, True, size) for k, size in enumerate(sizes)]
    first = archive_search._next_batch(files, 0, 2 << 20)
    assert [f.id for f in first] == [0, 1, 2]  # (two files of a few KB tell nothing of how rare a word is)
    assert [f.id for f in archive_search._next_batch(files, 3, 1)] == [3]  # (one at least)
    assert [f.id for f in archive_search._next_batch(files, 3, 2 << 20)] == [3, 4]


def test_a_search_reads_one_archive_while_a_push_changes_it(db_url, tmp_path, monkeypatch):
    """The candidates' keys come first and their texts after: a push that commits in between
    (here, every line deleted) changes neither, the search reads one snapshot."""
    (tmp_path / "s.jsonl").write_bytes(tree_lines(30, text="snapword"))
    init(db_url)
    assert push(db_url, str(tmp_path), "--machine", "m", "--no-redact").returncode == 0
    texts = archive_search._texts
    deleted = []

    def texts_after_a_push(conn, group):
        if not deleted:
            with psycopg.connect(db_url, autocommit=True) as other:
                deleted.append(other.execute("DELETE FROM lines").rowcount)
        return texts(conn, group)

    monkeypatch.setattr(archive_search, "_texts", texts_after_a_push)
    with connect(db_url, read_only=True) as conn:
        found = run_archive_query(conn, Where(db_url, []), parse("snapword"), limit=100)
    assert deleted == [30] and found.total == 30 and len(found.hits) == 30
