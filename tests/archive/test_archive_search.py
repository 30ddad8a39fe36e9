"""``search`` over the team archive on a real PostgreSQL server: the same
hits, counts and snippets as ``search`` over the same files (the archive's
candidates are checked by the local search's own functions), ``machine:``,
what a push adds, secrets masked at push, bad URLs, hostile queries."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import psycopg
import pytest

from session_tui.model.search_index import archive_search, archive_terms
from session_tui.model.search_index.query import parse
from tests.builders.claude import assistant_record, line, user_record
from tests.support import SAMPLES, run_cli

from .postgres import LIMITED, Cluster
from .test_archive import init, push, tree_lines

BIG = "needle300kb7f3a"
SUB = "subagentneedle42"


def _tree(k: int, text: str, minute: int = 0) -> dict:
    return {
        "type": "message",
        "id": f"e{k}",
        "parentId": f"e{k - 1}" if k else None,
        "createdAt": f"2026-03-15T19:{minute:02d}:{k % 60:02d}.000Z",
        "message": {"role": "user" if k % 2 == 0 else "assistant", "content": text},
    }


def planted(folder: Path) -> Path:
    """The samples of four formats and a Claude Code session (with a
    sub-agent) and a tree session holding the needles; the folder."""
    for fmt in ("claude", "tree", "pi", "codex", "chat"):
        shutil.copytree(SAMPLES / fmt, folder / fmt)
    project = folder / "claude" / "-w-needles"
    project.mkdir()
    session = "a41a41a4-1111-4aaa-8bbb-000000000041"
    records = [
        user_record(1, None, "why does the zqxwvortex loader raise JsonlParserError on line 3?"),
        assistant_record(
            2,
            "u1",
            message_id="m2",
            blocks=[
                {"type": "text", "text": "Let me look: os.path.join(root, '*.jsonl') (the glob) is wrong."},
                {"type": "tool_use", "id": "toolu_41", "name": "Bash", "input": {"command": "cat totals.py"}},
            ],
        ),
        user_record(
            3,
            "u2",
            [{"type": "tool_result", "tool_use_id": "toolu_41", "content": "x" * 200_000 + f" {BIG} " + "y" * 100_000}],
        ),
        assistant_record(4, "u3", message_id="m4", blocks=[{"type": "text", "text": "これは検索テストです。Done."}]),
        user_record(5, "u4", "price 50%_off now; C:\\temp\\new; O'Brien said \"hi\"; '; DROP TABLE lines; --"),
        user_record(6, "u5", "price 50XYoff now and 50%Xoff"),
    ]
    (project / f"{session}.jsonl").write_bytes(b"".join(map(line, records)))
    sub = project / session / "subagents"
    sub.mkdir(parents=True)
    sub_records = [user_record(1, None, f"explore {SUB} please", isSidechain=True)]
    (sub / "agent-a41.jsonl").write_bytes(b"".join(map(line, sub_records)))
    # written by Python's json (ensure_ascii): é, K and / escaped as \\u… in the file
    escaped = [
        _tree(0, "un café crème, s'il vous plaît"),
        _tree(1, "the \u212aELVIN scale at src/main.py"),
        _tree(2, "Ärger über ÉCOLE"),
        _tree(3, "a NUL \x00 (no jsonb for this line) then nulneedle été"),
    ]
    lines = [json.dumps(r) for r in escaped]
    lines[1] = lines[1].replace("/", "\\/")
    (folder / "tree" / "escaped.jsonl").write_text("\n".join(lines) + "\n")
    return folder


QUERIES = [
    "zqxwvortex",  # a rare word
    "ParserErr",  # a piece inside a word
    "\"os.path.join(root, '*.jsonl')\"",  # a phrase with punctuation
    "検索テスト",  # CJK, inside a run of it
    BIG,  # in a 300 KB tool result
    SUB,  # in a sub-agent's file
    '"café crème"',  # escaped in the file (\\u00e9)
    "CAFÉ",  # ignoring case beyond ASCII
    "école",
    "kelvin",  # the Kelvin sign's lower case is k
    '"src/main.py"',  # written \\/ in the file
    '"nulneedle été"',  # in a line jsonb refuses (\\u0000), its é escaped
    "rounding",
    "the",  # in most records
    "role:user the",
    "tool:Bash",
    "tool:Bash cat",  # (a result's tool: the call it answers)
    "error:",
    "path:totals",
    "model:sonnet step",
    "after:2026-03-16 before:2026-03-17 the",
    "format:pi the",
    "50%_off",  # LIKE's wildcards and escape taken literally
    '"C:\\\\temp"',
    '"O\'Brien said"',
    '"\'; DROP TABLE lines; --"',
]


def _search(*args: str) -> dict:
    done = run_cli("search", *args, "--json", "--limit", "1000")
    assert done.returncode in (0, 1), done.stderr
    return json.loads(done.stdout)


def _named(found: dict, prefix: str) -> dict:
    """The hits and their count, each hit's session named as a local one."""
    hits = []
    for hit in found["hits"]:
        assert hit["file"].startswith(prefix), hit["file"]
        hits.append({**hit, "file": hit["file"].removeprefix(prefix)})
    return {"hits": hits, "total": found["total"], "exact": found.get("total_exact", True)}


