"""The warm hook server: one resident process per data dir that answers hook runs over a socket.

A hook is a new process per prompt, and most of its time is start-up: the interpreter, the
imports, loading the registry and the card index. The first hook run of a data dir answers in
process as always, then starts `python -m ome.server`, which loads everything once and listens
on `<data dir>/cache/server/hook.sock` (a Unix socket in a 0700 directory, same user only).
Later runs of `python -m ome.hook` import only this module, forward the agent's payload and
print the answer. The server runs exactly the code an in-process hook runs (`ome.hook.handle`),
re-checks card files, config and packs on every request as a fresh process would, and exits
after `hook.server_idle_s` without requests, when its own source files change, after a run that
missed its deadline, or when its socket is deleted. Whenever no server answers, the hook runs in
process: a server can make a run faster, never different or lost. `hook.server: false` in the
config, or `OME_HOOK_SERVER=0` in the environment, turns it off.

The client half imports nothing beyond `os`, `sys` and `_socket`, so this module imports the
rest (`socket` included) lazily, in the functions that need it.
"""

from __future__ import annotations

import _socket  # the C module under `socket`: the client skips socket.py's imports (~5 ms)
import os
import sys
import time

import ome

TYPE_CHECKING = False  # not `typing.TYPE_CHECKING`: the client must not import typing
if TYPE_CHECKING:
    import socket

    from ome.config import Config

PROTOCOL = b"ome-hook/1"
DISABLE_ENV = "OME_HOOK_SERVER"  # "0": no server for this process and the hooks it starts
# Set by `ome doctor` when it proves delivery: run the hook but record nothing (in process).
NO_RECORD_ENV = "OME_HOOK_NO_RECORD"
DEFAULT_DIR_NAME = ".oh-my-experience"
SERVER_DIR = ("cache", "server")
SOCKET_NAME = "hook.sock"
LOCK_NAME = "server.lock"
MAX_STDIN_BYTES = 16 * 1024 * 1024
# The longest socket path every platform binds (sun_path is 104-108 bytes).
MAX_SOCKET_PATH = 100
# How long a client waits for the server's answer, which comes within the configured deadline
# (1.5 s by default). Past this the client answers in process with what is left of its own
# deadline, inside the agents' 5 s kill timeout when the deadline is under 4.2 s.
REPLY_TIMEOUT_S = 4.2
# How long the server waits for a connected client to send its request (read before connecting).
REQUEST_TIMEOUT_S = 0.5
ANSWERED, RETRY = b"A", b"R"
DEFAULT_IDLE_S = 1800  # until the config says otherwise (`hook.server_idle_s`)
CHECK_EVERY_S = 5.0  # while idle, how often the server checks its socket is still reachable


def parse_hook_argv(argv: list[str] | tuple[str, ...]) -> dict[str, str]:
    """`--provider P [--event E] [--data-dir D]` (also `--x=v`); unknown arguments are ignored."""
    values = {"provider": "", "event": "", "data_dir": ""}
    items = list(argv)
    while items:
        item = items.pop(0)
        name, _, inline = item.partition("=")
        key = name.lstrip("-").replace("-", "_")
        if name.startswith("--") and key in values:
            values[key] = inline if inline else (items.pop(0) if items else "")
    return values


def data_dir_path(explicit: str | os.PathLike[str] | None = None) -> str:
    """The data dir: the explicit path, else `OME_HOME`, else `~/.oh-my-experience` (absolute)."""
    chosen = explicit or os.environ.get("OME_HOME")
    if chosen:
        path = os.path.expanduser(os.fspath(chosen))
        return path if os.path.isabs(path) else os.path.join(os.getcwd(), path)
    return os.path.join(os.path.expanduser("~"), DEFAULT_DIR_NAME)


def server_dir(data_dir: str) -> str:
    return os.path.join(data_dir, *SERVER_DIR)


def socket_path(data_dir: str) -> str | None:
    """Where the data dir's server listens; None where Unix sockets or the path do not fit."""
    path = os.path.join(server_dir(data_dir), SOCKET_NAME)
    if not hasattr(_socket, "AF_UNIX") or len(os.fsencode(path)) > MAX_SOCKET_PATH:
        return None
    return path


