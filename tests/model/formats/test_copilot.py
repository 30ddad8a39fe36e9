"""GitHub Copilot CLI 1.0.102 files (tests/data/live-2026-12-03/copilot,
recorded with the real client): sniffed as Copilot's, the tree from the
parentId chain, the context equal to what the real client sent on resume
(tests/golden/copilot-*), the crash found, tokens, hostile ids refused."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from session_tui.model.checked_paths import ResumeRefused
from session_tui.model.formats import FORMATS, sniff
from session_tui.model.formats.copilot.client import CLIENT
from session_tui.model.formats.copilot.reader import INTERRUPTED, WAS_INTERRUPTED
from session_tui.model.resume.steps import context_steps
from session_tui.model.session.context import resume_items
from session_tui.model.session.session import open_session
from tests.support import REPO, check_json, golden_form, run_cli

LIVE = REPO / "tests" / "data" / "live-2026-12-03" / "copilot"
WORK = LIVE / "9a473a5e-524e-45f5-9c38-e1e276be8640" / "events.jsonl"  # 28 steps, parallel calls
PARALLEL = LIVE / "9b18baab-7802-4ab5-91bd-d84a96dbd7d5" / "events.jsonl"  # killed mid parallel call
STREAM = LIVE / "64fe26ee-d2a8-4b12-8f81-4a33d80fd472" / "events.jsonl"  # killed mid-stream
RESUMED = LIVE / "resumed" / "9b18baab-7802-4ab5-91bd-d84a96dbd7d5" / "events.jsonl"  # PARALLEL resumed
FILES = [WORK, PARALLEL, STREAM, RESUMED]


def golden(path: Path) -> dict:
    stem = path.parent.name + ("-resumed" if path.parent.parent.name == "resumed" else "")
    return json.loads((REPO / "tests" / "golden" / f"copilot-{stem}-orig.json").read_text())


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.parent.parent.name[:7] + "/" + p.parent.name[:8])
def test_sniffed_as_copilot(path: Path) -> None:
    objs = [json.loads(line) for line in path.read_text().splitlines()[:5]]
    assert sniff(objs, str(path)) is FORMATS["copilot"]


def test_claude_and_qwen_files_not_taken_for_copilot() -> None:
    others = sorted((REPO / "sample_sessions" / "claude").glob("*.jsonl"))
    others += sorted((REPO / "tests" / "data" / "live-2026-12-03" / "qwen").glob("*.jsonl"))
    assert others
    for path in others:
        objs = []
        for line in path.read_text().splitlines()[:20]:
            try:
                objs.append(json.loads(line))
            except ValueError:  # (a torn line)
                continue
        assert not FORMATS["copilot"].sniff(objs, str(path)), path


def test_tree_is_the_parent_chain() -> None:
    session = open_session(str(WORK))
    tree = session.tree
    assert tree.count == 180
    assert session.active_leaf() == tree.count - 1
    assert len(tree.path_to(session.active_leaf())) == tree.count  # one branch, every event on it
    assert session.record(0)["type"] == "session.start"


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.parent.parent.name[:7] + "/" + p.parent.name[:8])
def test_context_is_what_copilot_sent_on_resume(path: Path) -> None:
    expected = golden(path)
    assert expected["accepted"] is True and expected["wire"] == "chat"
    result = run_cli("export", str(path), "--context", "--to", "json")
    assert result.returncode == 0, result.stderr
    ours = golden_form(context_steps("copilot", json.loads(result.stdout)))
    assert ours == expected["steps"]


def test_parallel_results_in_call_order() -> None:
    # S24's second call finished first; Copilot sends the results in the order of the calls
    session = open_session(str(WORK))
    items = [m for _, m in session.format.context(session, session.active_leaf())]
    ids = [m.get("tool_call_id") for m in items if m["role"] == "tool"]
    s24 = [i for i in ids if "_T5S24" in i]
    assert s24 == sorted(s24) and len(s24) == 2


def test_crash_found_and_filled_as_copilot_fills_it() -> None:
    (report,) = check_json(PARALLEL)
    problems = [p for p in report["problems"] if p["kind"] == "dangling_tool_call"]
    assert len(problems) == 1 and "call__T2S01b_fb80bb26f6" in problems[0]["message"]
    session = open_session(str(PARALLEL))
    sent = resume_items(session)
    added = [s for s in sent if s.added_by]
    assert [s.message["tool_call_id"] for s in added] == ["call__T2S01b_fb80bb26f6"]
    assert added[0].message["content"] == INTERRUPTED
    assert added[0].added_by == CLIENT.title


def test_resumed_file_sends_the_short_interruption_and_is_whole() -> None:
    (report,) = check_json(RESUMED)
    assert not [p for p in report["problems"] if p["kind"] == "dangling_tool_call"]
    session = open_session(str(RESUMED))
    texts = [m["content"] for _, m in session.format.context(session, session.active_leaf()) if m["role"] == "tool"]
    assert WAS_INTERRUPTED in texts


def test_stream_kill_leaves_no_trace() -> None:
    (report,) = check_json(STREAM)
    assert not report["problems"]


def test_tokens_from_usage_records() -> None:
    session = open_session(str(WORK))
    responses = session.format.responses(session)
    assert len(responses) == 28
    assert sum(r.input + r.cache_read + r.cache_write for r in responses) == 244522  # the shutdown's modelMetrics
    assert sum(r.output for r in responses) == 907
    assert {r.model for r in responses} == {"gpt-5.4"}


def test_tokens_from_shutdown_without_usage_records(tmp_path: Path) -> None:
    folder = tmp_path / WORK.parent.name
    folder.mkdir()
    lines = [line for line in WORK.read_text().splitlines() if '"type":"session.usage_record"' not in line]
    (folder / "events.jsonl").write_text("\n".join(lines) + "\n")
    session = open_session(str(folder / "events.jsonl"))
    responses = session.format.responses(session)
    assert [(r.model, r.input, r.output) for r in responses] == [("gpt-5.4", 244522, 907)]


def test_argv_and_ids() -> None:
    session = open_session(str(WORK))
    assert CLIENT.session_id_of(session) == "9a473a5e-524e-45f5-9c38-e1e276be8640"
    assert CLIENT.argv("9a473a5e-524e-45f5-9c38-e1e276be8640", str(WORK)) == [
        "copilot",
        "--resume=9a473a5e-524e-45f5-9c38-e1e276be8640",
    ]
    assert CLIENT.recorded_cwd(session, session.active_leaf()) == "/tmp/cop-rec/work/home/work"


@pytest.mark.parametrize("hostile", ["../../etc", "-x", "9a473a5e-524e-45f5-9c38-e1e276be8640 --yolo", "", "a/b"])
def test_hostile_ids_refused(hostile: str, tmp_path: Path) -> None:
    with pytest.raises(ResumeRefused):
        CLIENT.argv(hostile, str(WORK))
    folder = tmp_path / "9a473a5e-524e-45f5-9c38-e1e276be8640"
    folder.mkdir()
    text = WORK.read_text().replace("9a473a5e-524e-45f5-9c38-e1e276be8640", hostile.replace('"', ""), 1)
    (folder / "events.jsonl").write_text(text)
    session = open_session(str(folder / "events.jsonl"))
    with pytest.raises(ResumeRefused):
        CLIENT.session_id_of(session)


def test_found_in_place_only_in_its_folder(tmp_path: Path) -> None:
    home = tmp_path / "home"
    sid = "9a473a5e-524e-45f5-9c38-e1e276be8640"
    path = home / ".copilot" / "session-state" / sid / "events.jsonl"
    path.parent.mkdir(parents=True)
    path.write_bytes(WORK.read_bytes())
    env = {"HOME": str(home)}
    assert CLIENT.found_in_place(str(path), sid, None, env)
    assert not CLIENT.found_in_place(str(WORK), sid, None, env)
    assert not CLIENT.found_in_place(str(path), "64fe26ee-d2a8-4b12-8f81-4a33d80fd472", None, env)


def test_fix_close_appends_what_copilot_appends_and_it_accepted(tmp_path: Path) -> None:
    folder = tmp_path / PARALLEL.parent.name
    shutil.copytree(PARALLEL.parent, folder)
    path = folder / "events.jsonl"
    fixed = run_cli("fix", str(path), "--close", "--force")
    assert fixed.returncode == 0, fixed.stdout + fixed.stderr
    last = json.loads(path.read_text().splitlines()[-1])
    assert last["type"] == "tool.execution_complete"
    assert last["data"]["toolCallId"] == "call__T2S01b_fb80bb26f6" and last["data"]["success"] is False
    assert last["data"]["error"] == {"message": INTERRUPTED, "code": "interrupted"}
    assert last["parentId"] == json.loads(PARALLEL.read_text().splitlines()[-1])["id"]
    (report,) = check_json(path)
    assert not [p for p in report["problems"] if p["kind"] == "dangling_tool_call"]
    expected = json.loads((REPO / "tests" / "golden" / f"copilot-{PARALLEL.parent.name}-fixed.json").read_text())
    assert expected["repaired"] and expected["accepted"] is True  # the real client resumed the repaired file
    result = run_cli("export", str(path), "--context", "--to", "json")
    assert golden_form(context_steps("copilot", json.loads(result.stdout))) == expected["steps"]


def test_no_fork_of_a_session_folder(tmp_path: Path) -> None:
    folder = tmp_path / WORK.parent.name
    shutil.copytree(WORK.parent, folder)
    entry = json.loads(WORK.read_text().splitlines()[20])["id"]
    result = run_cli("fork", str(folder / "events.jsonl"), entry)
    assert result.returncode != 0
    assert "does not fork" in result.stderr + result.stdout


def test_the_repair_was_accepted_in_the_real_clients_dry_run() -> None:
    fixed = LIVE / "fixed" / PARALLEL.parent.name / "events.jsonl"  # PARALLEL after `fix --close`
    verdict_file = REPO / "tests" / "golden" / "dry-run" / f"copilot-{PARALLEL.parent.name}-fixed.json"
    verdict = json.loads(verdict_file.read_text())
    assert verdict["file"] == str(fixed.relative_to(REPO))
    assert verdict["accepted"] and verdict["agrees"] and verdict["client_version"] == CLIENT.pinned
    (report,) = check_json(fixed)
    assert not [p for p in report["problems"] if p["kind"] == "dangling_tool_call"]
    session = open_session(str(fixed))
    assert not [s for s in resume_items(session) if s.added_by]  # Copilot adds nothing: the file is whole


def test_torn_last_line_is_a_warning(tmp_path: Path) -> None:
    # checked with 1.0.102: it resumes without the fragment (and cuts it from the file)
    folder = tmp_path / STREAM.parent.name
    shutil.copytree(STREAM.parent, folder)
    path = folder / "events.jsonl"
    with path.open("a") as f:
        f.write('{"type":"assistant.message","data":{"messageId":"x","content":"half')
    (report,) = check_json(path)
    torn = [p for p in report["problems"] if "torn" in p["kind"]]
    assert len(torn) == 1 and torn[0]["severity"] == "warning" and "cuts it" in torn[0]["message"]
    result = run_cli("export", str(path), "--context", "--to", "json")
    assert golden_form(context_steps("copilot", json.loads(result.stdout))) == golden(STREAM)["steps"]


def test_the_picker_finds_sessions_in_the_known_folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from session_tui.model.catalog.cache import list_session_files
    from session_tui.model.catalog.info_reader import read_info
    from session_tui.model.catalog.known import default_paths

    state = tmp_path / ".copilot" / "session-state"
    shutil.copytree(PARALLEL.parent, state / PARALLEL.parent.name)
    monkeypatch.setenv("HOME", str(tmp_path))
    assert str(state) in default_paths()
    found = [path for path, _, _ in list_session_files([str(state)])]
    assert found == [str(state / PARALLEL.parent.name / "events.jsonl")]
    info = read_info(found[0])
    assert (info.format, info.title, info.dangling) == ("copilot", "crash-parallel test", True)


def test_resume_of_a_folder_elsewhere_says_where_to_put_it(tmp_path: Path) -> None:
    folder = tmp_path / PARALLEL.parent.name
    shutil.copytree(PARALLEL.parent, folder)
    result = run_cli("resume", str(folder / "events.jsonl"))
    assert result.returncode != 0
    assert "~/.copilot/session-state/" in result.stderr


def test_resume_in_place_is_copilots_own_command(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    state = tmp_path / ".copilot" / "session-state"
    shutil.copytree(WORK.parent, state / WORK.parent.name)
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.delenv("COPILOT_HOME", raising=False)
    result = run_cli("resume", str(state / WORK.parent.name / "events.jsonl"), "--json")
    assert result.returncode == 0, result.stderr
    plan = json.loads(result.stdout)
    assert plan["argv"] == ["copilot", f"--resume={WORK.parent.name}"] and plan["wrote"] is None
