"""Where a dry run's client runs: sealed in a new network namespace with
only loopback, the fake API's socket bound there and handed over
(``seal_prefix``, ``LAUNCHER``), or, where the kernel does not allow it,
here with update checks and telemetry turned off; and how it is stopped,
its whole process group with it."""

from __future__ import annotations

import json
import os
import shutil
import signal
import socket
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .fake_api import FakeAPI

SEALED = "sealed: network namespace, loopback only"


UNSEALED = "unsealed: update checks and telemetry turned off by environment (no network namespace here)"


#: run inside the new network namespace: loopback up, the fake API's socket
#: bound there and handed over (SCM_RIGHTS) on fd argv[1], then the job read
#: from it (argv, cwd, env) and exec'd: the launcher becomes the client
LAUNCHER = r"""
import fcntl, json, os, socket, struct, sys
channel = socket.socket(fileno=int(sys.argv[1]))
with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:  # lo up: IFF_UP | IFF_LOOPBACK | IFF_RUNNING
    fcntl.ioctl(s, 0x8914, struct.pack("16sH22x", b"lo", 0x1 | 0x8 | 0x40))
server = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
server.bind(("127.0.0.1", 0))
server.listen(64)
socket.send_fds(channel, [b"bound"], [server.fileno()])
server.close()
data = b""
while chunk := channel.recv(1 << 16):
    data += chunk
channel.close()
if not data:
    sys.exit(0)
job = json.loads(data)
os.chdir(job["cwd"])
os.execve(job["argv"][0], job["argv"], job["env"])
"""


def seal_prefix() -> list[str] | None:
    """The command prefix that runs a program in a new network namespace
    with only loopback (None: the kernel, or no unshare, does not allow it)."""
    found = shutil.which("unshare")
    if found is None:
        return None
    for prefix in ([found, "-n", "--"], [found, "-rn", "--"]) if os.geteuid() == 0 else ([found, "-rn", "--"],):
        try:
            done = subprocess.run([*prefix, "true"], capture_output=True, timeout=10, stdin=subprocess.DEVNULL)
        except (OSError, subprocess.TimeoutExpired):
            continue
        if done.returncode == 0:
            return prefix
    return None


@dataclass
class Box:
    """The fake API and where the client will run: in the launcher waiting in
    its namespace (sealed), or here (unsealed)."""

    server: FakeAPI
    output: Any
    launcher: subprocess.Popen[bytes] | None = None
    channel: socket.socket | None = None
    child: subprocess.Popen[bytes] | None = None

    @property
    def sealed(self) -> bool:
        return self.launcher is not None

    @classmethod
    def open(cls, seal: list[str] | None, output: Any) -> Box:
        if seal is not None:
            ours, theirs = socket.socketpair()
            try:
                launcher = subprocess.Popen(
                    [*seal, sys.executable, "-I", "-c", LAUNCHER, str(theirs.fileno())],
                    pass_fds=(theirs.fileno(),),
                    env={"PATH": os.environ.get("PATH", "/usr/bin:/bin")},
                    stdin=subprocess.DEVNULL,
                    stdout=output,
                    stderr=subprocess.STDOUT,
                    start_new_session=True,
                )
            except OSError:
                ours.close()
            else:
                theirs.close()
                ours.settimeout(15)
                try:
                    _, fds, _, _ = socket.recv_fds(ours, 64, 1)
                except OSError:
                    fds = []
                if fds:
                    ours.settimeout(None)
                    return cls(FakeAPI(socket.socket(fileno=fds[0])), output, launcher, ours)
                ours.close()
                kill_group(launcher)
        return cls(FakeAPI(), output)

    def start(self, argv: list[str], cwd: Path, env: dict[str, str]) -> subprocess.Popen[bytes]:
        """Run the client: the launcher becomes it (sealed), or a new process."""
        if self.launcher is not None and self.channel is not None:
            self.channel.sendall(json.dumps({"argv": argv, "cwd": str(cwd), "env": env}).encode())
            self.channel.close()
            self.channel = None
            self.child = self.launcher
        else:
            self.child = subprocess.Popen(
                argv,
                cwd=cwd,
                env=env,
                stdin=subprocess.DEVNULL,
                stdout=self.output,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )
        return self.child

    def close(self) -> None:
        if self.channel is not None:
            self.channel.close()
        for process in (self.launcher, self.child):
            if process is not None:
                kill_group(process)
        self.server.stop()


def kill_group(process: subprocess.Popen[bytes]) -> None:
    """Kill the process's whole group (it leads one of its own) and reap it."""
    try:
        os.killpg(process.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass
    if process.poll() is None:
        process.kill()
    process.wait()
