"""The search index: every filter, exact phrases, the active branch, files
that grow, shrink, are replaced or deleted, a killed build, a corrupt index,
the --json contract."""

from __future__ import annotations

import contextlib
import json
import os
import random
import shutil
import signal
import sqlite3
import subprocess
import sys
import threading
import time
from datetime import UTC, datetime

import pytest

from session_tui.model.formats.opencode.database import session_ids
from session_tui.model.search_index.database import NAME, open_database
from session_tui.model.search_index.indexer import catch_up
from session_tui.model.search_index.query import QueryError, parse
from session_tui.model.search_index.search import run_query
from tests.model.fleet.builders import Writer
from tests.support import REPO, SAMPLES


@pytest.fixture
def db(tmp_path):
    connection = open_database(str(tmp_path / "cache"))
    yield connection
    connection.close()


def search(db, text, roots, limit=50):
    catch_up(db, roots)
    return run_query(db, parse(text), roots, limit)


# The archive's clock, pinned: ``after:``/``before:`` take a date, and a
# "now" read at run time put the day between two sessions only in the
# afternoon (UTC); its sessions are at noon, a day apart.
NOON = datetime(2026, 3, 14, 12, 0, tzinfo=UTC).timestamp()


@pytest.fixture
def archive(tmp_path):
    """Three agents' sessions of three formats, written a day apart (at noon UTC)."""
    folder = tmp_path / "sessions"
    folder.mkdir()
    now = NOON
    claude = Writer(folder / "claude.jsonl", "claude", now).prompt("Run alembic downgrade -1 on staging", ago=3 * 86400)
    claude.calls_made("Bash", ago=3 * 86400 - 1).result(0, ago=3 * 86400 - 2, error=True)
    pi = Writer(folder / "pi.jsonl", "pi", now).prompt("Read src/invoice_tools/totals.py — café ☕", ago=2 * 86400)
    pi.calls_made("read", ago=2 * 86400 - 1).result(0, ago=2 * 86400 - 2)
    codex = Writer(folder / "codex.jsonl", "codex", now).prompt("Find the hash 0a1b2c3d4e", ago=86400)
    codex.answer("The commit 0a1b2c3d4e broke the export.", ago=86400 - 1)
    return folder


def test_words_ignore_case_and_phrases_match_exactly_with_punctuation_and_unicode(db, archive):
    roots = [str(archive)]
    assert search(db, "ALEMBIC", roots).total >= 1
    assert search(db, '"alembic downgrade -1"', roots).total >= 1
    assert search(db, '"Alembic downgrade -1"', roots).total == 0  # a phrase is exact
    assert search(db, '"café ☕"', roots).total >= 1
    assert search(db, '"0a1b2c3d4e broke"', roots).hits[0].role == "assistant"
    hit = search(db, '"0a1b2c3d4e"', roots).hits[0]  # the newest first
    assert "«0a1b2c3d4e»" in hit.snippet and hit.file.endswith("codex.jsonl")


def test_a_snippet_is_cut_from_the_string_that_holds_the_match_not_the_ids_beside_it(db, tmp_path):
    folder = tmp_path / "one"
    folder.mkdir()
    Writer(folder / "claude.jsonl", "claude", time.time()).prompt("please run the flaky migration again", ago=60)
    hit = search(db, "flaky", [str(folder)]).hits[0]
    assert hit.snippet == "please run the «flaky» migration again"  # no uuid, session id or cwd around it


