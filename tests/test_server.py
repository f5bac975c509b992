"""The warm hook server, run as agents meet it: real hook subprocesses, a real server process.

The first hook run of a data dir answers in process and starts the server; later runs are
answered by it. Every test checks what the agent receives against the hook with the server
turned off, and that the server really answered (the client then never imports the engine).
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from ome import server

pytestmark = pytest.mark.skipif(
    not hasattr(socket, "AF_UNIX"), reason="the warm server needs Unix sockets"
)

CARD = """---
schema: ome-card
id: {id}
status: active
title: Do not force-push a shared branch
summary: Force-pushing a branch other people pull from rewrites their history.
criteria:
  use_when: [about to force push after a rebase]
recall:
  policy: must
  risk: high
  triggers: [force push, shared branch, {trigger}]
---

# Do not force-push a shared branch

## Full Rule

```text
Push rewritten work to a new branch; force only with the owner's consent.
```
"""
PROMPT = "Please rebase my feature branch and force push it to the shared develop branch"
SESSION_START = {"hook_event_name": "sessionStart", "session_id": "s1"}


@pytest.fixture
def home(monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """A data dir with a short path (socket paths are limited), the server allowed, and any
    server it started stopped afterwards."""
    root = Path(tempfile.mkdtemp(prefix="omes-"))
    data_dir = root / "d"
    (data_dir / "experiences" / "active").mkdir(parents=True)
    (data_dir / "experiences" / "active" / "force-push.md").write_text(
        CARD.format(id="force-push", trigger="push --force"), encoding="utf-8"
    )
    (data_dir / "config.yaml").write_text(
        "library:\n  starter_cards: false\nhook:\n  deadline_ms: 10000\n", encoding="utf-8"
    )
    monkeypatch.setenv("OME_HOME", str(data_dir))
    monkeypatch.delenv("OME_HOOK_SERVER", raising=False)
    try:
        yield data_dir
    finally:
        # Stop the server, and one a late hook run may have started meanwhile.
        for _ in range(3):
            pid = server.status(str(data_dir))["pid"]
            if not server.stop(str(data_dir)) and isinstance(pid, int) and alive(pid):
                os.kill(pid, signal.SIGKILL)
            time.sleep(0.2)
        shutil.rmtree(root, ignore_errors=True)


def alive(pid: int) -> bool:
    """Whether the process runs (a zombie no init has reaped yet does not)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return False
        return True
    return stat.rsplit(")", 1)[1].split()[0] != "Z"


def hook(
    cwd: Path, prompt: str = PROMPT, *, provider: str = "claude", **env: str
) -> subprocess.CompletedProcess[bytes]:
    """One `python -X importtime -m ome.hook` run in `cwd` (the data dir is $OME_HOME): stderr
    lists every module it imported."""
    payload = {"hook_event_name": "UserPromptSubmit", "prompt": prompt, "cwd": str(cwd)}
    if provider == "cursor":
        payload = {**SESSION_START, "workspace_roots": [str(cwd)]}
    return subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "ome.hook", "--provider", provider],
        input=json.dumps(payload).encode(),
        capture_output=True,
        timeout=30,
        check=True,
        env={**os.environ, **env},
        cwd=cwd,
    )


def served(done: subprocess.CompletedProcess[bytes]) -> bool:
    """True if the server answered: the client process never loaded the engine."""
    return b" ome.engine\n" not in done.stderr and b" ome.server\n" in done.stderr


def wait_for_server(data_dir: Path, running: bool = True, timeout: float = 20) -> None:
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if server.status(str(data_dir))["running"] is running:
            return
        time.sleep(0.05)
    raise AssertionError(f"the server did not become {'running' if running else 'stopped'}")


def started(data_dir: Path) -> bytes:
    """Run the first hook (in process, starts the server); return what the agent received."""
    first = hook(data_dir)
    assert not served(first)
    wait_for_server(data_dir)
    return first.stdout


def test_the_server_answers_the_same_bytes_as_the_process(home: Path) -> None:
    in_process = hook(home, OME_HOOK_SERVER="0")
    assert not served(in_process) and b"force-push" in in_process.stdout
    assert started(home) == in_process.stdout
    for _ in range(2):
        again = hook(home)
        assert served(again)
        assert again.stdout == in_process.stdout
    nothing = hook(home, "What is the capital of France?")
    assert served(nothing) and nothing.stdout == b""