def enabled_by_env() -> bool:
    return os.environ.get(DISABLE_ENV, "1") != "0" and not os.environ.get(NO_RECORD_ENV)


def identity() -> bytes:
    """What client and server must share: the package they run and the interpreter running it."""
    package = os.path.dirname(os.path.abspath(ome.__file__))
    return os.fsencode(f"{ome.__version__}\n{package}\n{sys.prefix}\n{sys.version}")


def encode_request(cwd: str, data_dir: str, argv: list[str], stdin: bytes) -> bytes:
    fields = [PROTOCOL, identity(), os.fsencode(cwd), os.fsencode(data_dir)]
    fields += [os.fsencode(a) for a in argv]
    return b"%d\0" % len(fields) + b"".join(f + b"\0" for f in fields) + stdin


def decode_request(data: bytes) -> tuple[list[bytes], bytes]:
    """(header fields, stdin bytes); ValueError on a malformed request."""
    count, _, rest = data.partition(b"\0")
    n = int(count)
    if not 4 <= n <= 64:
        raise ValueError("bad field count")
    fields = rest.split(b"\0", n)
    if len(fields) != n + 1:
        raise ValueError("truncated header")
    return fields[:n], fields[n]


# --- the client -------------------------------------------------------------------------------


def forward(argv: list[str]) -> tuple[bytes | None, bool]:
    """Hand this hook run to the data dir's server; exit the process once it has answered.

    Otherwise returns (stdin, waited): the stdin bytes already read (None: stdin untouched) for
    the caller to answer in process, and whether a server took the request and failed to answer
    (stale, gone, too slow), so that the caller's deadline counts from the process start.
    """
    if not enabled_by_env():
        return None, False
    args = parse_hook_argv(argv)
    data_dir = data_dir_path(args["data_dir"] or None)
    path = socket_path(data_dir)
    if path is None or not os.path.exists(path):
        return None, False
    # The payload first, then the connection: a server answers one connection at a time, and
    # must not wait on a client still reading its own stdin.
    stdin = getattr(sys.stdin, "buffer", None)
    data = stdin.read(MAX_STDIN_BYTES + 1) if stdin is not None else b""
    client = _socket.socket(_socket.AF_UNIX, _socket.SOCK_STREAM)
    try:
        client.settimeout(REPLY_TIMEOUT_S)
        client.connect(path)
    except OSError:
        client.close()
        return data, False
    try:
        client.sendall(encode_request(os.getcwd(), data_dir, argv, data))
        client.shutdown(_socket.SHUT_WR)
        reply = _read_all(client, MAX_STDIN_BYTES)
    except (OSError, ValueError):
        return data, True
    finally:
        client.close()
    if reply[:1] != ANSWERED:
        return data, True
    warning, _, output = reply[1:].partition(b"\n")
    try:
        sys.stdout.buffer.write(output)
        sys.stdout.buffer.flush()
        if warning:
            sys.stderr.buffer.write(b"ome hook: " + warning + b"\n")
            sys.stderr.buffer.flush()
    finally:
        os._exit(0)


def _read_all(conn: _socket.socket, limit: int) -> bytes:
    chunks: list[bytes] = []
    size = 0
    while chunk := conn.recv(65536):
        chunks.append(chunk)
        size += len(chunk)
        if size > limit + 65536:
            raise ValueError("message over the size limit")
    return b"".join(chunks)


# --- starting and stopping --------------------------------------------------------------------


def _lock_pid(data_dir: str) -> int | None:
    """The pid of the live server holding the data dir's lock, 0 while it binds its socket, or
    None (also where there are no file locks, and so no server)."""
    try:
        import fcntl
    except ImportError:
        return None

    path = os.path.join(server_dir(data_dir), LOCK_NAME)
    try:
        fd = os.open(path, os.O_RDONLY)
    except OSError:
        return None
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
        except OSError:
            text = os.pread(fd, 32, 0).decode("ascii", "replace").strip()
            return int(text) if text.isdigit() else 0
        fcntl.flock(fd, fcntl.LOCK_UN)
        return None
    finally:
        os.close(fd)


