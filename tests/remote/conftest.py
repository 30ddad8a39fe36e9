from __future__ import annotations

from typing import TYPE_CHECKING

import pytest

from session_tui.model.reading import remote

if TYPE_CHECKING:  # (the servers are imported by the fixtures: their asyncssh takes ~0.5 s to import,
    # which every worker of the suite paid when it collected this folder)
    from .servers import S3Server, SFTPServer


@pytest.fixture(autouse=True)
def no_aws_profile(monkeypatch, tmp_path):
    """The tests' S3 is moto on 127.0.0.1: no real credentials or config are read."""
    for name in ("AWS_PROFILE", "AWS_DEFAULT_PROFILE", "AWS_SESSION_TOKEN"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("AWS_CONFIG_FILE", str(tmp_path / "aws-config"))
    monkeypatch.setenv("AWS_SHARED_CREDENTIALS_FILE", str(tmp_path / "aws-credentials"))
    monkeypatch.setenv("AWS_DEFAULT_REGION", "us-east-1")
    monkeypatch.setenv("AWS_EC2_METADATA_DISABLED", "true")  # never ask a metadata service for credentials


@pytest.fixture
def sftp(tmp_path) -> SFTPServer:
    from .servers import sftp_server

    root = tmp_path / "served"
    root.mkdir()
    with sftp_server(root, tmp_path / "keys") as server:
        remote.configure(server.url(""), server.options)
        yield server
        remote._OPTIONS.clear()


@pytest.fixture
def s3() -> S3Server:
    from .servers import s3_server

    with s3_server() as server:
        remote.configure(server.url(""), server.options)
        yield server
        remote._OPTIONS.clear()