@pytest.fixture
def archive(db_url, tmp_path) -> tuple[str, Path]:
    folder = planted(tmp_path / "sessions")
    init(db_url)
    done = push(db_url, str(folder), "--machine", "m1", "--no-redact")
    assert done.returncode == 0, done.stderr
    return db_url, folder


@pytest.mark.parametrize("half", [0, 1])
def test_search_of_the_archive_equals_search_of_the_files(archive, half):
    url, folder = archive
    for query in QUERIES[half::2]:
        local = _named(_search(query, str(folder)), "")
        remote = _named(_search(query, url), f"{url}#m1")
        assert remote == local, query
        assert local["exact"], query  # (every hit counted: the comparison is whole)
        assert local["total"] >= 1, query
    assert _named(_search(BIG, url), f"{url}#m1")["total"] == 1
    assert _named(_search("ParserErr", url), f"{url}#m1")["total"] == 1


def test_the_line_numbers_are_the_files(archive):
    url, folder = archive
    found = _search(SUB, url)
    (hit,) = found["hits"]
    path = next(folder.rglob("agent-a41.jsonl"))
    assert hit["file"] == f"{url}#m1{path}" and hit["line"] == 1
    found = _search(BIG, url)
    assert found["hits"][0]["line"] == 3 and "«" + BIG + "»" in found["hits"][0]["snippet"]


def test_one_session_and_the_other_order_of_arguments(archive):
    url, folder = archive
    path = next(folder.rglob("a41a41a4-*.jsonl"))
    one = _search("the", f"{url}#m1{path}")
    assert one["total"] >= 1 and all(h["file"] == f"{url}#m1{path}" for h in one["hits"])
    assert one == {**_search(f"{url}#m1{path}", "the"), "took_ms": one["took_ms"]}
    folder_only = _search("the", f"{url}#m1{folder / 'tree'}")
    assert folder_only["total"] and all(f"#m1{folder / 'tree'}/" in h["file"] for h in folder_only["hits"])


def test_machine_filter_with_two_machines(db_url, tmp_path):
    init(db_url)
    for machine, word in (("laptop", "alpha"), ("ci-runner-7", "beta")):
        folder = tmp_path / machine
        folder.mkdir()
        (folder / "s.jsonl").write_bytes(tree_lines(3, text=f"shared {word}"))
        assert push(db_url, str(folder), "--machine", machine).returncode == 0
    both = _search("shared", db_url)
    assert both["total"] == 6 and both["indexed_files"] == 2
    laptop = _search("shared machine:laptop", db_url)
    assert laptop["total"] == 3 and all(f"#laptop{tmp_path}/laptop/" in h["file"] for h in laptop["hits"])
    assert _search("beta machine:laptop", db_url)["total"] == 0
    assert _search("beta machine:ci-runner-7", db_url)["total"] == 3
    assert _search("shared machine:laptop machine:ci-runner-7", db_url)["total"] == 6
    local = run_cli("search", "shared machine:laptop", str(tmp_path))
    assert local.returncode == 2 and local.stderr.count("\n") == 1 and "DB_URL" in local.stderr


def test_a_grown_files_new_line_is_found_after_the_next_push(db_url, tmp_path):
    init(db_url)
    session = tmp_path / "s.jsonl"
    session.write_bytes(tree_lines(3))
    assert push(db_url, str(tmp_path), "--machine", "m").returncode == 0
    assert _search("grownword", db_url)["total"] == 0
    with session.open("ab") as f:
        f.write(tree_lines(1, start=3, text="a grownword here"))
    assert push(db_url, str(tmp_path), "--machine", "m").returncode == 0
    (hit,) = _search("grownword", db_url)["hits"]
    assert hit["line"] == 4 and hit["file"] == f"{db_url}#m{session}"


def test_a_secret_masked_at_push_is_not_found_by_its_value(db_url, tmp_path):
    from tests.secret_samples import planted as secrets

    _kind, secret, text = secrets(41)[0]
    (tmp_path / "s.jsonl").write_text(json.dumps(_tree(0, f"the key {text} is here")) + "\n")
    init(db_url)
    assert push(db_url, str(tmp_path), "--machine", "m").returncode == 0
    assert _search(f'"{secret}"', db_url)["total"] == 0
    assert _search(secret[4:16], db_url)["total"] == 0
    found = _search("key", db_url)
    assert found["total"] == 1 and secret not in json.dumps(found) and "REDACTED" in found["hits"][0]["snippet"]