def test_an_entry_id_comes_back_as_written_a_uuid_kept_in_its_16_bytes(db, tmp_path):
    folder = tmp_path / "ids"
    folder.mkdir()
    w = Writer(folder / "c.jsonl", "claude", time.time())
    for k in range(3):
        w.prompt(f"kumquat number {k}", ago=60 - k)
    ids = iter(["0f8e2c1a-3b4d-4e5f-8a9b-0c1d2e3f4a5b", "0F8E2C1A-3B4D-4E5F-8A9B-0C1D2E3F4A5B", "msg_01abc"])
    renamed = {}
    records = [json.loads(line) for line in w.path.read_text().splitlines()]
    for record in records:
        if "uuid" in record:
            record["uuid"] = renamed[record["uuid"]] = next(ids)
            record["parentUuid"] = renamed.get(record["parentUuid"], record["parentUuid"])
    w.path.write_text("".join(json.dumps(r) + "\n" for r in records))
    hits = search(db, "kumquat", [str(folder)]).hits
    assert [h.entry for h in hits] == [
        "msg_01abc",
        "0F8E2C1A-3B4D-4E5F-8A9B-0C1D2E3F4A5B",
        "0f8e2c1a-3b4d-4e5f-8a9b-0c1d2e3f4a5b",
    ]
    assert db.execute("SELECT count(*) FROM docs WHERE typeof(entry) = 'blob'").fetchone()[0] == 1


def test_every_filter(db, archive):
    roots = [str(archive)]
    assert {h.role for h in search(db, "staging role:user", roots).hits} == {"user"}
    assert search(db, "staging role:assistant", roots).total == 0
    assert [h.kind for h in search(db, "tool:Bash", roots).hits] == ["result", "call"]
    failed = search(db, "error:", roots)
    assert [(h.kind, h.file.rsplit("/", 1)[-1]) for h in failed.hits] == [("result", "claude.jsonl")]
    assert search(db, "path:pytest", roots).total == 2 and {h.kind for h in search(db, "path:pytest", roots).hits} == {
        "call"
    }
    assert {h.file.rsplit("/", 1)[-1] for h in search(db, "model:sonnet", roots).hits} <= {"claude.jsonl", "pi.jsonl"}
    assert {h.file.rsplit("/", 1)[-1] for h in search(db, "0a1b format:codex", roots).hits} == {"codex.jsonl"}
    day = "2026-03-13T00:00Z"  # between pi (the 12th, noon) and codex (the 13th, noon)
    assert {h.file.rsplit("/", 1)[-1] for h in search(db, f"after:{day} role:user", roots).hits} == {"codex.jsonl"}
    assert "codex.jsonl" not in {h.file.rsplit("/", 1)[-1] for h in search(db, f"before:{day} role:user", roots).hits}
    assert search(db, f"role:user in:{archive}", roots).total == 3
    assert search(db, f"role:user in:{archive / 'elsewhere'}", roots).total == 0


def test_a_query_that_cannot_be_run_is_one_line(db):
    for text, said in (
        ("", "give a word"),
        ("ab", "3 characters"),
        ("role:robot x", "role:robot"),
        ("after:soon x", "not a date"),
    ):
        with pytest.raises(QueryError, match=said):
            parse(text)


def test_hits_off_the_active_branch_say_so_and_branch_active_leaves_them_out(db, tmp_path):
    shutil.copy(SAMPLES / "tree" / "branched-summary.jsonl", tmp_path)
    everywhere = search(db, "expected values", [str(tmp_path)])
    assert any(h.active_branch is False for h in everywhere.hits) and any(h.active_branch for h in everywhere.hits)
    active = search(db, "expected values branch:active", [str(tmp_path)])
    assert active.total < everywhere.total and all(h.active_branch for h in active.hits)


def test_recall_inside_a_big_result_and_a_sub_agent_transcript(db, tmp_path):
    now = time.time()
    w = Writer(tmp_path / "big.jsonl", "claude", now).prompt("Dump it").calls_made("Bash")
    w.calls = w.calls
    with open(w.path, "a") as f:
        payload = "x" * 150_000 + " needle-7f3e9 " + "y" * 150_000
        f.write(
            json.dumps(
                {
                    "type": "user",
                    "uuid": "r1",
                    "parentUuid": w.last,
                    "sessionId": "s1",
                    "timestamp": "2026-03-14T10:00:00Z",
                    "message": {
                        "role": "user",
                        "content": [{"type": "tool_result", "tool_use_id": w.calls[0], "content": payload}],
                    },
                }
            )
            + "\n"
        )
    source = SAMPLES / "claude" / "5b0c7e21-9d3a-4f6e-8a2b-3c4d5e6f7a80"
    shutil.copytree(source, tmp_path / source.name)
    assert search(db, '"needle-7f3e9"', [str(tmp_path)]).hits[0].kind == "result"
    transcript = next((tmp_path / source.name).rglob("*.jsonl"))
    word = json.loads(transcript.read_text().splitlines()[-1])["uuid"]
    assert search(db, f'"{word}"', [str(tmp_path)]).hits[0].file == str(transcript)


