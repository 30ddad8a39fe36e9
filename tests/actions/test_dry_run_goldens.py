"""What the pinned real clients sent in session-tui's own dry run (recorded
with ``scripts/record_goldens.py --dry-run``): session-tui's context at the
leaf reduces to the same steps, and the oracle's capture of the same client
(tests/golden) to the same steps too. No client needed.

Beside the plain dry runs of every sample and every resumable file of
tests/data/live-2026-12-02, live-2026-12-03 and real, goldens say
``repaired`` (the dry run of a copy after ``fix --close --drop-torn``),
``leaf`` (``resume --leaf B --dry-run``: what the client sent after the fork
or leaf move equals the context at B) and ``resume_model`` (``--model M``;
Codex resumed with another model than the session's first has the history
compacted first, ``compacted``: that request's history is what is compared).
"""

from __future__ import annotations

import json
from pathlib import Path

import orjson
import pytest

from session_tui.actions.export import export
from session_tui.model.formats.opencode.database import list_sessions
from session_tui.model.resume.steps import context_steps, request_steps
from session_tui.model.session.session import open_session
from session_tui.store import edits
from tests.support import REPO, copy_session, golden_form, run_cli

GOLDENS = sorted((REPO / "tests" / "golden" / "dry-run").glob("*.json"))
CLIENTS = ("claude", "codex", "pi", "qwen", "gemini", "copilot", "opencode")
DATA = REPO / "tests" / "data"


def golden_stem(path: Path) -> str:
    """A file's name in its goldens (scripts/record_goldens.py): Copilot CLI's ``<id>/events.jsonl`` by its folder,
    an opencode session (``<folder>/opencode.db#<id>``) by its database's folder and its id."""
    if "#" in path.name:
        return f"{path.parent.name}-{path.name.partition('#')[2]}"
    if path.name != "events.jsonl":
        return path.stem
    return path.parent.name + (f"-{path.parent.parent.name}" if path.parent.parent.name in ("resumed", "fixed") else "")


def sessions_in(folder: Path, fmt: str) -> list[Path]:
    """The sessions of one client in ``folder``: its JSONL files, Copilot CLI's
    ``<id>/events.jsonl`` (also under ``resumed/``, ``fixed/``), each session of an opencode database."""
    if fmt == "copilot":
        return sorted(folder.rglob("events.jsonl"))
    if fmt == "opencode":
        return [Path(name) for db in sorted(folder.rglob("opencode.db")) for name, *_ in list_sessions(str(db))]
    return sorted(folder.glob("*.jsonl"))


def stems() -> set[str]:
    return {g.stem for g in GOLDENS}


def test_every_sample_of_a_client_has_a_dry_run_golden():
    samples = {fmt: sessions_in(REPO / "sample_sessions" / fmt, fmt) for fmt in CLIENTS}
    assert all(samples.values()) and sum(map(len, samples.values())) == 14
    assert {f"{fmt}-{golden_stem(p)}" for fmt, found in samples.items() for p in found} <= stems()


def test_every_resumable_recorded_and_real_file_has_a_dry_run_golden():
    files = {
        (fmt, p)
        for folder in ("live-2026-12-02", "live-2026-12-03", "real")
        for fmt in CLIENTS
        for p in sessions_in(DATA / folder / fmt, fmt)
        if p.name != "example.jsonl"  # (a legacy Codex rollout without a thread id: Codex cannot resume it)
    }
    assert len(files) == 53
    assert {f"{fmt}-{golden_stem(p)}" for fmt, p in files} <= stems()
    # the two opencode crashes repaired by `fix --close`, as opencode then resumes them
    repaired = [json.loads(g.read_text()) for g in GOLDENS if g.stem.startswith("opencode") and "-fixed" in g.stem]
    assert sorted(d["file"].split("/")[-2] for d in repaired if d.get("repaired")) == ["crash", "parallel"]


def _oracle(data: dict, path: Path) -> Path | None:
    """The oracle's golden of the same file (what ``resume.py`` captured), if one was recorded."""
    if data["format"] == "gemini":
        found = REPO / "tests" / "golden" / "gemini" / f"{path.stem}.json"
    else:
        label = "fixed" if data.get("repaired") else "orig"
        found = REPO / "tests" / "golden" / f"{data['format']}-{golden_stem(path)}-{label}.json"
    return found if found.exists() else None