def test_agents_side_by_side_are_all_served(home: Path) -> None:
    expected = started(home)
    payload = {"hook_event_name": "UserPromptSubmit", "prompt": PROMPT, "cwd": str(home)}
    procs = [
        subprocess.Popen(
            [sys.executable, "-X", "importtime", "-m", "ome.hook", "--provider", "claude"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            cwd=home,
        )
        for _ in range(20)
    ]
    # Agents write their payloads late and out of order: a client that connected before it
    # had its payload would hold the server (one connection at a time) while others queue.
    for proc in reversed(procs):
        assert proc.stdin is not None
        proc.stdin.write(json.dumps(payload).encode())
        proc.stdin.close()
        time.sleep(0.05)
    results = []
    for proc in procs:
        with proc:  # closes the pipes and waits
            assert proc.stdout is not None and proc.stderr is not None
            results.append((proc.stdout.read(), proc.stderr.read()))
    assert [out for out, _ in results] == [expected] * 20
    assert all(b" ome.engine\n" not in err for _, err in results)


def test_cursor_session_start_is_served_the_same(home: Path) -> None:
    workspace = home.parent / "w"
    workspace.mkdir()
    (workspace / "README.md").write_text("# Shop\n\nWe force push the shared branch.\n")
    started(home)
    expected = hook(workspace, provider="cursor", OME_HOOK_SERVER="0").stdout
    done = hook(workspace, provider="cursor")
    assert served(done) and done.stdout == expected and b"force-push" in expected


def test_the_next_run_after_an_edit_sees_the_card(home: Path) -> None:
    started(home)
    prompt = "the zebracornflux rollout keeps failing"
    assert hook(home, prompt).stdout == b""
    card = home / "experiences" / "active" / "zebra.md"
    card.write_text(CARD.format(id="zebra", trigger="zebracornflux rollout"), encoding="utf-8")
    done = hook(home, prompt)
    assert served(done) and b"zebra" in done.stdout
    card.unlink()
    gone = hook(home, prompt)
    assert served(gone) and b"zebra" not in gone.stdout


def test_turning_it_off_in_the_config_retires_the_server(home: Path) -> None:
    started(home)
    config = home / "config.yaml"
    config.write_text(config.read_text() + "  server: false\n", encoding="utf-8")
    assert served(hook(home))  # this run sees the new config, answers, and retires
    wait_for_server(home, running=False)
    assert not served(hook(home))
    time.sleep(0.5)
    assert not server.status(str(home))["running"]  # and no new one was started


def test_a_killed_server_falls_back_and_is_replaced(home: Path) -> None:
    expected = started(home)
    pid = server.status(str(home))["pid"]
    assert isinstance(pid, int)
    os.kill(pid, signal.SIGKILL)
    wait_for_server(home, running=False)
    assert Path(str(server.socket_path(str(home)))).exists()  # a stale socket is left behind
    fallback = hook(home)
    assert not served(fallback) and fallback.stdout == expected
    wait_for_server(home)
    assert served(hook(home))


def test_idle_servers_exit(home: Path) -> None:
    config = home / "config.yaml"
    config.write_text(config.read_text() + "  server_idle_s: 1\n", encoding="utf-8")
    started(home)
    wait_for_server(home, running=False, timeout=15)
    assert not Path(str(server.socket_path(str(home)))).exists()


def test_a_deleted_cache_dir_ends_the_server(home: Path) -> None:
    started(home)
    pid = server.status(str(home))["pid"]
    assert isinstance(pid, int)
    shutil.rmtree(home / "cache")  # "derived files, safe to delete": its socket goes too
    end = time.monotonic() + server.CHECK_EVERY_S + 10
    while alive(pid) and time.monotonic() < end:
        time.sleep(0.1)
    assert not alive(pid)
    assert not (home / "cache" / "server").exists()  # and it did not make its socket again


def test_another_install_gets_a_retry_and_the_server_stays(home: Path) -> None:
    started(home)
    path = server.socket_path(str(home))
    assert path is not None
    request = server.encode_request(str(home), str(home), ["--provider", "claude"], b"{}")
    foreign = request.replace(server.identity(), b"9.9.9\n/elsewhere\n/venv\n3.99")
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as client:
        client.settimeout(10)
        client.connect(path)
        client.sendall(foreign)
        client.shutdown(socket.SHUT_WR)
        assert client.recv(16) == b"R"
    assert served(hook(home))


def test_status_and_stop_from_the_command_line(home: Path) -> None:
    ome = [sys.executable, "-m", "ome"]
    off = subprocess.run([*ome, "hook", "server", "status", "--json"], capture_output=True)
    assert json.loads(off.stdout)["running"] is False
    started(home)
    on = json.loads(
        subprocess.run([*ome, "hook", "server", "status", "--json"], capture_output=True).stdout
    )
    assert on["running"] is True and on["socket"] == server.socket_path(str(home))
    doctor = json.loads(subprocess.run([*ome, "doctor", "--json"], capture_output=True).stdout)
    check = next(c for c in doctor["checks"] if c["name"] == "hook_server")
    assert check["message"].startswith(f"running (pid {on['pid']})")
    stop = subprocess.run([*ome, "hook", "server", "stop"], capture_output=True, text=True)
    assert stop.stdout.strip() == "stopped"
    assert not server.status(str(home))["running"]


def test_no_server_when_the_environment_says_so(home: Path) -> None:
    hook(home, OME_HOOK_SERVER="0")
    time.sleep(0.5)
    assert not server.status(str(home))["running"]


def test_a_server_still_binding_is_not_running_yet(home: Path) -> None:
    """A server writes its pid once its socket is bound: until then it holds the lock (no second
    server starts) but is not reported running, so nobody connects or kills it too early."""
    import fcntl

    folder = Path(server.server_dir(str(home)))
    folder.mkdir(parents=True)
    fd = os.open(folder / server.LOCK_NAME, os.O_RDWR | os.O_CREAT, 0o600)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        assert server.status(str(home))["running"] is False
        assert not server.spawn(str(home))
        assert not server.stop(str(home), wait_s=0.2)
        os.pwrite(fd, str(os.getpid()).encode(), 0)
        assert server.status(str(home)) | {"enabled_by_env": True} == {
            "running": True,
            "pid": os.getpid(),
            "socket": server.socket_path(str(home)),
            "enabled_by_env": True,
        }
    finally:
        os.close(fd)
    assert server.status(str(home))["running"] is False


def test_the_client_imports_almost_nothing() -> None:
    code = "import sys, ome.server; print(' '.join(sorted(sys.modules)))"
    loaded = set(
        subprocess.run(
            [sys.executable, "-c", code], capture_output=True, text=True, check=True
        ).stdout.split()
    )
    assert not loaded & {"socket", "typing", "dataclasses", "orjson", "pathlib", "re", "json"}


@pytest.mark.parametrize(
    "argv, expected",
    [
        (["--provider", "claude"], {"provider": "claude", "event": "", "data_dir": ""}),
        (
            ["--provider=codex", "--data-dir", "/x"],
            {"provider": "codex", "event": "", "data_dir": "/x"},
        ),
        (
            ["--event", "sessionStart", "--what", "1"],
            {"provider": "", "event": "sessionStart", "data_dir": ""},
        ),
        (["--provider"], {"provider": "", "event": "", "data_dir": ""}),
    ],
)
def test_hook_arguments(argv: list[str], expected: dict[str, str]) -> None:
    assert server.parse_hook_argv(argv) == expected


def test_requests_round_trip_and_bad_ones_are_refused() -> None:
    request = server.encode_request("/w", "/d", ["--provider", "claude", ""], b"{\0}")
    fields, stdin = server.decode_request(request)
    assert fields[2:] == [b"/w", b"/d", b"--provider", b"claude", b""] and stdin == b"{\0}"
    for bad in (b"", b"x\0", b"2\0a\0b\0", b"9\0a\0b\0"):
        with pytest.raises(ValueError):
            server.decode_request(bad)


def test_long_data_dir_paths_have_no_server(tmp_path: Path) -> None:
    assert server.socket_path(str(tmp_path / ("x" * 120))) is None