def test_a_file_that_grows_is_read_from_where_the_index_stopped(db, tmp_path):
    w = Writer(tmp_path / "s.jsonl", "pi", time.time()).prompt("first turn about apples")
    assert search(db, "apples", [str(tmp_path)]).total == 1
    before = w.path.stat().st_size
    w.answer("second turn about bananas")
    done = catch_up(db, [str(tmp_path)])
    assert done.bytes_read == w.path.stat().st_size - before  # only the appended bytes
    assert search(db, "bananas", [str(tmp_path)]).total == 1 and search(db, "apples", [str(tmp_path)]).total == 1
    assert search(db, "bananas", [str(tmp_path)]).hits[0].line == len(w.path.read_text().splitlines())


def test_a_truncated_or_replaced_file_is_indexed_again_and_a_deleted_one_leaves(db, tmp_path):
    w = Writer(tmp_path / "s.jsonl", "pi", time.time()).prompt("kiwis and mangoes").answer("papayas")
    assert search(db, "papayas", [str(tmp_path)]).total == 1
    lines = w.path.read_text().splitlines(keepends=True)
    w.path.write_text("".join(lines[:-1]))  # truncated
    assert search(db, "papayas", [str(tmp_path)]).total == 0 and search(db, "kiwis", [str(tmp_path)]).total == 1
    Writer(tmp_path / "s.jsonl", "pi", time.time()).prompt("something else entirely: lychees")  # replaced
    assert search(db, "kiwis", [str(tmp_path)]).total == 0 and search(db, "lychees", [str(tmp_path)]).total == 1
    os.unlink(w.path)
    assert search(db, "lychees", [str(tmp_path)]).total == 0
    assert db.execute("SELECT count(*) FROM files").fetchone()[0] == 0


def _files_indexed(path) -> int:
    """How many files a build in progress has committed (read without waiting for its lock)."""
    if not path.exists():
        return 0
    try:
        with contextlib.closing(sqlite3.connect(f"file:{path}?mode=ro", uri=True, timeout=0.1)) as db:
            return db.execute("SELECT count(*) FROM files").fetchone()[0]
    except sqlite3.Error:
        return 0


def test_a_build_killed_mid_way_leaves_a_usable_index_that_finishes_later(tmp_path):
    folder = tmp_path / "sessions"
    folder.mkdir()
    for k in range(60):
        w = Writer(folder / f"s{k:02d}.jsonl", "pi", time.time()).prompt(f"topic number {k} zebra")
        for _ in range(40):
            w.answer("lorem ipsum dolor " * 20)
    cache = tmp_path / "cache"
    env = {**os.environ, "SESSION_TUI_CACHE_DIR": str(cache)}
    child = subprocess.Popen([sys.executable, "-m", "session_tui", "search", "zebra", str(folder)], env=env)
    deadline = time.monotonic() + 30  # (killed once it has committed a file: mid-way)
    while time.monotonic() < deadline and child.poll() is None and not _files_indexed(cache / NAME):
        time.sleep(0.01)
    child.send_signal(signal.SIGKILL)
    child.wait()
    db = open_database(str(cache))
    partial = db.execute("SELECT count(*) FROM files").fetchone()[0]
    assert partial <= 60
    found = search(db, "zebra", [str(folder)], limit=100)  # (all shown: a count past the budget is a lower bound)
    assert found.exact and found.total == 60


