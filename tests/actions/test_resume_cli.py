"""`session-tui resume` end to end, in real subprocesses, with stand-in
clients (scripts that record how they were run, or post a recorded request
to the fake API): the JSON contract, forks where each client looks, pi's
leaf move, --exec, --fix, the dry run and its refusals. No real client."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from session_tui.model.formats.claude.client import claude_project
from session_tui.model.session.context import context_at
from session_tui.model.session.session import open_session
from tests.support import REPO, SAMPLES

from .stand_ins import PI, pi_session_in, stand_in

CLAUDE = SAMPLES / "claude" / "d7d9f764-42c4-4cfc-85bc-fce56c355e9f.jsonl"  # two leaves
CRASHED_CLAUDE = SAMPLES / "claude" / "e400ea4e-b13c-4400-a7d6-45a85f4a56c7.jsonl"
CODEX = SAMPLES / "codex" / "rollout-2026-03-14T10-30-12-019cebe5-7fec-77d8-9548-5cabe223553b.jsonl"
RECORDED = REPO / "tests" / "data" / "dry-run" / "claude-e400ea4e.json"  # what Claude Code 2.1.328 sent
CLAUDE_CWD = "/home/dev/src/invoice-tools"


def resume(*args: str, home: Path, path: str | None = None, timeout: float = 120) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k not in ("CLAUDE_CONFIG_DIR", "CODEX_HOME", "SESSION_TUI_DEBUG")}
    env["HOME"] = str(home)
    if path is not None:
        env["PATH"] = path
    return subprocess.run(
        [sys.executable, "-m", "session_tui", "resume", *args],
        capture_output=True,
        text=True,
        env=env,
        cwd=home,
        timeout=timeout,
    )


def leaves(path) -> tuple[str, str]:
    """(active leaf id, the other leaf's id)."""
    with open_session(path) as session:
        active = session.active_leaf()
        other = next(leaf for leaf in session.tree.leaf_list() if leaf != active)
        return session.format.entry_id(session.record(active)), session.format.entry_id(session.record(other))


def context_of(path, leaf_id: str | None = None) -> list:
    with open_session(path) as session:
        return context_at(session, None if leaf_id is None else session.find(leaf_id))


def test_a_claude_copy_is_only_said_without_write_and_json_says_what_it_would_write(tmp_path):
    source = shutil.copy(CLAUDE, tmp_path)
    done = resume(source, "--json", home=tmp_path)
    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout)
    assert out["wrote"] is None and out["would_write"]["kind"] == "fork"
    assert not (tmp_path / ".claude").exists()  # nothing written where the client looks
    text = resume(source, home=tmp_path)
    assert "would write: " in text.stdout and "--write" in text.stdout and not (tmp_path / ".claude").exists()


def test_a_claude_copy_is_forked_into_its_project_folder_with_write_and_the_json_says_so(tmp_path):
    source = shutil.copy(CLAUDE, tmp_path)
    before = Path(source).read_bytes()
    done = resume(source, "--json", "--write", home=tmp_path)
    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout)
    folder = tmp_path / ".claude" / "projects" / claude_project(CLAUDE_CWD)
    assert set(out) == {"client", "file", "wrote", "would_write", "session_id", "cwd", "argv"}
    assert out["client"] == "claude" and out["cwd"] == CLAUDE_CWD
    assert out["file"] == str(folder / f"{out['session_id']}.jsonl") and out["wrote"] == {
        "kind": "fork",
        "path": out["file"],
    }
    assert out["argv"] == ["claude", "--resume", out["session_id"]] and out["session_id"] != CLAUDE.stem
    assert Path(source).read_bytes() == before  # the original is only read
    assert context_of(out["file"]) == context_of(source)
    assert "does not exist here" in done.stderr  # the recorded directory


