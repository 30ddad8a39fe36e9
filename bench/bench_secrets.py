"""Benchmark finding and redacting secrets (``check --secrets``, ``export`` /
``fork --redact``): MB/s of session text, and whether every planted key is
found and no trap is.

    python bench/bench_secrets.py [--size 100M] [--runs 3] [--real DIR]

1. A generated tree session (bench/gen_tree.py) of ``--size``, with the
   test-crafted keys of every kind (tests/secret_samples.py) planted in
   messages, and the traps (hashes, UUIDs, base64 images and blobs,
   placeholders) beside them: the scan (``session_secrets`` on the indexed
   session) and the redaction of the whole file (``Redactor.jsonl``), best
   of ``--runs``; every planted key found on its line, nothing else.
2. The real sessions under ``--real`` (default /work/shared/real-sessions,
   if there): findings by kind; then each copied to a temp dir with the
   planted keys and the traps appended: exactly the planted ones found more.
3. The same real sessions repeated to ``--size`` (real text, not generated
   words): scan and redaction MB/s.

Only counts and figures are printed, never a session's text.
"""

from __future__ import annotations

import argparse
import collections
import glob
import os
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.dirname(HERE))

import orjson  # noqa: E402
from gen_tree import generate, parse_size  # noqa: E402

from session_tui.model.privacy.redact import Redactor  # noqa: E402
from session_tui.model.privacy.secret_scan import scan_blocks, session_secrets  # noqa: E402
from session_tui.model.session.session import open_session  # noqa: E402
from tests.secret_samples import PLANTED, TRAPS  # noqa: E402

REAL = "/work/shared/real-sessions"


def best(runs: int, fn):
    """(best seconds, last result) of ``runs`` calls."""
    times, result = [], None
    for _ in range(runs):
        start = time.perf_counter()
        result = fn()
        times.append(time.perf_counter() - start)
    return min(times), result


def planted_lines() -> tuple[list[bytes], list[tuple[str, str]]]:
    """Records holding each planted text (some as tool arguments, JSON in a
    string) and each trap; (lines, [(kind, secret)] in the order planted)."""
    lines, expected = [], []
    for n, (kind, secret, text) in enumerate(PLANTED):
        if n % 2:
            content = [{"type": "toolCall", "arguments": orjson.dumps({"command": text}).decode()}]
        else:
            content = text
        lines.append(orjson.dumps({"type": "bench-planted", "message": {"role": "user", "content": content}}))
        expected.append((kind, secret))
    for trap in TRAPS:
        lines.append(orjson.dumps({"type": "bench-trap", "message": {"role": "tool", "content": trap}}))
    return lines, expected