def test_a_corrupt_index_is_rebuilt_with_a_one_line_notice(tmp_path):
    cache = tmp_path / "cache"
    cache.mkdir()
    (cache / NAME).write_bytes(b"this is not a database" * 100)
    said = []
    db = open_database(str(cache), notice=said.append)
    assert len(said) == 1 and "building it again" in said[0] and "\n" not in said[0]
    catch_up(db, [str(SAMPLES / "pi")])
    assert run_query(db, parse("rounding"), [str(SAMPLES / "pi")]).total > 0
    assert list(cache.glob(f"{NAME}.corrupt-*"))


def test_an_index_of_an_older_schema_is_built_again_with_its_own_notice(tmp_path):
    cache = tmp_path / "cache"
    db = open_database(str(cache))
    db.execute("UPDATE meta SET value = 1 WHERE key = 'schema'")
    db.close()
    said = []
    db = open_database(str(cache), notice=said.append)
    assert said == ["the search index was made by an older session-tui: building it again"]
    assert not list(cache.glob(f"{NAME}.corrupt-*"))  # (nothing of the user's in it: not kept aside)
    catch_up(db, [str(SAMPLES / "pi")])
    assert run_query(db, parse("rounding"), [str(SAMPLES / "pi")]).total > 0


def test_hits_come_newest_first_across_files_with_filters_alone_too(db, archive):
    roots = [str(archive)]
    for text in ("tool:Bash", "role:user", "the", "role:user the"):
        times = [h.time for h in search(db, text, roots).hits]
        assert times and times == sorted(times, reverse=True), text


def test_hits_of_one_hour_come_newest_first_whatever_order_they_were_indexed_in(db, tmp_path):
    folder = tmp_path / "hour"
    folder.mkdir()
    start = (time.time() // 3600) * 3600 - 7200  # the start of an hour two hours ago
    late = Writer(folder / "a-late.jsonl", "pi", start + 3000).prompt("deploy the flaky service", ago=0)
    early = Writer(folder / "b-early.jsonl", "pi", start + 10).prompt("deploy the flaky service", ago=0)
    assert late and early
    catch_up(db, [str(folder / "a-late.jsonl")])  # the later one indexed first: a lower id in that hour
    hits = search(db, "flaky", [str(folder)]).hits
    assert [h.file.rsplit("/", 1)[-1] for h in hits] == ["a-late.jsonl", "b-early.jsonl"]


def test_two_documents_of_one_hour_indexed_2_20_apart_both_keep_their_place(db, tmp_path):
    from session_tui.model.search_index.database import SEQUENCE

    folder = tmp_path / "same"
    folder.mkdir()
    when = time.time() - 7200
    Writer(folder / "one.jsonl", "pi", when).prompt("first of the hour", ago=0)
    catch_up(db, [str(folder)])
    jump = db.execute("SELECT value FROM meta WHERE key='next_id'").fetchone()[0] + (1 << SEQUENCE) - 2
    db.execute("UPDATE meta SET value = ? WHERE key = 'next_id'", (jump,))  # as if a million documents since
    Writer(folder / "two.jsonl", "pi", when).prompt("second of the hour", ago=0)
    catch_up(db, [str(folder)])
    assert search(db, '"first of the hour"', [str(folder)]).total == 1
    assert search(db, '"second of the hour"', [str(folder)]).total == 1
    from session_tui.model.search_index.database import hour_of

    ids = [row[0] for row in db.execute("SELECT id FROM docs")]
    assert len(set(ids)) == len(ids) and len({hour_of(i) for i in ids}) == 1  # one hour, no id lost


def test_the_json_contract(tmp_path):
    env = {**os.environ, "SESSION_TUI_CACHE_DIR": str(tmp_path / "cache")}
    done = subprocess.run(
        [sys.executable, "-m", "session_tui", "search", '"half-up"', str(SAMPLES), "--json", "--limit", "2"],
        capture_output=True,
        text=True,
        env=env,
        cwd=REPO,
    )
    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout)
    # "total_exact": false only when counting the hits past those shown outran its 15 ms (a loaded CI run)
    assert set(out) - {"total_exact"} == {"hits", "total", "took_ms", "indexed_files"}
    assert out.get("total_exact", False) is False
    sessions = len(list(SAMPLES.rglob("*.jsonl"))) + len(session_ids(str(SAMPLES / "opencode" / "opencode.db")))
    assert len(out["hits"]) == 2 and out["total"] >= 2 and out["indexed_files"] == sessions
    assert all(set(h) == {"file", "line", "entry", "role", "kind", "time", "snippet"} for h in out["hits"])
    assert all("«half-up»" in h["snippet"] for h in out["hits"]) and isinstance(out["took_ms"], float)
    nothing = subprocess.run(
        [sys.executable, "-m", "session_tui", "search", "qqqzzzxxx", str(SAMPLES)],
        capture_output=True,
        text=True,
        env=env,
    )
    assert nothing.returncode == 1


