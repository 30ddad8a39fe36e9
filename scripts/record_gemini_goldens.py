#!/usr/bin/env python3
"""Record what Gemini CLI 0.61 sends when it resumes each file of
tests/data/live-2026-12-03/gemini, as goldens in tests/golden/gemini.

    ORACLE=../shared/oracle scripts/record_gemini_goldens.py [FILE...]

Runs the oracle's ``resume.py gemini FILE --body`` (the real client, against
its fake API on 127.0.0.1) and keeps, per file: whether the API accepted the
request, the kinds of rule it broke, and its steps (digests, no text), in the
form tests/model/formats/test_gemini.py compares with session-tui's context.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
ORACLE = Path(os.environ.get("ORACLE", ROOT.parent / "shared" / "oracle"))
sys.path.insert(0, str(ROOT))

from session_tui.model.resume.steps import request_steps  # noqa: E402
from tests.support import golden_form  # noqa: E402


def main() -> None:
    files = [Path(f) for f in sys.argv[1:]] or sorted((ROOT / "tests/data/live-2026-12-03/gemini").glob("*.jsonl"))
    out = ROOT / "tests" / "golden" / "gemini"
    out.mkdir(parents=True, exist_ok=True)
    for file in files:
        done = subprocess.run(
            [sys.executable, str(ORACLE / "resume.py"), "gemini", str(file.resolve()), "--body"],
            capture_output=True,
            text=True,
        )
        report = json.loads(done.stdout)
        body = report.get("body") or {}
        steps = golden_form(request_steps("gemini", body.get("contents") or []))
        golden = {
            "file": str(file.resolve().relative_to(ROOT)),
            "format": "gemini",
            "client_version": "0.61.0",
            "accepted": report["accepted"],
            "violations": sorted({v["kind"] for v in report["violations"]}),
        }
        text = json.dumps(golden)[:-1] + ', "steps": [\n' + ",\n".join(map(json.dumps, steps)) + "\n]}\n"
        (out / f"{file.stem}.json").write_text(text)
        print(f"{file.name}: accepted {report['accepted']}, {len(steps)} steps")


if __name__ == "__main__":
    main()
