"""session-tui's context agrees with what the real clients sent on resume.

tests/golden holds, for every sample and every real session file (scrubbed
copies in tests/data/real, their shape kept), original and repaired with
``fix --close --drop-torn`` (and for tests/data/crashes, calls dangling
inside the branch, the fork ``fix --close`` writes), the steps the pinned Claude Code, Codex and pi
CLIs sent the model when they resumed it (recorded with the oracle; see
scripts/record_goldens.py). Here ``export --context --to json`` is reduced
the same way and must give the same steps: no client, no network.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import orjson
import pytest

from session_tui.actions.export import ADDED_BY, export
from session_tui.model.formats.codex.thread import thread_files
from session_tui.model.resume.steps import context_steps
from session_tui.model.session.context import context_items, resume_items
from session_tui.model.session.session import open_session
from tests.support import REPO, check_json, golden_form, run_cli

GOLDENS = sorted((REPO / "tests" / "golden").glob("*.json"))
#: the model the oracle resumes each client with when a golden does not say
#: (resume.py: Claude Code ``--model claude-sonnet-4-5``; Codex and pi the session's own)
ORACLE_MODEL = {"claude": "claude-sonnet-4-5"}
REAL = REPO / "tests" / "data" / "real"


def _copy(source: Path, folder: Path) -> Path:
    """``source`` copied into ``folder``, with the other files of its Codex
    thread and its sub-agent transcripts (an opencode ``opencode.db#ID``:
    the database's three files)."""
    target = folder / source.name
    database, sep, _ = source.name.partition("#")
    if sep:
        for suffix in ("", "-wal", "-shm"):
            if (source.parent / (database + suffix)).exists():
                shutil.copyfile(source.parent / (database + suffix), folder / (database + suffix))
        return target
    for part in thread_files(str(source)):
        shutil.copyfile(part, folder / Path(part).name)
    beside = source.with_suffix("")
    if beside.is_dir():  # sub-agent transcripts
        shutil.copytree(beside, folder / beside.name)
    return target


@pytest.mark.parametrize("golden", GOLDENS, ids=[g.stem for g in GOLDENS])
def test_context_is_what_the_client_sends(golden, tmp_path):
    data = json.loads(golden.read_text())
    path = _copy(REPO / data["file"], tmp_path)
    if data["repaired"]:
        fixed = run_cli("fix", str(path), "--close", "--drop-torn", "--force")
        assert fixed.returncode == 0, fixed.stdout + fixed.stderr
    if data.get("fork"):  # a call dangling inside the branch: `fix --close` writes a fork with it answered
        fixed = run_cli("fix", str(path), "--close", "--force")
        assert fixed.returncode == 0 and "this file is not changed" in fixed.stdout, fixed.stdout + fixed.stderr
        path = Path(
            next(line.removeprefix("wrote ") for line in fixed.stdout.splitlines() if line.startswith("wrote "))
        )
    assert data["accepted"], "the client's request was refused: nothing to agree with"
    with open_session(path, data["format"]) as session:
        if data["format"] == "claude":  # as the client resumed it (pi's and Codex's: the session's own)
            session.resume_model = data.get("model") or ORACLE_MODEL["claude"]
        context = orjson.loads(export(session, "json", context=True))
    assert golden_form(context_steps(data["format"], context)) == data["steps"]


def test_every_file_has_goldens_original_and_repaired_where_fix_applies():
    recorded = {g.stem for g in GOLDENS}
    files = [p for p in REAL.rglob("*.jsonl") if p.parent.name in ("claude", "codex", "pi")]
    files += list((REPO / "tests" / "data" / "commands").rglob("*.jsonl"))  # (Claude Code's own, with commands)
    assert files and all(f"{p.parent.name}-{p.stem}-orig" in recorded for p in files)
    assert sum(stem.endswith("-fixed") for stem in recorded) >= 6


def test_real_files_show_no_problem_their_client_does_not_see():
    """Healthy files written by the real tools: entries, no error, no fork
    nobody made; the one crashed Codex rollout's dangling call is a warning
    that says what Codex sends."""
    reports = check_json(*sorted(p for p in REAL.rglob("*.jsonl")))
    assert len(reports) == 19
    for rep in reports:
        assert rep["entries"] > 0, rep["path"]
        assert [p for p in rep["problems"] if p["severity"] == "error"] == [] or rep["format"] == "chat", rep
        if rep["format"] in ("claude", "codex", "pi") and "acompact" not in rep["path"]:
            assert rep["branch_points"] == 0 and rep["leaves"] == 1, rep
    warned = [p for rep in reports for p in rep["problems"] if p["severity"] == "warning"]
    assert [p["kind"] for p in warned] == ["dangling_tool_call"] and "aborted" in warned[0]["message"]


def test_additions_are_marked(tmp_path):
    """A crashed Claude Code session: the interrupted result and "No
    response requested." are in the context, marked, never in the file."""
    path = _copy(REPO / "sample_sessions" / "claude" / "3a2dec82-3264-4fa4-bb60-d92b18d2e064.jsonl", tmp_path)
    before = path.read_bytes()
    with open_session(path) as session:
        context = orjson.loads(export(session, "json", context=True))
        sent = resume_items(session)
    added = [m for m in context if ADDED_BY in m]
    assert [m[ADDED_BY] for m in added] == ["Claude Code", "Claude Code"]
    assert added[0]["content"][0]["is_error"] is True and added[1]["content"][0]["text"] == "No response requested."
    assert [s.added_by for s in sent if s.added_by] == ["Claude Code", "Claude Code"]
    assert path.read_bytes() == before


def test_pi_v1_is_read_as_pi_migrates_it_without_rewriting(tmp_path):
    path = _copy(REAL / "pi" / "large-session.jsonl", tmp_path)
    before = path.read_bytes()
    with open_session(path) as session:
        assert session.entries == 1018 and session.tree.leaves == 1
        assert session.record(session.active_leaf()) == orjson.loads(before.splitlines()[-1])
    assert path.read_bytes() == before


def test_pi_v1_compaction_keeps_from_the_record_of_its_index(tmp_path):
    header = {"type": "session", "id": "s", "timestamp": "2025-11-20T00:00:00Z", "cwd": "/tmp"}

    def msg(role, text):
        return {
            "type": "message",
            "timestamp": "2025-11-20T00:00:01Z",
            "message": {"role": role, "content": [{"type": "text", "text": text}]},
        }

    records = [
        header,
        msg("user", "one"),
        msg("assistant", "two"),
        msg("user", "three"),
        msg("assistant", "four"),
        {
            "type": "compaction",
            "timestamp": "2025-11-20T00:00:02Z",
            "summary": "S",
            "firstKeptEntryIndex": 3,
            "tokensBefore": 10,
        },
        msg("user", "five"),
    ]
    path = tmp_path / "v1.jsonl"
    path.write_bytes(b"".join(orjson.dumps(r) + b"\n" for r in records))
    with open_session(path) as session:
        texts = [m["content"][0]["text"] for m in (s.message for s in resume_items(session))]
    assert texts[0].endswith("<summary>\nS\n</summary>") and texts[1:] == ["three", "four", "five"]


def test_legacy_codex_rollout_is_read_but_not_resumed():
    with open_session(REAL / "codex" / "example.jsonl") as session:
        assert session.format.name == "codex" and session.entries == 741
        assert len(context_items(session)) == 741 and resume_items(session) == []