def test_the_quick_look_at_the_bytes_never_hides_a_hit(db, tmp_path):
    """Escaped letters (``\\u0061``), the Kelvin sign (whose lower case is an
    ASCII k), non-ASCII lines: each found as the decoded text holds it."""
    lines = [
        '{"role": "user", "content": "\\u0061lembic upgrade"}',
        '{"role": "user", "content": "\u212aelvin scale"}',
        '{"role": "user", "content": "caf\u00e9 and kumquats"}',
        '{"role": "user", "content": "\\u212aelvinator and \\u0130zmir, caf\\u00e9 plumbus"}',
        '{"role": "user", "content": "caf\\u00e9 \\u00fcber plumbus"}',
    ]
    (tmp_path / "s.jsonl").write_text("\n".join(lines) + "\n")
    roots = [str(tmp_path)]
    assert search(db, "alembic", roots).total == 1 and search(db, '"alembic upgrade"', roots).total == 1
    assert search(db, "KUMQUATS", roots).total == 1 and search(db, "kelvin", roots).total == 2
    assert search(db, "kelvinator", roots).total == 1 and search(db, "i̇zmir", roots).total == 1  # (escaped)
    assert search(db, "plumbus", roots).total == 2 and search(db, '"café über"', roots).total == 1


def test_json_output_carries_no_byte_that_acts_on_a_terminal(tmp_path):
    """A hostile record (an escape sequence, a bidi override) in a snippet:
    the JSON holds the same value, escaped."""
    folder = tmp_path / "s"
    folder.mkdir()
    (folder / "x.jsonl").write_text(
        json.dumps({"role": "user", "content": "evil \x1b]52;c;AAAA\x07 \u202egnp.exe payload"}) + "\n"
    )
    env = {**os.environ, "SESSION_TUI_CACHE_DIR": str(tmp_path / "cache")}
    done = subprocess.run(
        [sys.executable, "-m", "session_tui", "search", "payload", str(folder), "--json"],
        capture_output=True,
        text=True,
        env=env,
    )
    assert done.returncode == 0, done.stderr
    assert "\x1b" not in done.stdout and "\u202e" not in done.stdout and "\x07" not in done.stdout
    assert "\u202e" in json.loads(done.stdout)["hits"][0]["snippet"]  # the same value, escaped


def test_the_live_views_feeder_puts_an_append_in_the_index_before_any_search(tmp_path):
    from session_tui.model.search_index.feeder import IndexFeeder

    folder = tmp_path / "live"
    folder.mkdir()
    writer = Writer(folder / "pi.jsonl", "pi", time.time()).prompt("first words", ago=5)
    cache = str(tmp_path / "cache")
    feeder = IndexFeeder(cache, spacing=0.05)
    try:
        feeder.changed([str(folder / "pi.jsonl")])
        writer.prompt("an appended zebracorn", ago=0)
        feeder.changed([str(folder / "pi.jsonl")])
        db = open_database(cache)
        deadline = time.monotonic() + 10
        while run_query(db, parse("zebracorn"), [str(folder)]).total == 0:  # (no catch-up here: the feeder's)
            assert time.monotonic() < deadline, "the feeder did not catch up"
            time.sleep(0.02)
    finally:
        feeder.close()


