"""Real servers on 127.0.0.1 for the remote tests: an SFTP server (asyncssh,
temporary keys, rooted in a tmp dir) and an S3 endpoint (moto's server
mode). Nothing else is ever contacted."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import asyncssh


class _CountingSFTP(asyncssh.SFTPServer):
    """The standard SFTP server, counting the bytes of file content it sends."""

    def __init__(self, chan: asyncssh.SSHServerChannel, root: Path, tally: Any) -> None:
        super().__init__(chan, chroot=str(root).encode())
        self.tally = tally

    def read(self, file_obj: object, offset: int, size: int) -> bytes:
        data = super().read(file_obj, offset, size)
        assert isinstance(data, bytes)
        self.tally[0] += len(data)
        return data


@dataclass
class SFTPServer:
    port: int
    root: Path  # what the server serves
    client_key: Path  # the key it accepts
    user: str = "tester"
    tally: Any = field(default_factory=lambda: [0])  # tally[0]: bytes of file content sent so far

    @property
    def bytes_served(self) -> int:
        return self.tally[0]

    def url(self, path: str) -> str:
        return f"ssh://{self.user}@127.0.0.1:{self.port}/{path.lstrip('/')}"

    @property
    def options(self) -> dict[str, object]:
        """What the client needs: the test key, and no known_hosts check (a fresh host key)."""
        return {"client_keys": [str(self.client_key)], "known_hosts": None}

    @property
    def cli_options(self) -> list[str]:
        return ["--storage-option", f"client_keys={self.client_key}", "--storage-option", "known_hosts=null"]


@contextmanager
def sftp_server(root: Path, keys: Path, tally: Any = None) -> Iterator[SFTPServer]:
    """An SFTP server on 127.0.0.1 (a free port) serving ``root``, in a
    thread; ``tally[0]`` counts the bytes of file content it sends."""
    keys.mkdir(parents=True, exist_ok=True)
    host_key = asyncssh.generate_private_key("ssh-ed25519")
    client_key = asyncssh.generate_private_key("ssh-ed25519")
    client_path = keys / "id_ed25519"
    client_key.write_private_key(str(client_path))
    authorized = asyncssh.import_authorized_keys(client_key.export_public_key().decode())
    tally = [0] if tally is None else tally
    loop = asyncio.new_event_loop()
    thread = threading.Thread(target=loop.run_forever, daemon=True)
    thread.start()

    async def start() -> asyncssh.SSHAcceptor:
        return await asyncssh.listen(
            "127.0.0.1",
            0,
            server_host_keys=[host_key],
            authorized_client_keys=authorized,
            sftp_factory=lambda chan: _CountingSFTP(chan, root, tally),
            allow_scp=False,
        )

    acceptor = asyncio.run_coroutine_threadsafe(start(), loop).result(timeout=30)
    try:
        yield SFTPServer(acceptor.get_port(), root, client_path, tally=tally)
    finally:

        async def stop() -> None:
            acceptor.close()
            await acceptor.wait_closed()

        asyncio.run_coroutine_threadsafe(stop(), loop).result(timeout=30)
        loop.call_soon_threadsafe(loop.stop)
        thread.join(timeout=30)


@dataclass
class S3Server:
    endpoint: str
    bucket: str

    def url(self, key: str) -> str:
        return f"s3://{self.bucket}/{key.lstrip('/')}"

    @property
    def options(self) -> dict[str, object]:
        return {"endpoint_url": self.endpoint, "key": "testing", "secret": "testing"}

    @property
    def cli_options(self) -> list[str]:
        return [arg for k, v in self.options.items() for arg in ("--storage-option", f"{k}={v}")]

    def put(self, key: str, data: bytes) -> None:
        import boto3

        client = boto3.client(
            "s3", endpoint_url=self.endpoint, aws_access_key_id="testing", aws_secret_access_key="testing"
        )
        client.put_object(Bucket=self.bucket, Key=key, Body=data)


@contextmanager
def s3_server(bucket: str = "sessions") -> Iterator[S3Server]:
    """moto's S3 in server mode on 127.0.0.1 (a free port), with one bucket."""
    import boto3
    from moto.server import ThreadedMotoServer

    server = ThreadedMotoServer(ip_address="127.0.0.1", port=0, verbose=False)
    server.start()
    try:
        host, port = server.get_host_and_port()
        endpoint = f"http://{host}:{port}"
        boto3.client(
            "s3",
            endpoint_url=endpoint,
            region_name="us-east-1",
            aws_access_key_id="testing",
            aws_secret_access_key="testing",
        ).create_bucket(Bucket=bucket)
        yield S3Server(endpoint, bucket)
    finally:
        server.stop()