def test_leaf_b_of_an_in_place_claude_session_is_a_fork_with_leaf_bs_context(tmp_path):
    folder = tmp_path / ".claude" / "projects" / claude_project(CLAUDE_CWD)
    folder.mkdir(parents=True)
    source = shutil.copy(CLAUDE, folder)
    at_own = json.loads(resume(source, "--json", home=tmp_path).stdout)
    assert at_own["wrote"] is None and at_own["file"] == source and at_own["session_id"] == CLAUDE.stem
    _, other = leaves(source)
    out = json.loads(resume(source, "--leaf", other, "--json", "--write", home=tmp_path).stdout)
    assert out["wrote"]["kind"] == "fork" and Path(out["file"]).parent == folder
    assert context_of(out["file"]) == context_of(source, other)


def test_codex_forks_into_todays_sessions_folder(tmp_path):
    source = shutil.copy(CODEX, tmp_path)
    out = json.loads(resume(source, "--json", "--write", home=tmp_path).stdout)
    assert out["client"] == "codex" and out["argv"] == ["codex", "resume", "--", out["session_id"]]
    day = Path(out["file"]).parent
    assert day.relative_to(tmp_path / ".codex" / "sessions").parts[0].isdigit() and len(day.parts) > 3
    first = json.loads(Path(out["file"]).read_text().splitlines()[0])
    assert first["payload"]["id"] == out["session_id"] != "019cebe5-7fec-77d8-9548-5cabe223553b"
    assert context_of(out["file"]) == context_of(source)


def test_pi_moves_its_leaf_in_place_through_the_store(tmp_path):
    source = shutil.copy(PI, tmp_path)
    before = Path(source).read_bytes()
    _, other = leaves(source)
    done = resume(source, "--leaf", other, "--write", home=tmp_path)
    assert done.returncode == 0, done.stderr
    assert (
        "wrote: make line" in done.stdout
        and f"wrote into: {source}" in done.stdout
        and "run: cd -- " in done.stdout
        and "pi --session" in done.stdout
    )
    after = Path(source).read_bytes()
    assert after.startswith(before) and after.count(b"\n") == before.count(b"\n") + 1  # one record appended
    assert context_of(source) == context_of(PI, other)
    assert list(tmp_path.glob("*.bak-*")) == []  # an append: nothing to back up


def test_a_line_number_names_the_leaf_too(tmp_path):
    source = shutil.copy(PI, tmp_path)
    _, other = leaves(source)
    with open_session(source) as session:
        line = session.line_of(session.find(other))
    out = json.loads(resume(source, "--leaf", f"L{line}", "--json", "--write", home=tmp_path).stdout)
    assert out["wrote"]["kind"] == "set-leaf" and context_of(source) == context_of(PI, other)


@pytest.mark.parametrize("rel", ["tree/branched-summary.jsonl", "chat/session-fix-rounding.jsonl"])
def test_a_format_without_a_client_is_one_line_and_exit_2(tmp_path, rel):
    done = resume(str(SAMPLES / rel), home=tmp_path)
    assert done.returncode == 2 and done.stdout == "" and len(done.stderr.splitlines()) == 1
    assert "sessions have no client that resumes them" in done.stderr


def test_an_unknown_leaf_is_refused(tmp_path):
    done = resume(str(shutil.copy(PI, tmp_path)), "--leaf", "nope", home=tmp_path)
    assert done.returncode == 1 and "no entry 'nope'" in done.stderr


def test_exec_runs_the_client_in_the_sessions_directory_with_the_command(tmp_path):
    source, project = pi_session_in(tmp_path)
    record = tmp_path / "ran.json"
    bin_dir = tmp_path / "bin"
    stand_in(bin_dir, "pi", f"json.dump({{'argv': sys.argv[1:], 'cwd': os.getcwd()}}, open({str(record)!r}, 'w'))")
    done = resume(str(source), "--exec", home=tmp_path, path=f"{bin_dir}:{os.environ['PATH']}")
    assert done.returncode == 0, done.stderr
    ran = json.loads(record.read_text())
    assert ran == {"argv": ["--session", str(source)], "cwd": str(project)}