def test_bad_urls_and_an_archive_without_tables_are_one_line_and_exit_2(pg: Cluster, db_url):
    from .postgres import free_port

    cases = [
        (db_url, "run `session-tui archive init DB_URL`"),
        (f"postgresql://someone:hunter2-secret@127.0.0.1:{free_port()}/db", "cannot connect"),
        ("postgresql://u@/db?no_such_option=1", "not a valid database URL"),
        (f"{db_url}#machine-without-path", "DB_URL#MACHINE/PATH"),
    ]
    for url, said in cases:
        done = run_cli("search", "anything", url)
        assert done.returncode == 2 and done.stderr.count("\n") == 1 and said in done.stderr, (url, done.stderr)
        assert "Traceback" not in done.stderr and "hunter2-secret" not in done.stderr
    init(db_url)
    mixed = run_cli("search", "anything", db_url, "/tmp")
    assert mixed.returncode == 2 and mixed.stderr.count("\n") == 1
    secret = run_cli("search", "secret:", db_url)
    assert secret.returncode == 2 and secret.stderr.count("\n") == 1


def test_a_hostile_query_is_matched_literally(archive):
    url, folder = archive
    assert _search("50%_off", url)["total"] == 1  # (not "50XYoff", nor "50%Xoff")
    assert _search('"50%Xoff"', url)["total"] == 1
    assert _search('"\'; DROP TABLE lines; --"', url)["total"] == 1
    assert _search('"C:\\\\temp\\\\new"', url)["total"] == 1
    for query in ("%%%", "___", "\\\\\\", "'''", '"%_\\\\"', "a'b\"c%d_e\\f", ".*+?[(|", "[^a]*"):
        remote = _named(_search(query, url), f"{url}#m1")
        assert remote == _named(_search(query, str(folder)), ""), query  # (what the files hold, literally)
    with psycopg.connect(url) as conn:
        assert conn.execute("SELECT count(*) FROM lines").fetchone()[0] > 0


def test_the_index_is_the_one_the_search_asks(archive):
    """The condition of a query is answered by the chunks' trigram index,
    and only the chunk that holds the terms meets it (keys and the JSON's
    structure are not searched text)."""
    url, _ = archive
    where, args, indexed = archive_terms.conditions(parse('ZQXWvortex "JsonlParserError on"'))
    assert indexed and where is not None
    with psycopg.connect(url) as conn:
        conn.execute("SET enable_seqscan = off")
        plan = "\n".join(
            row[0] for row in conn.execute(f"EXPLAIN SELECT c.text FROM chunks c WHERE {where}", args).fetchall()
        )
        assert "chunks_trigrams" in plan
        assert conn.execute(f"SELECT count(*) FROM chunks c WHERE {where}", args).fetchone()[0] == 1
        keys = archive_terms.conditions(parse("parentUuid"))
        assert conn.execute(f"SELECT count(*) FROM chunks c WHERE {keys[0]}", keys[1]).fetchone()[0] == 0


def test_without_pg_trgm_search_says_so_and_reads_every_line(pg: Cluster, tmp_path):
    pg.psql('CREATE DATABASE "no_trgm" OWNER postgres')
    pg.psql(f"GRANT USAGE, CREATE ON SCHEMA public TO {LIMITED}", database="no_trgm")
    url = pg.url(LIMITED, "no_trgm")
    init(url)
    (tmp_path / "s.jsonl").write_bytes(tree_lines(3, text="scanned words"))
    assert push(url, str(tmp_path), "--machine", "m").returncode == 0
    done = run_cli("search", "scanned", url, "--json")
    assert done.returncode == 0 and json.loads(done.stdout)["total"] == 3
    assert done.stderr.count("\n") == 1 and "pg_trgm" in done.stderr


