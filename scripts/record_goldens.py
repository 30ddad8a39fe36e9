#!/usr/bin/env python3
"""Record what the real clients send on resume as golden data for the tests.

    ORACLE=../shared/oracle scripts/record_goldens.py RUN_DIR SESSIONS_DIR OUT_DIR
    scripts/record_goldens.py --dry-run OUT_DIR FILE...     (the pinned clients on PATH)
    ORACLE=../shared/oracle scripts/record_goldens.py --body FMT OUT_DIR FILE...   (qwen: Chat Completions)

RUN_DIR is the output of the oracle's ``run_all.py --samples SESSIONS_DIR``
(it ran the pinned Claude Code, Codex and pi CLIs on every file, original
and repaired with ``fix --close --drop-torn``; ``-fork`` runs, saved by
hand, are of the fork ``fix --close`` writes for a call dangling inside the
branch). For each run this writes OUT_DIR/<format>-<name>-<orig|fixed|fork>.json: the file (relative to the
repository), whether the client's request was accepted, the model it resumed
with, and the steps it sent (the oracle's digest form: no text is copied), which
tests/model/test_client_goldens.py compares with session-tui's context.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

sys.path.insert(0, os.environ.get("ORACLE", str(Path(__file__).resolve().parents[2] / "shared" / "oracle")))
import compare  # noqa: E402  (the oracle's own reduction, rules R1-R5)


def dry_runs(out: Path, files: list[str]) -> None:
    """``session-tui resume FILE --dry-run --json`` with the installed (pinned)
    clients: OUT/<format>-<name>.json holds the client, its version and model,
    whether the API accepted the request, and its steps (digests, no text)."""
    import subprocess

    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
    from session_tui.model.resume.steps import request_steps
    from tests.support import golden_form

    out.mkdir(parents=True, exist_ok=True)
    root = Path(__file__).resolve().parents[1]
    for file in files:
        path = Path(file).resolve()
        done = subprocess.run(
            [sys.executable, "-m", "session_tui", "resume", str(path), "--dry-run", "--json"],
            capture_output=True,
            text=True,
            cwd=root,
        )
        report = json.loads(done.stdout)
        golden = {
            "file": str(path.relative_to(root)),
            "format": report["client"],
            "client_version": report["client_version"],
            "model": report["model"],
            "wire": report["wire"],
            "accepted": report["accepted"],
            "agrees": report["agrees"],
        }
        steps = golden_form(request_steps(report["wire"], report["request"]))
        text = json.dumps(golden)[:-1] + ', "steps": [\n' + ",\n".join(map(json.dumps, steps)) + "\n]}\n"
        (out / f"{report['client']}-{golden_stem(path)}.json").write_text(text)
        print(f"{path.name}: accepted {report['accepted']}, agrees {report['agrees']}")


def golden_stem(source: Path) -> str:
    """A file's name in its goldens: Copilot CLI's ``<id>/events.jsonl`` by
    its folder (``resumed/<id>/``: ``<id>-resumed``, ``fixed/``: ``-fixed``), an opencode session
    (``<folder>/opencode.db#<id>``) by its database's folder and its id, the others by their stem."""
    if "#" in source.name:
        return f"{source.parent.name}-{source.name.partition('#')[2]}"
    if source.name != "events.jsonl":
        return source.stem
    kind = source.parent.parent.name
    return source.parent.name + (f"-{kind}" if kind in ("resumed", "fixed") else "")


def bodies(fmt: str, out: Path, files: list[str]) -> None:
    """``resume.py FMT FILE --body`` of the oracle (the pinned client) on each
    file, original and repaired with ``fix --close --drop-torn`` (a call
    dangling inside the branch: the fork ``fix --close`` writes, ``-fork``):
    OUT/<format>-<name>-<orig|fixed|fork>.json, the steps in the reduction of
    ``session_tui.model.resume.steps`` (digests, no text)."""
    import shutil
    import subprocess
    import tempfile

    root = Path(__file__).resolve().parents[1]
    sys.path.insert(0, str(root))
    from session_tui.model.resume.steps import request_steps
    from tests.support import golden_form

    resume = Path(compare.__file__).with_name("resume.py")
    out.mkdir(parents=True, exist_ok=True)
    for file in files:
        source = Path(file).resolve()
        with tempfile.TemporaryDirectory() as tmp:
            runs = [("orig", source)]
            copy = Path(tmp) / source.name
            shutil.copyfile(source, copy)
            fixed = subprocess.run(
                [sys.executable, "-m", "session_tui", "fix", str(copy), "--close", "--drop-torn", "--force"],
                capture_output=True,
                text=True,
                cwd=root,
            )
            wrote = [line.removeprefix("wrote ") for line in fixed.stdout.splitlines() if line.startswith("wrote ")]
            if fixed.returncode == 0 and wrote:
                runs.append(("fork", Path(wrote[0])))
            elif fixed.returncode == 0 and "nothing to do" not in fixed.stdout.split("\n", 1)[0]:
                runs.append(("fixed", copy))
            for label, path in runs:
                done = subprocess.run(
                    [sys.executable, str(resume), fmt, str(path), "--body"], capture_output=True, text=True
                )
                res = json.loads(done.stdout)
                golden = {
                    "file": str(source.relative_to(root)),
                    "format": fmt,
                    "repaired": label == "fixed",
                    "fork": label == "fork",
                    "accepted": res.get("accepted"),
                    "client_exit": res.get("exit"),
                    "model": res.get("model"),
                    "wire": res.get("wire"),
                }
                steps = golden_form(request_steps(res["wire"], (res.get("body") or {}).get("messages") or []))
                text = json.dumps(golden)[:-1] + ', "steps": [\n' + ",\n".join(map(json.dumps, steps)) + "\n]}\n"
                (out / f"{fmt}-{golden_stem(source)}-{label}.json").write_text(text)
                print(f"{source.name} {label}: accepted {res.get('accepted')}, {len(steps)} steps")


def main() -> None:
    if sys.argv[1] == "--dry-run":
        dry_runs(Path(sys.argv[2]), sys.argv[3:])
        return
    if sys.argv[1] == "--body":
        bodies(sys.argv[2], Path(sys.argv[3]), sys.argv[4:])
        return
    run, sessions, out = (Path(a) for a in sys.argv[1:4])
    out.mkdir(parents=True, exist_ok=True)
    root = Path(__file__).resolve().parents[1]
    for path in sorted(run.glob("*-orig.json")) + sorted(run.glob("*-fixed.json")) + sorted(run.glob("*-fork.json")):
        data = json.loads(path.read_text())
        res, fmt = data["resume"], data["compare"]["format"]
        stem, label = path.stem.split("-", 1)[1].rsplit("-", 1)
        source = next(sessions.glob(f"{fmt}/{stem}.jsonl"))
        if res.get("wire") == "responses":
            wire = compare.steps_responses(compare.strip_codex(res["messages"])[0])
        else:
            wire = compare.steps_anthropic(compare.strip_claude_tail(res["messages"])[0])
        golden = {
            "file": str(source.resolve().relative_to(root)),
            "format": fmt,
            "repaired": label == "fixed",
            "fork": label == "fork",
            "accepted": res.get("accepted"),
            "client_exit": res.get("exit"),
            "model": res.get("model"),  # the model it resumed with (Claude Code: the oracle's --model)
            "steps": [[list(v) if isinstance(v, tuple) else v for v in s.key()] for s in compare.merge(wire)],
        }
        steps = golden.pop("steps")  # one step a line: goldens diff readably
        text = json.dumps(golden)[:-1] + ', "steps": [\n' + ",\n".join(map(json.dumps, steps)) + "\n]}\n"
        (out / path.name).write_text(text)


if __name__ == "__main__":
    main()
