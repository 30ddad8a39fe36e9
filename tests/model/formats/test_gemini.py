"""Gemini CLI 0.61 recordings: sniffed, folded the way the client folds
them, their context what the real client sent on resume (goldens recorded
with the oracle, tests/golden/gemini; scripts/record_gemini_goldens.py),
tokens, the crash the file shows, and the repair the client accepts."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import orjson
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from session_tui.actions.export import export
from session_tui.model.checked_paths import ResumeRefused
from session_tui.model.formats import get_format, sniff
from session_tui.model.formats.gemini.client import CLIENT
from session_tui.model.formats.gemini.reader import INTERRUPTED
from session_tui.model.resume.steps import context_steps
from session_tui.model.session.session import open_session
from tests.support import REPO, check_json, golden_form, run_cli

DATA = REPO / "tests" / "data" / "live-2026-12-03" / "gemini"
GOLDENS = sorted((REPO / "tests" / "golden" / "gemini").glob("*.json"))
WORK = DATA / "session-2026-12-03T10-12-415406b9.jsonl"  # 28 steps, parallel calls, ends cleanly
SLEEP = DATA / "session-2026-12-03T10-12-3be2e30e.jsonl"  # killed during `sleep 60`
STREAM = DATA / "session-2026-12-03T10-12-76806e44.jsonl"  # killed mid-answer
HEADER = {"sessionId": "415406b9-a746-401f-9627-957e86f3080f", "projectHash": "ab", "kind": "main"}


def _steps(path: Path) -> list:
    with open_session(path) as session:
        return golden_form(context_steps("gemini", orjson.loads(export(session, "json", context=True))))


@pytest.mark.parametrize("golden", GOLDENS, ids=[g.stem for g in GOLDENS])
def test_context_is_what_gemini_cli_sends(golden, tmp_path):
    data = json.loads(golden.read_text())
    path = tmp_path / Path(data["file"]).name
    shutil.copyfile(REPO / data["file"], path)
    assert _steps(path) == data["steps"]


def test_goldens_cover_every_recorded_file_and_only_the_repaired_one_is_accepted():
    recorded = {json.loads(g.read_text())["file"]: json.loads(g.read_text()) for g in GOLDENS}
    files = sorted(DATA.glob("*.jsonl"))
    assert len(files) == 8 and all(str(f.relative_to(REPO)) in recorded for f in files)
    accepted = {Path(f).name for f, g in recorded.items() if g["accepted"]}
    assert accepted == {"session-fixed-415406b9.jsonl", "session-fork-7164c6cb.jsonl"}
    assert all(g["violations"] == ["call_response_count"] for g in recorded.values() if not g["accepted"])


def test_sniffed_as_gemini_not_claude():
    first = [orjson.loads(line) for line in WORK.read_bytes().splitlines()[:3]]
    assert sniff(first) is get_format("gemini")
    assert sniff([{"sessionId": "x", "type": "user", "uuid": "u"}]) is not get_format("gemini")


def _write(path: Path, records: list[dict]) -> Path:
    path.write_bytes(b"".join(orjson.dumps(r) + b"\n" for r in records))
    return path


def _user(i: str, text: str) -> dict:
    return {"id": i, "type": "user", "content": [{"text": text}]}


def _gemini(i: str, text: str, calls: list | None = None) -> dict:
    record = {"id": i, "type": "gemini", "content": text, "thoughts": [], "model": "gemini-2.5-pro"}
    record["tokens"] = {"input": 100, "output": 10, "cached": 40, "thoughts": 5, "tool": 0, "total": 115}
    if calls is not None:
        record["toolCalls"] = calls
    return record


def _texts(path: Path) -> list[tuple[str, str]]:
    with open_session(path) as session:
        context = orjson.loads(export(session, "json", context=True))
    return [(m["role"], " ".join(p.get("text", "") for p in m["parts"])) for m in context]


def test_last_copy_wins_in_the_first_place(tmp_path):
    call = {"id": "shell__c1", "name": "shell", "args": {}, "result": "out", "status": "success"}
    path = _write(
        tmp_path / "session-a.jsonl",
        [HEADER, _user("u1", "one"), _gemini("g1", "first"), _user("u2", "two"), _gemini("g1", "second", [call])],
    )
    with open_session(path) as session:
        context = orjson.loads(export(session, "json", context=True))
        assert session.format.off_branch(session) == set()  # a copy is no branch
    assert [m["role"] for m in context] == ["user", "model", "user", "user"]
    assert context[1]["parts"] == [{"text": "second"}, {"functionCall": {"id": "c1", "name": "shell", "args": {}}}]
    assert context[2]["parts"][0]["functionResponse"]["id"] == "c1"  # the prefix Gemini CLI adds is taken off


def test_a_response_written_again_when_its_calls_finish_is_one_step_everywhere(tmp_path):
    """Gemini CLI writes each response that calls tools twice under one id
    (its text, then with its calls once they are done): the tree, the
    export and the counts show one step, the last copy's, and so does a
    session that saw the first copy before the second was appended."""
    records = [orjson.loads(raw) for raw in SLEEP.read_bytes().splitlines()]
    ids = [r["id"] for r in records if isinstance(r.get("id"), str)]
    assert len(ids) - len(set(ids)) == 2  # (two responses written twice)
    with open_session(SLEEP) as session:
        assert session.entries == 1 + len(set(ids)) == 7  # the snapshot and each message once
        shown = [session.format.view(session.record(e)) for e in range(session.entries)]
        assert [v.id for v in shown[1:]] == list(dict.fromkeys(ids))
        assert [len(v.tool_calls) for v in shown if v.role == "assistant"] == [1, 1, 0]  # the copies with calls
        markdown = export(session, "md")
        whole = session.entries, [session.format.view(session.record(e)) for e in range(session.entries)], markdown
    assert markdown.count("Setting up before the long command.") == 1 and markdown.count("\n## ") == 7
    path = tmp_path / SLEEP.name
    lines = SLEEP.read_bytes().splitlines(keepends=True)
    second = next(n for n, raw in enumerate(lines) if b"toolCalls" in raw and orjson.loads(raw).get("id") == ids[1])
    path.write_bytes(b"".join(lines[:second]))
    with open_session(path) as session:
        assert session.entries == 3 and not session.format.view(session.record(2)).tool_calls
        with open(path, "ab") as f:
            f.write(lines[second])
        change = session.refresh()
        assert (change.new_entries, change.rewritten) == (0, {2})
        assert session.format.view(session.record(2)).tool_calls
        with open(path, "ab") as f:
            f.write(b"".join(lines[second + 1 :]))
        session.refresh()
        views = [session.format.view(session.record(e)) for e in range(session.entries)]
        assert (session.entries, views, export(session, "md")) == whole  # as read at once


def test_rewind_cuts_from_the_message_on_and_keeps_it_off_the_branch(tmp_path):
    records = [HEADER, _user("u1", "one"), _gemini("g1", "a"), _user("u2", "two"), _gemini("g2", "b")]
    path = _write(tmp_path / "session-r.jsonl", [*records, {"$rewindTo": "u2"}, _user("u3", "three")])
    assert _texts(path) == [("user", "one"), ("model", "a"), ("user", "three")]
    with open_session(path) as session:
        assert session.format.off_branch(session) == {2, 3}  # u2 and g2: greyed, still in the tree
        assert session.entries == 6
    unknown = _write(tmp_path / "session-u.jsonl", [*records, {"$rewindTo": "nope"}, _user("u3", "three")])
    assert _texts(unknown) == [("user", "three")]  # an unknown id cuts everything, as Gemini CLI does


def test_a_snapshot_replaces_the_conversation(tmp_path):
    records = [HEADER, _user("u1", "one"), _gemini("g1", "a")]
    snap = {"$set": {"messages": [_user("s1", "kept"), _gemini("s2", "b")], "lastUpdated": "x"}}
    path = _write(tmp_path / "session-s.jsonl", [*records, snap, {"$set": {"lastUpdated": "y"}}, _user("u2", "next")])
    assert _texts(path) == [("user", "kept"), ("model", "b"), ("user", "next")]


@settings(max_examples=60, deadline=None)
@given(
    st.lists(
        st.one_of(
            st.tuples(st.just("msg"), st.sampled_from("abcde"), st.booleans()),
            st.tuples(st.just("rewind"), st.sampled_from("abcdez"), st.just(False)),
        ),
        max_size=12,
    )
)
def test_the_fold_is_a_js_map_with_rewinds(tmp_path_factory, ops):
    """Any mix of records and rewinds gives the conversation Gemini CLI's
    Map gives: a repeated id keeps its place with its last text."""
    records: list[dict] = [HEADER]
    model: dict[str, str] = {}
    for n, (kind, key, user) in enumerate(ops):
        if kind == "rewind":
            records.append({"$rewindTo": key})
            keys = list(model)
            for k in keys[keys.index(key) :] if key in model else keys:
                del model[k]
        else:
            text = f"t{n}"
            records.append(_user(key, text) if user else _gemini(key, text))
            model[key] = ("user" if user else "model", text)
    path = _write(tmp_path_factory.mktemp("fold") / "session-h.jsonl", records)
    assert _texts(path) == list(model.values())


def test_tokens_from_the_last_copy_of_each_response():
    with open_session(WORK) as session:
        responses = session.format.responses(session)
    assert len(responses) == 28
    assert all(r.provider == "google" and r.model == "gemini-2.5-pro" for r in responses)
    last = orjson.loads(WORK.read_bytes().splitlines()[-2])["tokens"]
    assert (responses[-1].input, responses[-1].output, responses[-1].cache_read) == (
        last["input"] - last["cached"],
        last["output"] + last["thoughts"],
        last["cached"],
    )


def test_crash_mid_answer_is_found_where_the_file_shows_it(tmp_path):
    """Killed while the model answered: the file ends on a function
    response; Gemini CLI adds its own "interrupted" model turn on resume."""
    path = tmp_path / STREAM.name
    shutil.copyfile(STREAM, path)
    with open_session(path) as session:
        context = orjson.loads(export(session, "json", context=True))
        last = session.record(session.active_leaf())
    assert last["type"] == "user" and "functionResponse" in last["content"][0]
    assert context[-1]["_added_by"] == "Gemini CLI" and context[-1]["parts"] == [{"text": INTERRUPTED}]


def test_a_call_killed_mid_run_leaves_no_call_in_the_file():
    with open_session(SLEEP) as session:
        last = session.record(session.active_leaf())
    assert last["type"] == "gemini" and "toolCalls" not in last and "long job" in last["content"]


def test_check_says_gemini_cli_will_refuse_the_file():
    (rep,) = check_json(str(SLEEP))
    kinds = [p["kind"] for p in rep["problems"]]
    assert kinds == ["refused_on_resume", "refused_on_resume"]  # not also "result without call"
    assert all("400" in p["message"] and "Gemini CLI 0.61.0" in p["message"] for p in rep["problems"])
    assert [p["line"] for p in rep["problems"]] == [8, 13]


def test_fix_appends_the_snapshot_gemini_cli_resumes(tmp_path):
    path = tmp_path / WORK.name
    shutil.copyfile(WORK, path)
    before = path.read_bytes()
    done = run_cli("fix", str(path), "--force")
    assert done.returncode == 0, done.stdout + done.stderr
    after = path.read_bytes()
    assert after.startswith(before) and after.count(b"\n") == before.count(b"\n") + 1  # append only
    (golden,) = [json.loads(g.read_text()) for g in GOLDENS if g.stem == "session-fixed-415406b9"]
    assert golden["accepted"] and _steps(path) == golden["steps"]  # what the client accepted
    (rep,) = check_json(str(path))
    assert rep["problems"] == []
    with open_session(path) as session:
        last_message = [session.record(e) for e in range(session.entries) if "id" in session.record(e)][-1]["id"]
    assert rep["active_leaf"] == last_message and rep["active_leaf_line"] == after.count(b"\n")  # (the snapshot's)
    again = run_cli("fix", str(path), "--force")
    assert again.returncode == 0 and "nothing to do" in again.stdout


@pytest.mark.parametrize("bad", ["../../etc/passwd", "-rf", "415406b9", "415406B9-A746-401F-9627-957E86F3080F"])
def test_hostile_session_ids_are_refused(tmp_path, bad):
    path = _write(tmp_path / "session-x.jsonl", [{**HEADER, "sessionId": bad}, _user("u1", "one")])
    with open_session(path) as session, pytest.raises(ResumeRefused):
        CLIENT.session_id_of(session)


def test_the_client_resumes_by_the_checked_id_in_its_project_folder(tmp_path):
    home = tmp_path / "home"
    chats = home / ".gemini" / "tmp" / "proj" / "chats"
    chats.mkdir(parents=True)
    (home / ".gemini" / "projects.json").write_text(json.dumps({"projects": {"/work/x": "proj"}}))
    path = chats / WORK.name
    shutil.copyfile(WORK, path)
    env = {"HOME": str(home)}
    with open_session(path) as session:
        sid = CLIENT.session_id_of(session)
    assert CLIENT.argv(sid, str(path)) == ["gemini", "--resume", "415406b9-a746-401f-9627-957e86f3080f"]
    assert CLIENT.found_in_place(str(path), sid, "/work/x", env)
    assert not CLIENT.found_in_place(str(path), sid, "/work/other", env)
    (home / ".gemini" / "projects.json").write_text(json.dumps({"projects": {"/work/x": "../../x"}}))
    with pytest.raises(ResumeRefused):
        CLIENT.sessions_folder("/work/x", env)


DRY_RUNS = sorted((REPO / "tests" / "golden" / "gemini" / "dry-run").glob("*.json"))


@pytest.mark.parametrize("golden", DRY_RUNS, ids=[g.stem for g in DRY_RUNS])
def test_the_dry_run_capture_agrees_with_the_context_and_the_oracle(golden):
    """What Gemini CLI sent in session-tui's own dry run (its fake API
    speaking streamGenerateContent): the context's steps, and the oracle's."""
    data = json.loads(golden.read_text())
    assert data["agrees"] and data["wire"] == "gemini"
    assert data["accepted"] == data["file"].endswith("session-fixed-415406b9.jsonl")  # only the repaired file
    assert _steps(REPO / data["file"]) == data["steps"]
    oracle = json.loads((REPO / "tests" / "golden" / "gemini" / f"{Path(data['file']).stem}.json").read_text())
    assert oracle["steps"] == data["steps"] and oracle["accepted"] == data["accepted"]


def _post(url: str, body: dict) -> tuple[int, bytes]:
    import urllib.error
    import urllib.request

    request = urllib.request.Request(url, json.dumps(body).encode(), {"Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(request, timeout=10) as answer:
            return answer.status, answer.read()
    except urllib.error.HTTPError as error:
        return error.code, error.read()


def test_the_fake_api_answers_gemini_and_refuses_twice_sent_responses():
    from session_tui.actions.fake_api import FakeAPI

    call = {"functionCall": {"id": "c1", "name": "shell", "args": {}}}
    response = {"functionResponse": {"id": "c1", "name": "shell", "response": {"output": "x"}}}
    good = {"contents": [_part("user", {"text": "hi"}), _part("model", call), _part("user", response)]}
    twice = {"contents": [*good["contents"][:2], {"role": "user", "parts": [response, response]}]}
    api = FakeAPI()
    try:
        base = f"{api.url}/v1beta/models/gemini-2.5-pro"
        status, data = _post(f"{base}:streamGenerateContent?alt=sse", good)
        assert status == 200 and data.startswith(b"data: ") and b'"finishReason": "STOP"' in data
        status, data = _post(f"{base}:streamGenerateContent?alt=sse", twice)
        error = json.loads(data)["error"]
        assert status == 400 and error["status"] == "INVALID_ARGUMENT"
        assert "number of function response parts" in error["message"]
        assert _post(f"{base}:countTokens", good)[0] == 200
        assert [(r.wire, r.status) for r in api.requests()] == [("gemini", 200), ("gemini", 400), (None, 200)]
    finally:
        api.stop()


def _part(role: str, part: dict) -> dict:
    return {"role": role, "parts": [part]}


def test_a_call_and_its_result_show_with_the_id_sent_and_a_tool_error_marked(tmp_path):
    call = {"id": "read_file__c9", "name": "read_file", "args": {"p": 1}, "status": "error"}
    failed = {"functionResponse": {"id": "read_file__c9", "name": "read_file", "response": {"error": "no such file"}}}
    call["result"] = [failed]
    path = _write(tmp_path / "session-e.jsonl", [HEADER, _user("u1", "x"), _gemini("g1", "", [call])])
    with open(path, "ab") as f:
        f.write(orjson.dumps({"id": "u2", "type": "user", "content": [failed]}) + b"\n")
    with open_session(path) as session:
        views = [session.format.view(session.record(e)) for e in range(session.entries)]
    assert views[1].tool_calls[0].id == "c9" and views[2].result_for == "c9"
    assert views[2].role == "tool" and views[2].is_error and "no such file" in views[2].text


def test_a_fork_is_a_new_session_gemini_cli_resumes(tmp_path):
    """A new sessionId, named as Gemini CLI names a session, holding one
    snapshot of the conversation at the row (the recorded fork of the repaired
    file was accepted by the real client: its golden)."""
    source = tmp_path / "session-fixed-415406b9.jsonl"
    shutil.copyfile(DATA / source.name, source)
    lines = len(source.read_bytes().splitlines())
    done = run_cli("fork", str(source), f"L{lines}")
    assert done.returncode == 0, done.stdout + done.stderr
    (fork,) = [p for p in tmp_path.glob("session-2*.jsonl")]
    header, snap = (orjson.loads(line) for line in fork.read_bytes().splitlines())
    assert header["sessionId"] != HEADER["sessionId"] and fork.name.endswith(f"-{header['sessionId'][:8]}.jsonl")
    assert list(snap) == ["$set"] and _steps(fork) == _steps(source)
    recorded = json.loads((REPO / "tests" / "golden" / "gemini" / "session-fork-7164c6cb.json").read_text())
    assert recorded["accepted"] and recorded["steps"] == _steps(fork)


def test_a_fork_at_a_leaf_of_a_file_0_61_refuses_leaves_out_what_it_sends_twice(tmp_path):
    """``resume --leaf B`` of a file Gemini CLI wrote (0.61 resumes it with
    each function response twice: a 400) forks at B in the form ``fix``
    appends: one snapshot without the repeated ``user`` records. The real
    client accepted that fork and sent exactly the context at B (its dry-run
    golden, ``-leaf-``); the context at a row before the end is that fork's."""
    from session_tui.model.formats.gemini.history import fold
    from session_tui.model.formats.gemini.reader import twice_sent
    from session_tui.store import edits

    source = tmp_path / WORK.name
    shutil.copyfile(WORK, source)
    leaf_id = "af788358-3520-409a-aa82-79554234d9e0"
    with open_session(source) as session:
        leaf = edits.resolve_entry(session, leaf_id)
        assert leaf != session.active_leaf()
        repeated = {session.record(entry)["id"] for entry, _ in twice_sent(session, leaf)}
        folded = len(fold(session, leaf).messages)
        assert len(repeated) == 10  # (each step's user record of responses, up to B)
        at_leaf = golden_form(context_steps("gemini", orjson.loads(export(session, "json", leaf, context=True))))
    done = run_cli("fork", str(source), leaf_id)
    assert done.returncode == 0, done.stdout + done.stderr
    (fork,) = [p for p in tmp_path.glob("session-2*.jsonl") if p != source]
    header, snap = (orjson.loads(line) for line in fork.read_bytes().splitlines())
    messages = snap["$set"]["messages"]
    assert header["sessionId"] != HEADER["sessionId"] and messages[-1]["id"] == leaf_id
    assert not repeated & {m["id"] for m in messages} and len(messages) == folded - len(repeated)
    assert _steps(fork) == at_leaf  # (and nothing 0.61 would send twice: it accepts the fork)
    with open_session(fork) as opened:
        assert twice_sent(opened) == []
    golden = REPO / "tests" / "golden" / "dry-run" / f"gemini-{WORK.stem}-leaf-{leaf_id}.json"
    recorded = json.loads(golden.read_text())
    assert recorded["accepted"] and recorded["agrees"] and recorded["steps"] == at_leaf