def test_a_results_tool_is_its_last_call_near_far_or_written_escaped(db_url, tmp_path):
    """``tool:`` takes a result's tool from the last call with its id before it, as the local
    index does: a call a line before (looked for in the lines just before), one past
    ``archive_search.NEAR`` bytes (through the chunks' index), and a later call of the same id
    whose line writes the id with a ``\\u`` escape (a nearer one, which the id as written in
    the lines just before would pass over)."""
    project = tmp_path / "claude" / "-w-tools"
    project.mkdir(parents=True)

    def call(n: int, parent: str, tool: str, call_id: str) -> dict:
        block = {"type": "tool_use", "id": call_id, "name": tool, "input": {"command": "ls"}}
        return assistant_record(n, parent, message_id=f"m{n}", blocks=[block])

    def result(n: int, parent: str, call_id: str, text: str) -> dict:
        return user_record(n, parent, [{"type": "tool_result", "tool_use_id": call_id, "content": text}])

    records = [
        user_record(1, None, "go"),
        call(2, "u1", "Bash", "toolu_far"),
        user_record(3, "u2", "filler " * 20_000),  # (140 KB: the call is past NEAR)
        result(4, "u3", "toolu_far", "farresult toolword"),
        call(5, "u4", "Bash", "toolu_dup"),
        call(6, "u5", "Read", "toolu_dup"),  # (written escaped below: the last call of that id)
        result(7, "u6", "toolu_dup", "dupresult toolword"),
        call(8, "u7", "Grep", "toolu_near"),
        result(9, "u8", "toolu_near", "nearresult toolword"),
    ]
    raw = [line(r) for r in records]
    raw[5] = raw[5].replace(b'"toolu_dup"', b'"toolu_\\u0064up"')
    (project / "a41a41a4-2222-4aaa-8bbb-000000000042.jsonl").write_bytes(b"".join(raw))
    assert len(raw[2]) > archive_search.NEAR
    init(db_url)
    assert push(db_url, str(tmp_path), "--machine", "m", "--no-redact").returncode == 0
    for query, hits in [("tool:Bash toolword", 1), ("tool:Read toolword", 1), ("tool:Grep toolword", 1)]:
        local = _named(_search(query, str(tmp_path)), "")
        assert _named(_search(query, db_url), f"{db_url}#m") == local and local["total"] == hits, query
    assert "farresult" in _search("tool:Bash toolword", db_url)["hits"][0]["snippet"]
    assert "dupresult" in _search("tool:Read toolword", db_url)["hits"][0]["snippet"]


def test_a_records_model_is_the_one_named_last_before_it_even_written_escaped(db_url, tmp_path):
    """``model:`` takes a record's model from the last line naming one before it (read back from
    the lines holding ``model``): a tool's big output between is passed over, and a line whose
    key is written ``\\u006dodel`` still names its model."""
    project = tmp_path / "claude" / "-w-models"
    project.mkdir(parents=True)
    first = assistant_record(2, "u1", message_id="m2", model="claude-opus-4-1", blocks=[{"type": "text", "text": "a"}])
    later = assistant_record(4, "u3", message_id="m4", model="claude-haiku-4-5", blocks=[{"type": "text", "text": "b"}])
    records = [
        user_record(1, None, "go"),
        first,
        user_record(3, "u2", "output " * 20_000),
        later,
        user_record(5, "u4", "modelword after the later one"),
    ]
    raw = [line(r) for r in records]
    raw[3] = raw[3].replace(b'"model":"claude-haiku', b'"\\u006dodel":"claude-haiku')
    assert b"\\u006dodel" in raw[3]
    (project / "a41a41a4-3333-4aaa-8bbb-000000000043.jsonl").write_bytes(b"".join(raw))
    init(db_url)
    assert push(db_url, str(tmp_path), "--machine", "m", "--no-redact").returncode == 0
    for query, hits in [("model:haiku modelword", 1), ("model:opus modelword", 0)]:
        local = _named(_search(query, str(tmp_path)), "")
        assert _named(_search(query, db_url), f"{db_url}#m") == local and local["total"] == hits, query


def test_each_candidate_of_a_file_has_the_model_named_last_before_it(db_url, tmp_path):
    """A file's candidates come last first, and the model found for one serves the next ones
    down to the line that names it: one before that line has the model named before it."""
    project = tmp_path / "claude" / "-w-models"
    project.mkdir(parents=True)

    def said(n: int, parent: str | None, model: str) -> dict:
        return assistant_record(n, parent, message_id=f"m{n}", model=model, blocks=[{"type": "text", "text": "ok"}])

    records = [
        said(1, None, "claude-opus-4-1"),
        user_record(2, "a1", "everyword one"),
        said(3, "u2", "claude-haiku-4-5"),
        user_record(4, "a3", "everyword two"),
        user_record(5, "u4", "everyword three"),
        said(6, "u5", "claude-sonnet-4-5"),
        user_record(7, "a6", "everyword four"),
    ]
    (project / "a41a41a4-4444-4aaa-8bbb-000000000044.jsonl").write_bytes(b"".join(map(line, records)))
    init(db_url)
    assert push(db_url, str(tmp_path), "--machine", "m", "--no-redact").returncode == 0
    for query, hits in [("model:opus everyword", 1), ("model:haiku everyword", 2), ("model:sonnet everyword", 1)]:
        local = _named(_search(query, str(tmp_path)), "")
        assert _named(_search(query, db_url), f"{db_url}#m") == local and local["total"] == hits, query
