#!/usr/bin/env python3
"""Record what the real clients send on resume as golden data for the tests.

    ORACLE=../shared/oracle scripts/record_goldens.py RUN_DIR SESSIONS_DIR OUT_DIR
    scripts/record_goldens.py --dry-run OUT_DIR [--fixed] [--leaf B] [--model M] FILE...  (the pinned clients on PATH)
    ORACLE=../shared/oracle scripts/record_goldens.py --body FMT OUT_DIR FILE...   (qwen: Chat Completions)

RUN_DIR is the output of the oracle's ``run_all.py --samples SESSIONS_DIR``
(it ran the pinned Claude Code, Codex and pi CLIs on every file, original
and repaired with ``fix --close --drop-torn``; ``-fork`` runs, saved by
hand, are of the fork ``fix --close`` writes for a call dangling inside the
branch). For each run this writes OUT_DIR/<format>-<name>-<orig|fixed|fork>.json: the file (relative to the
repository), whether the client's request was accepted, the model it resumed
with, and the steps it sent (the oracle's digest form: no text is copied), which
tests/model/formats/test_client_goldens.py compares with session-tui's context.
"""

from __future__ import annotations

import json
import os
import shutil
import sys
from pathlib import Path

sys.path.insert(0, os.environ.get("ORACLE", str(Path(__file__).resolve().parents[2] / "shared" / "oracle")))
import compare  # noqa: E402  (the oracle's own reduction, rules R1-R5)


def dry_runs(out: Path, args: list[str]) -> None:
    """``session-tui resume FILE --dry-run --json`` with the installed (pinned)
    clients: OUT/<format>-<name>[-fixed][-leaf-B][-model-M].json holds the
    client, its version and model, whether the API accepted the request, and
    its steps (digests, no text). Options before the files: ``--fixed`` (the
    dry run of a copy repaired with ``fix --close --drop-torn``), ``--leaf B``
    (resumed at entry B), ``--model M`` (resumed with model M)."""
    import argparse
    import subprocess
    import tempfile

    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
    from session_tui.model.resume.steps import request_steps
    from tests.support import copy_session, golden_form

    parser = argparse.ArgumentParser(prog="record_goldens.py --dry-run OUT")
    parser.add_argument("--fixed", action="store_true")
    parser.add_argument("--leaf")
    parser.add_argument("--model")
    parser.add_argument("files", nargs="+")
    opts = parser.parse_args(args)
    out.mkdir(parents=True, exist_ok=True)
    root = Path(__file__).resolve().parents[1]
    for file in opts.files:
        source = Path(file).resolve()
        with tempfile.TemporaryDirectory() as tmp:
            path = source
            if opts.fixed:
                path = copy_session(source, Path(tmp))
                fixed = subprocess.run(
                    [sys.executable, "-m", "session_tui", "fix", str(path), "--close", "--drop-torn", "--force"],
                    capture_output=True,
                    text=True,
                    cwd=root,
                )
                if fixed.returncode != 0 or "nothing to do" in fixed.stdout.split("\n", 1)[0]:
                    print(f"{source.name}: fix did nothing ({fixed.stdout.strip()[:80]}): skipped")
                    continue
            extra = [*(["--leaf", opts.leaf] if opts.leaf else []), *(["--model", opts.model] if opts.model else [])]
            done = subprocess.run(
                [sys.executable, "-m", "session_tui", "resume", str(path), "--dry-run", "--json", *extra],
                capture_output=True,
                text=True,
                cwd=root,
            )
            shutil.rmtree(tmp, ignore_errors=True)
        if done.returncode not in (0, 1):
            print(f"{source.name}: dry run failed: {done.stderr.strip()[:300]}")
            continue
        report = json.loads(done.stdout)
        golden = {
            "file": str(source.relative_to(root)),
            "format": report["client"],
            "client_version": report["client_version"],
            "model": report["model"],
            "wire": report["wire"],
            "accepted": report["accepted"],
            "agrees": report["agrees"],
        }
        name = f"{report['client']}-{golden_stem(source)}"
        if opts.fixed:
            golden["repaired"] = True
            name += "-fixed"
        if opts.leaf:
            golden["leaf"] = opts.leaf
            name += f"-leaf-{opts.leaf}"
        if opts.model:
            golden["resume_model"] = opts.model
            name += f"-model-{opts.model}"
        if report["differences"]:
            golden["differences"] = report["differences"]
        compaction = report.get("compaction_request")
        golden["compacted"] = compaction is not None  # (the history it sent to be compacted is what is compared)
        steps = golden_form(request_steps(report["wire"], compaction if compaction is not None else report["request"]))
        text = json.dumps(golden)[:-1] + ', "steps": [\n' + ",\n".join(map(json.dumps, steps)) + "\n]}\n"
        (out / f"{name}.json").write_text(text)
        print(f"{name}: accepted {report['accepted']}, agrees {report['agrees']} {report['differences'][:3]}")


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