def spawn(data_dir: str) -> bool:
    """Start a detached server for the data dir unless one runs; True if one was started."""
    if not enabled_by_env() or socket_path(data_dir) is None or _lock_pid(data_dir) is not None:
        return False
    import subprocess

    try:
        subprocess.Popen(
            [sys.executable, "-m", "ome.server", "--data-dir", data_dir],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            close_fds=True,
            start_new_session=True,
            cwd=data_dir,
        )
    except OSError:
        return False
    return True


def status(data_dir: str) -> dict[str, object]:
    """`ome hook server status`: whether a server runs for the data dir, its pid and socket.
    One still binding its socket (the lock held, no pid yet) is not running yet."""
    path = socket_path(data_dir)
    pid = _lock_pid(data_dir) if path is not None else None
    return {
        "running": bool(pid),
        "pid": pid or None,
        "socket": path,
        "enabled_by_env": enabled_by_env(),
    }


def stop(data_dir: str, wait_s: float = 3.0) -> bool:
    """Ask the data dir's server to exit (SIGTERM) and wait for it; True if one was stopped."""
    import signal

    end = time.monotonic() + wait_s
    while (pid := _lock_pid(data_dir)) == 0 and time.monotonic() < end:
        time.sleep(0.02)  # one binding its socket writes its pid in a moment
    if not pid:
        return False
    try:
        os.kill(pid, signal.SIGTERM)
    except ProcessLookupError:
        return False
    while time.monotonic() < end and _lock_pid(data_dir) is not None:
        time.sleep(0.02)
    return _lock_pid(data_dir) is None


# --- the server -------------------------------------------------------------------------------


def _source_stamp() -> list[tuple[str, int, int]]:
    """Name, size and mtime of every module of the package: an edit or upgrade retires a server."""
    package = os.path.dirname(os.path.abspath(ome.__file__))
    stamp = []
    for root, dirs, files in os.walk(package):
        dirs[:] = sorted(d for d in dirs if d != "__pycache__")
        for name in sorted(files):
            if name.endswith(".py"):
                st = os.stat(os.path.join(root, name))
                stamp.append((os.path.join(root, name), st.st_size, st.st_mtime_ns))
    return stamp


def _same_user(conn: socket.socket) -> bool:
    """On Linux, the peer's uid must be ours (the 0700 directory already says so elsewhere)."""
    import socket
    import struct

    option = getattr(socket, "SO_PEERCRED", None)
    if option is None:
        return True
    creds = conn.getsockopt(socket.SOL_SOCKET, option, struct.calcsize("3i"))
    return bool(struct.unpack("3i", creds)[1] == os.getuid())