def test_exec_without_the_client_on_path_is_one_line(tmp_path):
    source = shutil.copy(PI, tmp_path)
    done = resume(source, "--exec", home=tmp_path, path=str(tmp_path / "empty"))
    assert done.returncode == 2 and "pi is not on PATH" in done.stderr


def test_fix_repairs_first_only_when_asked(tmp_path):
    source = shutil.copy(
        SAMPLES / "pi" / "2026-03-16T08-05-47-300Z_dbdb84be-32de-4686-9dc8-d5ef821477fb.jsonl", tmp_path
    )
    before = Path(source).read_bytes()
    plain = resume(source, home=tmp_path)
    assert plain.returncode == 0 and Path(source).read_bytes() == before  # warned, never repaired silently
    assert "--fix repairs it first" in plain.stderr
    fixed = resume(source, "--fix", home=tmp_path)
    assert fixed.returncode == 0 and fixed.stdout.startswith("fixed: "), fixed.stdout + fixed.stderr
    check = subprocess.run(
        [sys.executable, "-m", "session_tui", "check", "--json", source], capture_output=True, text=True
    )
    assert json.loads(check.stdout)["problems"] == []


# -- the dry run -----------------------------------------------------------------------

POSTS = """
if "--version" in sys.argv:
    print("{version} (Claude Code)")
    sys.exit(0)
import urllib.request
json.dump({{"argv": sys.argv[1:], "cwd": os.getcwd(), "env": dict(os.environ)}}, open({record!r}, "w"))
sent = json.load(open({request!r}))
body = json.dumps({{"model": sent["model"], "messages": sent["messages"], "max_tokens": 100}}).encode()
url = os.environ["ANTHROPIC_BASE_URL"] + "/v1/messages"
call = urllib.request.Request(url, body, {{"content-type": "application/json"}})
try:
    print(urllib.request.urlopen(call).read().decode())
except urllib.error.HTTPError as error:
    print(error.read().decode(), file=sys.stderr)
    sys.exit(1)
"""


def stand_in_claude(tmp_path: Path, request: Path, version: str = "2.1.328") -> tuple[Path, Path]:
    record = tmp_path / "ran.json"
    script = stand_in(
        tmp_path / "bin", "claude", POSTS.format(version=version, record=str(record), request=str(request))
    )
    return script, record


def test_a_dry_run_posts_to_loopback_in_a_throwaway_home_and_agrees(tmp_path):
    home = tmp_path / "home"
    home.mkdir()
    script, record = stand_in_claude(tmp_path, RECORDED)
    source = shutil.copy(CRASHED_CLAUDE, tmp_path)
    before = Path(source).read_bytes()
    done = resume(source, "--dry-run", "--json", "--client-bin", str(script), home=home)
    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout)
    assert set(out) == {
        "client",
        "client_version",
        "model",
        "accepted",
        "rejection",
        "wire",
        "request",
        "agrees",
        "differences",
        "sealed",
        "notes",
        "compaction_request",
    }
    assert out["compaction_request"] is None  # (Codex's only)
    assert out["sealed"].startswith(("sealed: network namespace", "unsealed: "))
    assert (out["client"], out["client_version"], out["wire"]) == ("claude", "2.1.328", "anthropic")
    assert out["accepted"] is True and out["rejection"] is None and out["agrees"] is True and out["differences"] == []
    assert out["request"] == json.loads(RECORDED.read_text())["messages"]
    ran = json.loads(record.read_text())
    assert ran["argv"][:3] == ["-p", "--resume", CRASHED_CLAUDE.stem] and ran["argv"][-1] == "continue"
    env = ran["env"]
    assert env["ANTHROPIC_BASE_URL"].startswith("http://127.0.0.1:") and env["ANTHROPIC_API_KEY"].startswith("sk-ant-")
    assert env["HOME"] != str(home) and not os.path.exists(env["HOME"])  # a throwaway home, removed after
    assert env["DISABLE_TELEMETRY"] == "1" and "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC" in env
    assert Path(source).read_bytes() == before and list(home.iterdir()) == []  # nothing of the user's touched


