"""The ``serve`` command line: passwords never on it, one-line errors, range checks, a private db."""

from __future__ import annotations

import os
import select
import socket
import stat
import subprocess
import sys
from pathlib import Path

import pytest
import requests
from server_helpers import RUN_BOT, ServerProcess


def serve(
    *args: str, env: dict[str, str] | None = None, timeout: float = 60
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, str(RUN_BOT), "serve", *args],
        capture_output=True,
        text=True,
        timeout=timeout,
        stdin=subprocess.DEVNULL,
        env={**os.environ, **(env or {})},
    )


def assert_one_error_line(result: subprocess.CompletedProcess[str], code: int, words: str) -> None:
    assert result.returncode == code, (result.returncode, result.stderr)
    lines = result.stderr.strip().splitlines()
    assert "Traceback" not in result.stderr
    assert len(lines) == 1 and lines[0].startswith("rbc-bot: error: "), result.stderr
    assert words in lines[0], lines[0]


def test_a_port_in_use_is_one_line(tmp_path: Path) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        result = serve("--port", str(port), "--db", str(tmp_path / "a.sqlite3"))
    assert_one_error_line(result, 1, f"cannot listen on 127.0.0.1:{port}")


def test_an_address_this_machine_does_not_have_is_one_line(tmp_path: Path) -> None:
    result = serve("--host", "192.0.2.1", "--port", "0", "--db", str(tmp_path / "a.sqlite3"))  # TEST-NET-1
    assert_one_error_line(result, 1, "cannot listen on 192.0.2.1")


@pytest.mark.parametrize("content", [b"this is not a database\n" * 100, b"\x00" * 10])
def test_a_file_that_is_not_a_database_is_one_line(tmp_path: Path, content: bytes) -> None:
    db = tmp_path / "notes.txt"
    db.write_bytes(content)
    result = serve("--port", "0", "--db", str(db))
    assert_one_error_line(result, 1, "file is not a database")
    assert db.read_bytes() == content  # untouched


def test_a_directory_as_database_is_one_line(tmp_path: Path) -> None:
    assert_one_error_line(serve("--port", "0", "--db", str(tmp_path)), 1, "cannot use")


@pytest.mark.parametrize("port", ["99999", "65536", "-1"])
def test_port_is_range_checked(tmp_path: Path, port: str) -> None:
    assert_one_error_line(
        serve("--port", port, "--db", str(tmp_path / "a.sqlite3")), 2, "--port must be from 1 to 65535"
    )


def test_passwords_are_refused_on_the_command_line(tmp_path: Path) -> None:
    result = serve("--port", "0", "--db", str(tmp_path / "a.sqlite3"), "--add-user", "alice:secret")
    assert_one_error_line(result, 2, "--add-user takes a NAME only")
    assert "secret" not in result.stderr


def test_no_terminal_and_no_password_source_is_one_line(tmp_path: Path) -> None:
    result = serve("--port", "0", "--db", str(tmp_path / "a.sqlite3"), "--add-user", "alice")
    assert_one_error_line(result, 2, "no terminal to ask for passwords")


def test_password_env_and_file_problems_are_one_line(tmp_path: Path) -> None:
    db = str(tmp_path / "a.sqlite3")
    assert_one_error_line(
        serve("--db", db, "--add-user", "a", "--password-env", "RBC_NOPE"), 2, "RBC_NOPE is not set"
    )
    two = ("--add-user", "a", "--add-user", "b")
    assert_one_error_line(serve("--db", db, *two, "--password-env", "HOME"), 2, "use --password-file")
    missing = tmp_path / "pw.txt"
    missing.write_text("a:pw-a\n")
    assert_one_error_line(
        serve("--db", db, *two, "--password-file", str(missing)), 2, "no NAME:PASSWORD line for b"
    )
    assert_one_error_line(
        serve("--db", db, "--add-user", "a", "--password-file", str(tmp_path / "x")), 2, "cannot read"
    )
    result = serve("--port", "0", "--db", db, "--add-user", "a b", "--password-env", "HOME")
    assert_one_error_line(result, 2, "--add-user: invalid username 'a b'")


def test_password_from_env_and_the_database_is_private(tmp_path: Path) -> None:
    db = tmp_path / "private.sqlite3"
    extra = ["--add-user", "alice", "--password-env", "ALICE_PW"]
    with ServerProcess(db, extra=extra, env={"ALICE_PW": "s3cret"}) as server:
        url = f"{server.url}/api/invitations/"
        assert requests.get(url, auth=("alice", "s3cret"), timeout=10).status_code == 200
        for path in (db, db.with_name(db.name + "-wal")):
            assert stat.S_IMODE(path.stat().st_mode) == 0o600, path
    with ServerProcess(db) as again:  # the account is in the database now
        assert (
            requests.get(f"{again.url}/api/invitations/", auth=("alice", "s3cret"), timeout=10).status_code
            == 200
        )


def test_password_from_a_prompt_on_a_terminal(tmp_path: Path) -> None:
    master, slave = os.openpty()
    cmd = [sys.executable, str(RUN_BOT), "serve", "--port", "0", "--db", str(tmp_path / "tty.sqlite3")]
    # A new session has no controlling terminal, so getpass reads the pseudo-terminal on stdin.
    proc = subprocess.Popen(
        [*cmd, "--add-user", "alice"],
        stdin=slave,
        stdout=subprocess.PIPE,
        stderr=slave,
        text=True,
        start_new_session=True,
    )
    os.close(slave)
    try:
        # Type only once the prompt is up: getpass flushes input typed before it turns echo off.
        seen = b""
        while b"Password for alice" not in seen:
            ready, _, _ = select.select([master], [], [], 30)
            assert ready, f"no password prompt within 30 s: {seen!r}"
            seen += os.read(master, 1024)
        os.write(master, b"typed-pw\n")
        assert proc.stdout is not None
        ready, _, _ = select.select([proc.stdout.fileno()], [], [], 30)
        assert ready, "no output from serve within 30 s"
        line = proc.stdout.readline()
        assert "listening on" in line, line
        url = line.split("listening on ")[1].split()[0]
        assert (
            requests.get(f"{url}/api/invitations/", auth=("alice", "typed-pw"), timeout=10).status_code == 200
        )
    finally:
        proc.terminate()
        proc.wait(30)
        os.close(master)