@pytest.mark.parametrize("golden", GOLDENS, ids=[g.stem for g in GOLDENS])
def test_the_dry_run_capture_agrees_with_the_context_and_the_oracle(golden, tmp_path):
    data = json.loads(golden.read_text())
    assert data["agrees"], data.get("differences")
    source = REPO / data["file"]
    path = source
    if data.get("repaired"):
        path = copy_session(source, tmp_path)
        fixed = run_cli("fix", str(path), "--close", "--drop-torn", "--force")
        assert fixed.returncode == 0, fixed.stdout + fixed.stderr
    with open_session(path, data["format"]) as session:
        session.resume_model = data.get("resume_model")  # (None: the session's own, as the dry run)
        leaf = edits.resolve_entry(session, data["leaf"]) if data.get("leaf") else None
        assert leaf is None or leaf != session.active_leaf()  # (a leaf the client would not continue at)
        context = orjson.loads(export(session, "json", leaf, context=True))
    assert golden_form(context_steps(data["format"], context)) == data["steps"]
    oracle = _oracle(data, source)
    if oracle is None or data.get("leaf"):
        assert data["accepted"]
        return
    recorded = json.loads(oracle.read_text())
    assert recorded["accepted"] == data["accepted"]
    if data["format"] != "claude" or recorded.get("model") == data["model"]:
        # (Claude Code sends the thinking of the model it resumes with only: the oracle resumed with
        # claude-sonnet-4-5, the dry run with the session's own model)
        assert recorded["steps"] == data["steps"]


def test_claude_codes_new_turn_is_left_out_however_it_sends_it():
    """Claude Code 2.1.328 resuming a session of a recent model sends the new turn's reminders as a
    message of their own before the prompt, and its environment as a system message after it."""
    history = [{"role": "user", "content": "hi"}, {"role": "assistant", "content": [{"type": "text", "text": "ok"}]}]
    reminder = {"type": "text", "text": "<system-reminder>\nAttribution …\n</system-reminder>"}
    request = [
        *history,
        {"role": "user", "content": [reminder]},
        {"role": "user", "content": [{"type": "text", "text": "continue"}]},
        {"role": "system", "content": [{"type": "text", "text": "# Environment"}]},
    ]
    assert [s.key() for s in request_steps("anthropic", request)] == [
        s.key() for s in request_steps("anthropic", [*history, {"role": "user", "content": "continue"}])
    ]
    assert [s.role for s in request_steps("anthropic", request)] == ["user", "assistant"]


def test_codex_resumed_with_another_model_has_the_history_compacted_first_and_agrees():
    """Codex 0.169 resuming a gpt-5.5 session with its default model (gpt-6.1-sol, no --model) first sends
    the history to be compacted (ending in ``compaction_trigger``; the fake API answers one ``compaction``
    item): what it sent there is the session's context. With --model gpt-5.4 or the session's gpt-5.5 it
    sends the history in the turn itself. Same steps, every way."""
    stem = "codex-rollout-2026-12-02T15-49-34-01a23772-6909-7293-81f9-f1a3c4c978b4"
    runs = {k: json.loads((REPO / "tests/golden/dry-run" / f"{stem}{k}.json").read_text()) for k in ("", *MODELS)}
    default = runs[""]
    assert default["model"] == "gpt-6.1-sol" and default["compacted"] and default["accepted"] and default["agrees"]
    for suffix, model in MODELS.items():
        run = runs[suffix]
        assert run["resume_model"] == run["model"] == model and not run["compacted"] and run["agrees"]
        assert run["steps"] == default["steps"] and len(default["steps"]) > 1
    compacted = [d for d in (json.loads(g.read_text()) for g in GOLDENS) if d.get("compacted")]
    assert len(compacted) >= 4 and all(d["format"] == "codex" and d["agrees"] for d in compacted)


MODELS = {"-model-gpt-5.4": "gpt-5.4", "-model-gpt-5.5": "gpt-5.5"}  # (another model, and the session's own)


def test_a_resume_at_another_leaf_leads_each_client_to_the_context_there():
    """``resume --leaf B --dry-run``: the fork (Claude Code, Codex, Qwen Code, Gemini CLI) or the leaf move (pi) the
    resume writes makes the real client send session-tui's context at B (the parametrized test checks
    the steps). opencode and Copilot CLI sessions are not forked by session-tui (refused)."""
    leaves = {d["format"]: d for d in (json.loads(g.read_text()) for g in GOLDENS) if d.get("leaf")}
    assert set(leaves) == {"claude", "codex", "pi", "qwen", "gemini"}
    assert all(d["accepted"] and d["agrees"] for d in leaves.values())
