"""Sessions read over SFTP and S3 from real servers on 127.0.0.1: the same
index as the local file, byte ranges only, a tail that reads only what was
appended, edits refused, one-line errors."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys

import pytest

from session_tui.commands.check import report
from session_tui.model.session.session import Session, open_session
from tests.builders.tree import chain, message
from tests.support import REPO, SAMPLES

ONE_OF_EACH = [
    "tree/branched-summary.jsonl",
    "tree/crash-torn.jsonl",
    "chat/session-crash-dangling.jsonl",
    "pi/2026-03-14T09-12-03-417Z_49367314-07c6-4a67-8508-8efab1434a5b.jsonl",
    "claude/d7d9f764-42c4-4cfc-85bc-fce56c355e9f.jsonl",
    "codex/rollout-2026-03-14T10-30-12-019cebe5-7fec-77d8-9548-5cabe223553b.jsonl",
]


def cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "session_tui", *args], capture_output=True, text=True, cwd=REPO, timeout=120
    )


def same_report(url: str, local) -> None:
    with open_session(url) as far, open_session(local) as near:
        got, want = report(far, url).as_json(), report(near, str(local)).as_json()
    for side in (got, want):  # (whether its writer lives is told only for a file on this machine)
        side.pop("agent", None)
    assert {**got, "path": None} == {**want, "path": None}


@pytest.mark.parametrize("sample", ONE_OF_EACH)
def test_a_session_over_sftp_reads_as_the_local_file(sftp, sample):
    name = sample.replace("/", "-")
    shutil.copy(SAMPLES / sample, sftp.root / name)
    same_report(sftp.url(name), sftp.root / name)


def test_a_session_in_s3_reads_as_the_local_file(s3, tmp_path):
    for sample in ONE_OF_EACH[:3]:
        data = (SAMPLES / sample).read_bytes()
        s3.put(sample, data)
        (tmp_path / "local.jsonl").write_bytes(data)
        same_report(s3.url(sample), tmp_path / "local.jsonl")


def test_the_tail_reads_only_what_was_appended_and_a_replaced_file_is_reloaded(sftp):
    path = sftp.root / "live.jsonl"
    path.write_bytes(chain(2000))
    with Session(sftp.url("live.jsonl")) as session:
        session.refresh()
        assert session.tree.count == 2000 and not session.partial
        source = session._held()
        before = source.bytes_read
        entry = message("m2000", "m1999", content="x" * 900)  # about 1 KB
        with open(path, "ab") as f:
            f.write(entry)
        change = session.refresh()
        assert change.new_entries == 1 and not change.reloaded
        assert source.bytes_read - before <= 4096, source.bytes_read - before
        path.write_bytes(chain(2001, prefix="n"))  # replaced: same first line, other ids, bigger
        change = session.refresh()
        assert change.reloaded and session.find("n2000") is not None and session.find("m2000") is None


def test_an_object_rewritten_with_more_bytes_reads_only_the_new_part(s3):
    data = chain(500)
    s3.put("grow.jsonl", data)
    with Session(s3.url("grow.jsonl")) as session:
        session.refresh()
        source = session._held()
        before = source.bytes_read
        s3.put("grow.jsonl", data + message("m500", "m499", content="y" * 900))
        change = session.refresh()
        assert change.new_entries == 1 and not change.reloaded
        assert source.bytes_read - before <= 4096
        s3.put("grow.jsonl", chain(400, prefix="z"))  # shorter and other: reloaded
        assert session.refresh().reloaded and session.tree.count == 400


def test_the_end_of_a_big_remote_file_is_shown_reading_under_2_mb(sftp):
    path = sftp.root / "big.jsonl"
    path.write_bytes(b"".join(message(f"m{i}", f"m{i - 1}" if i else None, content="z" * 200) for i in range(40_000)))
    size = path.stat().st_size
    with Session(sftp.url("big.jsonl"), start=size - (1 << 20), parallel_ok=False) as preview:
        preview.refresh()
        leaf = preview.active_leaf()
        assert preview.record(leaf)["id"] == "m39999"
        assert preview._held().bytes_read <= 2 << 20


def test_check_export_and_fork_work_on_a_url_and_edits_are_refused(sftp, tmp_path):
    shutil.copy(SAMPLES / "tree" / "branched-summary.jsonl", sftp.root / "s.jsonl")
    original = (sftp.root / "s.jsonl").read_bytes()
    url = sftp.url("s.jsonl")
    r = cli("check", "--json", sftp.url(""), *sftp.cli_options)
    assert r.returncode == 0 and json.loads(r.stdout.splitlines()[0])["path"] == url
    r = cli("export", url, "--to", "md", *sftp.cli_options)
    assert r.returncode == 0 and r.stdout.startswith("# s.jsonl")
    r = cli("fork", url, "3", *sftp.cli_options)
    assert r.returncode == 1 and "give -o LOCAL_PATH" in r.stderr
    r = cli("fork", url, "3", "-o", str(tmp_path / "copy.jsonl"), *sftp.cli_options)
    assert r.returncode == 0 and (tmp_path / "copy.jsonl").exists()
    shutil.copy(SAMPLES / "tree" / "crash-torn.jsonl", sftp.root / "crash.jsonl")
    for args in (["set-leaf", url, "3"], ["fix", sftp.url("crash.jsonl"), "--close", "--drop-torn"]):
        r = cli(*args, *sftp.cli_options)
        assert r.returncode == 1 and "a remote file is read-only here" in r.stderr, r.stderr
        assert "Traceback" not in r.stderr
    assert (sftp.root / "s.jsonl").read_bytes() == original


def test_failures_are_one_line(sftp):
    (sftp.root / "s.jsonl").write_bytes(chain(3))
    cases = {
        "missing": ([sftp.url("nope.jsonl"), *sftp.cli_options], "no such file"),
        "denied key": ([sftp.url("s.jsonl"), "--storage-option", "known_hosts=null"], "permission denied"),
        "unreachable": (["ssh://tester@127.0.0.1:1/s.jsonl", *sftp.cli_options], "ConnectionRefusedError"),
        "no back-end": (["nosuchproto://x/s.jsonl"], "nosuchproto"),
    }
    for what, (args, expected) in cases.items():
        r = cli("check", *args)
        assert r.returncode == 2, what
        lines = r.stderr.strip().splitlines()
        assert len(lines) == 1 and expected in lines[0] and "Traceback" not in r.stderr, (what, r.stderr)


def test_check_lists_an_s3_prefix(s3):
    for name in ("runs/a.jsonl", "runs/deep/b.jsonl", "runs/notes.txt", "other/c.jsonl"):
        s3.put(name, chain(3))
    r = cli("check", "--json", s3.url("runs/"), *s3.cli_options)
    assert r.returncode == 0, r.stderr
    paths = [json.loads(line)["path"] for line in r.stdout.splitlines()]
    assert paths == [s3.url("runs/a.jsonl"), s3.url("runs/deep/b.jsonl")]


def test_a_tail_worker_reads_ahead_so_the_refresh_waits_on_no_network(sftp):
    path = sftp.root / "live.jsonl"
    path.write_bytes(chain(300))
    with Session(sftp.url("live.jsonl")) as session:
        session.refresh()
        source = session._held()
        with open(path, "ab") as f:
            f.write(message("m300", "m299", content="z" * 900))
        assert session.read_ahead(session.stat()) is False  # grown, not replaced
        before = source.bytes_read
        change = session.refresh()  # what the UI thread does next
        assert change.new_entries == 1 and source.bytes_read == before
        path.write_bytes(chain(300, prefix="q"))  # replaced: same size class, other ids
        assert session.read_ahead(session.stat()) is True


def test_the_fleet_watches_a_remote_folder_by_polling_it(sftp):
    """A folder over SSH is listed like the picker's; a session that grows
    is read from where it was left, and its state follows."""
    import time

    from session_tui.model.fleet.fleet import Fleet
    from tests.model.fleet.builders import Writer

    now = time.time()
    writer = Writer(sftp.root / "agent.jsonl", "pi", now).prompt("Run the tests", ago=2).written(2)
    fleet = Fleet([sftp.url("")], window=3600, stuck_after=300, process_check=None)
    first = fleet.scan(now)
    assert [a.observed.state.value for a in first] == ["working"]
    session = fleet.sessions[sftp.url("agent.jsonl")]
    read_before = session.bytes_scanned
    size_before = writer.path.stat().st_size
    writer.now = now + 1
    writer.calls_made("bash", ago=0).written(0)
    changed = fleet.scan(now + 1)
    assert [(a.observed.state.value, a.observed.tool) for a in changed] == [("tool", "bash")]
    assert session.bytes_scanned - read_before == writer.path.stat().st_size - size_before  # only what was appended