def plant(src: str, dst: str) -> list[int]:
    """Copy ``src`` to ``dst`` with the planted and trap records spread
    through it (between whole lines); the 1-based lines of the planted ones."""
    with open(src, "rb") as f:
        data = f.read()
    records, expected = planted_lines()
    lines = data.split(b"\n")
    step = max(1, len(lines) // (len(records) + 1))
    out, at, planted_at = [], 0, []
    for k, record in enumerate(records):
        cut = min(len(lines) - 1, (k + 1) * step)
        out += lines[at:cut]
        if k < len(expected):
            planted_at.append(len(out) + 1)
        out.append(record)
        at = cut
    out += lines[at:]
    with open(dst, "wb") as f:
        f.write(b"\n".join(out))
    return planted_at


def check_found(found: list[tuple[int, str]], planted_at: list[int], before: list[tuple[int, str]]) -> str:
    """Whether the findings are the planted keys, each on its line, plus what the file held before."""
    _, expected = planted_lines()
    want = sorted([(line, kind) for line, (kind, _) in zip(planted_at, expected, strict=True)])
    extra = sorted(set(found) - set(want))
    missing = sorted(set(want) - set(found))
    ok = not missing and len(extra) <= len(before)
    return f"{len(want) - len(missing)}/{len(want)} planted found, {len(extra)} other finding(s)" + (
        "" if ok else "  <-- MISMATCH"
    )


def scan_and_redact(path: str, runs: int, label: str, planted_at: list[int] | None = None) -> None:
    size = os.path.getsize(path)
    with open_session(path) as session:
        seconds, found = best(runs, lambda: session_secrets(session))
    with open(path, "rb") as f:
        data = f.read()
    redact_seconds, (redactor, out) = best(runs, lambda: _redact(data))
    mb = size / 1e6
    print(f"{label}: {mb:,.1f} MB")
    kinds = _kinds(f.kind for f in found)
    print(f"  scan   {seconds:6.2f} s = {mb / seconds:6.1f} MB/s   {len(found):,} findings {kinds}")
    print(
        f"  redact {redact_seconds:6.2f} s = {mb / redact_seconds:6.1f} MB/s   {redactor.count:,} replaced, "
        + _survivors(out)
    )
    if planted_at is not None:
        print("  " + check_found([(f.line, f.kind) for f in found], planted_at, []))


def _redact(data: bytes) -> tuple[Redactor, bytes]:
    redactor = Redactor()
    return redactor, redactor.jsonl(data)


def _survivors(out: bytes) -> str:
    """How many planted secrets are still in the redacted bytes (none)."""
    left = sum(secret.encode() in out for _, secret, _ in PLANTED)
    return "no planted secret left" if not left else f"{left} planted secrets left  <-- MISMATCH"


def _kinds(kinds) -> str:
    counts = collections.Counter(kinds)
    return "(" + ", ".join(f"{kind} {n}" for kind, n in sorted(counts.items())) + ")" if counts else ""


def real_sessions(folder: str, runs: int, size: int, tmp: str) -> None:
    files = sorted(glob.glob(os.path.join(folder, "**", "*.jsonl"), recursive=True))
    if not files:
        print(f"no real sessions under {folder}")
        return
    total = sum(os.path.getsize(p) for p in files)
    kinds: collections.Counter[str] = collections.Counter()
    seconds = 0.0
    ok = 0
    for n, path in enumerate(files):
        with open(path, "rb") as f:
            data = f.read()
        took, found = best(runs, lambda data=data: list(scan_blocks(iter([data]))))
        seconds += took
        kinds.update(secret.kind for _, secret in found)
        copy = os.path.join(tmp, f"real-{n}.jsonl")
        planted_at = plant(path, copy)
        with open(copy, "rb") as f:
            again = [(line, secret.kind) for line, secret in scan_blocks(iter([f.read()]))]
        verdict = check_found(again, planted_at, [(line, s.kind) for line, s in found])
        ok += "MISMATCH" not in verdict
    print(f"real sessions: {len(files)} files, {total / 1e6:.1f} MB, scanned at {total / 1e6 / seconds:.1f} MB/s")
    print(f"  findings: {sum(kinds.values())} {_kinds(kinds)}")
    print(f"  with the {len(PLANTED)} planted keys and {len(TRAPS)} traps added: {ok}/{len(files)} files exact")
    repeated = os.path.join(tmp, "real-repeated.jsonl")
    with open(repeated, "wb") as out:
        written = 0
        while written < size:
            for path in files:
                with open(path, "rb") as f:
                    data = f.read()
                data = data if data.endswith(b"\n") else data + b"\n"
                out.write(data)
                written += len(data)
    with open(repeated, "rb") as f:
        data = f.read()
    took, found = best(runs, lambda: list(scan_blocks(iter([data]))))
    redact_took, (redactor, _) = best(runs, lambda: _redact(data))
    mb = len(data) / 1e6
    print(f"real sessions repeated to {mb:,.1f} MB:")
    print(f"  scan   {took:6.2f} s = {mb / took:6.1f} MB/s   {len(found):,} findings")
    print(f"  redact {redact_took:6.2f} s = {mb / redact_took:6.1f} MB/s   {redactor.count:,} replaced")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--size", default="100M")
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--real", default=REAL, help="a folder of real sessions (only figures are printed)")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="bench-secrets-") as tmp:
        generated = os.path.join(tmp, "generated.jsonl")
        counts = generate(generated, parse_size(args.size))
        planted = os.path.join(tmp, "planted.jsonl")
        planted_at = plant(generated, planted)
        os.unlink(generated)
        print(
            f"generated tree session: {counts['entries']:,} entries, {len(PLANTED)} keys and {len(TRAPS)} traps planted"
        )
        scan_and_redact(planted, args.runs, "generated session", planted_at)
        os.unlink(planted)
        if os.path.isdir(args.real):
            real_sessions(args.real, args.runs, parse_size(args.size), tmp)


if __name__ == "__main__":
    main()