def test_a_dry_run_at_another_leaf_reports_the_differences(tmp_path):
    script, _ = stand_in_claude(tmp_path, RECORDED)  # (it posts the crashed sample's request whatever it resumes)
    _, other = leaves(CLAUDE)
    done = resume(str(CLAUDE), "--dry-run", "--leaf", other, "--client-bin", str(script), home=tmp_path)
    assert done.returncode == 0, done.stderr
    assert "differs from session-tui's context at the leaf" in done.stdout and "step " in done.stdout


def test_a_request_the_api_would_reject_is_reported_with_its_wording(tmp_path):
    sent = json.loads(RECORDED.read_text())
    sent["messages"] = [
        m
        for m in sent["messages"]
        if not (isinstance(m["content"], list) and any(b.get("type") == "tool_result" for b in m["content"]))
    ]
    broken = tmp_path / "broken.json"
    broken.write_text(json.dumps(sent))
    script, _ = stand_in_claude(tmp_path, broken)
    done = resume(str(CRASHED_CLAUDE), "--dry-run", "--json", "--client-bin", str(script), home=tmp_path)
    assert done.returncode == 1, done.stderr
    out = json.loads(done.stdout)
    assert out["accepted"] is False and out["rejection"]["status"] == 400
    assert "`tool_use` ids were found without `tool_result` blocks immediately after" in out["rejection"]["message"]


def test_no_client_an_unsupported_version_and_a_hang_are_one_line_each(tmp_path):
    missing = resume(str(CLAUDE), "--dry-run", home=tmp_path, path=str(tmp_path / "empty"))
    assert (
        missing.returncode == 2 and "claude is not on PATH" in missing.stderr and len(missing.stderr.splitlines()) == 1
    )
    old, _ = stand_in_claude(tmp_path / "old", RECORDED, version="1.0.3")
    unsupported = resume(str(CLAUDE), "--dry-run", "--client-bin", str(old), home=tmp_path)
    assert unsupported.returncode == 2 and "1.0.3 is not supported" in unsupported.stderr
    hangs = stand_in(
        tmp_path / "hang", "claude", "import time\nif '--version' in sys.argv: print('2.1.328')\nelse: time.sleep(60)"
    )
    slow = resume(str(CLAUDE), "--dry-run", "--timeout", "2", "--client-bin", str(hangs), home=tmp_path)
    assert slow.returncode == 2 and "did not finish within 2 s" in slow.stderr


def test_each_client_gets_only_its_own_dry_run_environment(tmp_path):
    """A dry run's environment holds the client's own quiet switches and fake
    key (``Client.dry_run_env``), never another client's: Qwen Code is not
    handed Claude Code's or pi's variables, nor Anthropic's key."""
    from session_tui.actions.dry_run import base_env
    from session_tui.model.formats import FORMATS

    clients = {name: fmt.client for name, fmt in FORMATS.items() if fmt.client is not None}
    envs = {name: base_env(client, tmp_path) for name, client in clients.items()}
    assert set(envs) == {"claude", "codex", "pi", "gemini", "qwen", "copilot", "opencode"}
    for name, env in envs.items():
        assert env["HOME"] == str(tmp_path) and env["LANG"] == "C.UTF-8" and env["NO_COLOR"] == "1"
        assert set(env) == {"PATH", "HOME", "LANG", "NO_COLOR", *clients[name].dry_run_env}, name
        assert ("CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC" in env) == (name == "claude"), name
        assert ("PI_OFFLINE" in env) == (name == "pi"), name
        assert ("ANTHROPIC_API_KEY" in env) == (name in ("claude", "pi")), name
        assert ("OPENAI_API_KEY" in env) == (name in ("codex", "pi")), name