def test_a_build_read_by_the_worker_process_is_the_build_read_here(tmp_path, monkeypatch):
    from session_tui.model.search_index import indexer

    folder = tmp_path / "many"
    for name in ("pi", "claude", "codex", "tree"):
        shutil.copytree(SAMPLES / name, folder / name)
    (folder / "tree" / "not-a-session.jsonl").write_bytes(b"\x00\x01 binary, not JSON\n" * 50)  # (read as bad)
    builds = {}
    for mode, threshold in (("here", 1 << 60), ("worker", 0)):
        monkeypatch.setattr(indexer, "PARALLEL_BYTES", threshold)
        db = open_database(str(tmp_path / f"cache-{mode}"))
        done = catch_up(db, [str(folder)])
        columns = "f.path, d.line, d.entry, d.role, d.kind, d.tool, d.time"
        docs = set(db.execute(f"SELECT {columns} FROM docs d JOIN files f ON f.id = d.file"))
        files = set(db.execute("SELECT path, format, indexed_to, lines FROM files"))
        builds[mode] = (done.files, done.documents, docs, files)
        db.close()
    assert builds["worker"] == builds["here"] and builds["here"][1] > 100


def test_a_worker_that_dies_mid_build_leaves_the_rest_read_here(tmp_path, monkeypatch):
    from session_tui.model.search_index import indexer, reader

    folder = tmp_path / "many"
    for name in ("pi", "claude", "tree"):
        shutil.copytree(SAMPLES / name, folder / name)
    monkeypatch.setattr(indexer, "PARALLEL_BYTES", 0)
    asked = []
    ask = reader.Worker.ask

    def ask_then_die(self, *request):
        asked.append(request[0])
        ask(self, *request)
        if len(asked) == 3:
            self.process.kill()  # (killed: as the OOM killer would)

    monkeypatch.setattr(reader.Worker, "ask", ask_then_die)
    db = open_database(str(tmp_path / "cache"))
    done = catch_up(db, [str(folder)])
    files = len(list(folder.rglob("*.jsonl")))
    assert len(asked) >= 3 and done.files == files
    assert search(db, "rounding", [str(folder)]).total > 0


PEM = (
    "-----BEGIN RSA PRIVATE KEY-----\nMIIEpAIBAAKCAQEA7b3xQ"
    + "x" * 60
    + "\nqwerty"
    + "Z" * 60
    + "\n-----END RSA PRIVATE KEY-----"
)
POSTGRES = "postgres://admin:Hunter2Secret99@db.example.com:5432/app"
ANTHROPIC = "sk-ant-api03-" + "q7Xr2LmN9vT4bK8wZp3sY6dH1jF5gC0eA" * 3 + "-xYz9AA"


@pytest.mark.parametrize(
    "secret, body",
    [(PEM, "qwerty" + "Z" * 40), (POSTGRES, "Hunter2Secret99"), (ANTHROPIC, "q7Xr2LmN9vT4bK8wZp3sY6dH1jF5gC0eA")],
)
def test_redact_masks_a_secret_before_the_snippet_is_cut_through_it(db, tmp_path, secret, body):
    from session_tui.model.privacy.redact import Redactor

    folder = tmp_path / "leak"
    folder.mkdir()
    writer = Writer(folder / "claude.jsonl", "claude", NOON)
    for pad in range(0, 120, 7):  # the word at every distance from the secret: some cuts fall inside it
        writer.prompt(f"{'.' * pad}deployword {secret} tail", ago=1000 - pad)
        writer.prompt(f"head {secret} {'.' * pad}deployword", ago=2000 - pad)
    catch_up(db, [str(folder)])
    found = run_query(db, parse("deployword"), [str(folder)], 50, redact=Redactor().text)
    assert found.hits and all(body[:12] not in h.snippet for h in found.hits)
    assert all("«deployword»" in h.snippet for h in found.hits)