class Server:
    """One data dir's server: the lock, the listening socket and the request loop."""

    def __init__(self, data_dir: str) -> None:
        self.data_dir = data_dir
        self.folder = server_dir(data_dir)
        self.path = socket_path(data_dir)
        self.stamp = _source_stamp()
        self.listener: socket.socket | None = None
        self.lock_fd = -1
        self.inode = -1
        self.idle_s = float(DEFAULT_IDLE_S)

    def acquire(self) -> bool:
        """Take the data dir's server lock and bind its socket; False if another server has it."""
        import fcntl

        if self.path is None or not os.path.isdir(self.data_dir):
            return False  # never make a data dir (one just deleted, say) for a server
        os.makedirs(self.folder, mode=0o700, exist_ok=True)
        os.chmod(self.folder, 0o700)
        fd = os.open(os.path.join(self.folder, LOCK_NAME), os.O_RDWR | os.O_CREAT, 0o600)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            os.close(fd)
            return False
        os.ftruncate(fd, 0)
        self.lock_fd = fd
        try:
            os.unlink(self.path)  # a socket left by a server that died; we hold the lock
        except FileNotFoundError:
            pass
        import socket

        listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        listener.bind(self.path)
        listener.listen(socket.SOMAXCONN)  # agents running side by side queue, not fall back
        self.listener = listener
        self.inode = os.stat(self.path).st_ino
        # The pid goes in last: a server whose pid can be read has its socket bound.
        os.pwrite(fd, str(os.getpid()).encode(), 0)
        return True

    def reachable(self) -> bool:
        """Whether our socket is still the one at its path (the cache dir may have been deleted)."""
        try:
            return self.path is not None and os.stat(self.path).st_ino == self.inode
        except OSError:
            return False

    def release(self) -> None:
        if self.listener is not None:
            self.listener.close()
            if self.path is not None:
                try:
                    os.unlink(self.path)
                except OSError:
                    pass
        if self.lock_fd >= 0:
            os.ftruncate(self.lock_fd, 0)
            os.close(self.lock_fd)  # closing releases the flock

    def warm_up(self) -> None:
        """Load config, registry and the global card index once, as the first request would."""
        import gc

        from ome.api import open_workspace

        try:
            self.configure(open_workspace(self.data_dir, self.data_dir).config)
        except Exception:  # a broken library is the requests' business to report
            pass
        gc.freeze()  # what was loaded lives as long as the server: collections skip it

    def configure(self, config: Config | None) -> None:
        if config is not None:
            self.idle_s = max(float(config.get("hook.server_idle_s")), 0.1)

    def serve(self) -> None:
        """Answer requests one at a time until idle, retired, or signalled."""
        assert self.listener is not None
        last = time.monotonic()
        while True:
            left = self.idle_s - (time.monotonic() - last)
            if left <= 0:
                return
            self.listener.settimeout(min(left, CHECK_EVERY_S))
            try:
                conn, _ = self.listener.accept()
            except TimeoutError:
                if not self.reachable():
                    return  # nobody can reach us any more
                continue
            with conn:
                if not self.answer(conn):
                    return
            last = time.monotonic()

    def answer(self, conn: socket.socket) -> bool:
        """Answer one request; False when this server should retire after it."""
        from io import BytesIO

        from ome import hook

        start = time.monotonic()
        conn.settimeout(REQUEST_TIMEOUT_S)
        try:
            if not _same_user(conn):
                return True
            fields, stdin = decode_request(_read_all(conn, MAX_STDIN_BYTES))
        except (OSError, ValueError):
            return True
        protocol, who, cwd, data_dir, *argv = fields
        fresh = self.stamp == _source_stamp()
        if protocol != PROTOCOL or who != identity() or not fresh:
            _send(conn, RETRY)  # another install's client, or our own code changed under us
            return fresh
        if os.fsdecode(data_dir) != self.data_dir:
            _send(conn, RETRY)
            return True
        try:
            os.chdir(os.fsdecode(cwd))
        except OSError:
            _send(conn, RETRY)
            return True
        reply = hook.handle([os.fsdecode(a) for a in argv], BytesIO(stdin), start)
        warning = " ".join(reply.warning.split()).encode("utf-8", "replace")
        _send(conn, ANSWERED + warning + b"\n" + reply.output)
        conn.close()
        reply.finish()
        self.configure(reply.config)
        keep = reply.config is not None and bool(reply.config.get("hook.server"))
        return reply.in_time and keep


def _send(conn: socket.socket, data: bytes) -> None:
    try:
        conn.sendall(data)
    except OSError:
        pass


def main(argv: list[str] | None = None) -> int:
    """`python -m ome.server --data-dir D`: serve D's hook runs until idle (started by the hook)."""
    args = parse_hook_argv(sys.argv[1:] if argv is None else argv)
    import signal

    server = Server(data_dir_path(args["data_dir"] or None))
    try:
        if not server.acquire():
            return 0
    except OSError as exc:
        print(f"ome server: {exc}", file=sys.stderr)
        return 1
    # SIGTERM (`ome hook server stop`) ends the loop through the normal cleanup.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    try:
        server.warm_up()
        server.serve()
    finally:
        server.release()
    return 0


__all__ = [
    "DISABLE_ENV",
    "MAX_STDIN_BYTES",
    "NO_RECORD_ENV",
    "Server",
    "data_dir_path",
    "decode_request",
    "enabled_by_env",
    "encode_request",
    "forward",
    "identity",
    "main",
    "parse_hook_argv",
    "server_dir",
    "socket_path",
    "spawn",
    "status",
    "stop",
]

if __name__ == "__main__":
    raise SystemExit(main())