def test_model_filter_takes_like_wildcards_as_characters(db, archive):
    roots = [str(archive)]
    assert search(db, "model:sonnet", roots).total > 0
    for wild in ("%", "_", "\\", "son%et", "s_nnet"):
        assert search(db, f"model:{wild}", roots).total == 0, wild
    assert search(db, "model:SONNET", roots).total == search(db, "model:sonnet", roots).total


def test_a_word_only_in_qwens_telemetry_is_not_found_but_in_a_message_it_is(db, tmp_path):
    """Qwen Code's ``ui_telemetry`` records (never sent to the model) stay
    out of the index (``Format.unsearched``): a word only there is no hit,
    the same word in a message is, as the user's."""
    folder = tmp_path / "qwen"
    folder.mkdir()
    sample = SAMPLES / "qwen" / "81b0ca43-4a1a-42e7-89f7-29fc84fa2c9a.jsonl"
    records = [json.loads(line) for line in sample.read_text().splitlines()]
    telemetry = [r for r in records if r.get("subtype") == "ui_telemetry"]
    assert telemetry and all(r["type"] == "system" for r in telemetry)
    telemetry[0]["systemPayload"]["uiEvent"]["model"] = "quokkaflux"
    path = folder / sample.name
    path.write_text("".join(json.dumps(r) + "\n" for r in records))
    assert search(db, "quokkaflux", [str(folder)]).total == 0
    assert search(db, "qwen-code.tool_call", [str(folder)]).total == 0  # (the event's name: no system message hit)
    user = dict(records[0], uuid="0b0b0b0b-0000-4000-8000-000000000001", parentUuid=records[-1]["uuid"])
    user["message"] = {"role": "user", "parts": [{"text": "why is quokkaflux slow?"}]}
    with path.open("a") as out:
        out.write(json.dumps(user) + "\n")
    hits = search(db, "quokkaflux", [str(folder)]).hits
    assert [(hit.role, hit.snippet) for hit in hits] == [("user", "why is «quokkaflux» slow?")]


def test_a_reader_stopped_and_continued_mid_write_sends_every_batch_whole(tmp_path):
    """ctrl+z then ``fg``, a debugger or a profiler stops the index's reader
    process in the middle of writing a batch of megabytes to its pipe; the
    write, cut short, went on from the wrong place (Python's buffered
    writer): the batch arrived at its length with other bytes in it."""
    from session_tui.model.search_index import reader

    sys.path.insert(0, str(REPO / "bench"))
    from gen_tree import generate

    path = tmp_path / "big.jsonl"
    generate(str(path), 4 << 20)
    expected = [(b.docs, b.texts) for b in reader.read_batches(str(path), 0, 0, None, {})]
    worker = reader.Worker()
    done = threading.Event()

    def stop_and_continue() -> None:
        pace = random.Random(7)
        while not done.is_set():
            os.kill(worker.process.pid, signal.SIGSTOP)
            done.wait(pace.random() * 0.003)  # (a stop of up to 3 ms, then up to 5 ms running)
            os.kill(worker.process.pid, signal.SIGCONT)
            done.wait(pace.random() * 0.005)

    pester = threading.Thread(target=stop_and_continue, daemon=True)
    pester.start()
    deadline = threading.Timer(120, worker.process.kill)  # (a garbled length waits forever: then an EOFError)
    deadline.start()
    try:
        for _ in range(8):
            worker.ask(str(path), 0, 0, None, {})
            assert [(b.docs, b.texts) for b in worker.batches()] == expected
    finally:
        deadline.cancel()
        done.set()
        pester.join()
        os.kill(worker.process.pid, signal.SIGCONT)
        worker.close()
