"""``python -m irgrad`` for the test suite, without paying for Python and irgrad's imports
on every command.

Most of the suite's time goes into thousands of ``python -m irgrad cc|opt`` runs of small
programs, and for a small program about half of each run's CPU time is the interpreter
starting and importing irgrad and llvmlite (~0.4 s). :func:`irgrad_command` returns a
command that behaves like ``[sys.executable, "-m", "irgrad"]`` — same arguments, working
directory, environment, standard streams, exit status (a signal included) — but is served
by a fork server that imported irgrad once:

* the server (``python warm_cli.py --serve SOCKET``, one per test process, started on first
  use) imports the modules every ``cc``/``opt`` run imports, then waits on a Unix socket;
* the client (``python warm_cli.py SOCKET ARGS...``: no irgrad import, ~20 ms) sends its
  arguments, working directory and environment, and passes its stdin, stdout and stderr
  (file descriptors, ``SCM_RIGHTS``);
* the server forks; the child takes those descriptors as 0, 1 and 2, changes to the
  directory, replaces its environment, runs ``irgrad.cli.main`` and exits with its code.
  The server reaps it and sends the client the child's wait status; the client exits with
  the same code, or kills itself with the same signal (an abort inside LLVM stays an
  abort). A client that dies (a test's timeout) takes its child with it.

What a fresh process does differently is not served: the child shares the server's hash
seed and imported modules. Tests about process-level behaviour (output determinism across
processes, a missing tool, the installed entry points) keep running ``python -m irgrad``.
The server is single-threaded (forking is safe) and exits when its test process does (its
stdin, a pipe from that process, reaches end of file).
"""

from __future__ import annotations

import atexit
import contextlib
import json
import os
import select
import shlex
import shutil
import signal
import socket
import struct
import subprocess
import sys
import tempfile
import threading

_HEADER = struct.Struct("!I")
_STATUS = struct.Struct("!i")
# what every `irgrad cc` / `irgrad opt` run imports (the bulk of its start-up time)
_PRELOAD = ("irgrad.cli", "irgrad.frontends.driver", "irgrad.pipeline", "irgrad.llvm.load",
            "irgrad.ad.api.registrations")

_lock = threading.Lock()
_server: subprocess.Popen[bytes] | None = None
_socket_path = ""


def irgrad_command() -> list[str]:
    """A command that runs like ``[sys.executable, "-m", "irgrad"]`` (append arguments)."""
    return [sys.executable, os.path.abspath(__file__), _ensure_server()]


def irgrad_shell() -> str:
    """:func:`irgrad_command` for a shell pipeline."""
    return shlex.join(irgrad_command())


def server_pid() -> int:
    """The process id of this process's server (started if need be)."""
    _ensure_server()
    assert _server is not None
    return _server.pid


def _ensure_server() -> str:
    global _server, _socket_path
    with _lock:
        if _server is not None and _server.poll() is None:
            return _socket_path
        directory = tempfile.mkdtemp(prefix="irgrad-warm-")
        if len(directory) > 90:  # a Unix socket's path holds at most 107 bytes
            os.rmdir(directory)
            directory = tempfile.mkdtemp(prefix="irgrad-warm-", dir="/tmp")
        path = os.path.join(directory, "socket")
        proc = subprocess.Popen([sys.executable, os.path.abspath(__file__), "--serve", path],
                                stdin=subprocess.PIPE, stdout=subprocess.PIPE)
        assert proc.stdout is not None
        ready = proc.stdout.readline()
        if ready.strip() != b"ready":
            raise RuntimeError(f"the warm irgrad server did not start (exit {proc.wait()})")
        _server, _socket_path = proc, path
        atexit.register(_stop, proc, directory)
        return path


def _stop(proc: subprocess.Popen[bytes], directory: str) -> None:
    if proc.stdin is not None:
        proc.stdin.close()
    try:
        proc.wait(timeout=10)
    except subprocess.TimeoutExpired:
        proc.kill()
    shutil.rmtree(directory, ignore_errors=True)


# -- the server ------------------------------------------------------------------------


def _serve(path: str) -> None:
    import importlib

    for name in _PRELOAD:
        importlib.import_module(name)
    # the build cache's key for irgrad's code, taken now, from the code this server runs:
    # taken in each child, it would describe files edited since (a change made while the
    # suite runs), and cache what the old code built under the new code's key
    importlib.import_module("irgrad.build_cache").irgrad_fingerprint()
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    listener.bind(path)
    listener.listen(64)
    wake_r, wake_w = os.pipe()
    os.set_blocking(wake_r, False)
    os.set_blocking(wake_w, False)
    signal.set_wakeup_fd(wake_w)
    signal.signal(signal.SIGCHLD, lambda *_: None)
    pending: dict[int, socket.socket] = {}  # child pid -> its client's connection
    sys.stdout.write("ready\n")
    sys.stdout.flush()
    while True:
        watched = [listener.fileno(), wake_r, 0, *(c.fileno() for c in pending.values())]
        try:
            readable, _, _ = select.select(watched, [], [])
        except InterruptedError:
            continue
        if 0 in readable and not os.read(0, 4096):
            for pid in pending:
                os.kill(pid, signal.SIGKILL)
            listener.close()
            with contextlib.suppress(OSError):
                os.unlink(path)
                os.rmdir(os.path.dirname(path))
            return
        if wake_r in readable:
            while True:
                try:
                    if not os.read(wake_r, 4096):
                        break
                except BlockingIOError:
                    break
        _reap(pending)
        for pid, conn in list(pending.items()):
            if conn.fileno() in readable:  # the client went away: so does its child
                os.kill(pid, signal.SIGKILL)
        if listener.fileno() in readable:
            conn, _ = listener.accept()
            request, fds = _receive(conn)
            pid = os.fork()
            if pid == 0:
                listener.close()
                os.close(wake_r)
                os.close(wake_w)
                for other in pending.values():
                    other.close()
                _child(conn, request, fds)
            for fd in fds:
                os.close(fd)
            pending[pid] = conn


def _reap(pending: dict[int, socket.socket]) -> None:
    while pending:
        try:
            pid, status = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            return
        conn = pending.pop(pid, None)
        if conn is not None:
            with contextlib.suppress(OSError):
                conn.sendall(_STATUS.pack(status))
            conn.close()


def _receive(conn: socket.socket) -> tuple[dict[str, object], list[int]]:
    data, fds, _, _ = socket.recv_fds(conn, 1 << 16, 3)
    while len(data) < _HEADER.size:
        data += conn.recv(1 << 16)
    (size,) = _HEADER.unpack_from(data)
    while len(data) < _HEADER.size + size:
        data += conn.recv(1 << 16)
    return json.loads(data[_HEADER.size:_HEADER.size + size]), list(fds)


def _child(conn: socket.socket, request: dict[str, object], fds: list[int]) -> None:
    signal.set_wakeup_fd(-1)
    signal.signal(signal.SIGCHLD, signal.SIG_DFL)
    conn.close()
    for target, fd in enumerate(fds):
        os.dup2(fd, target)
        os.close(fd)
    code = 1
    try:
        os.chdir(str(request["cwd"]))
        env = request["env"]
        assert isinstance(env, dict)
        os.environ.clear()
        os.environ.update(env)
        argv = request["argv"]
        assert isinstance(argv, list)
        import irgrad

        sys.argv = [os.path.join(os.path.dirname(irgrad.__file__), "__main__.py"), *argv]
        from irgrad.cli import main

        code = main()
    except SystemExit as stop:
        if stop.code is None or isinstance(stop.code, int):
            code = stop.code or 0
        else:
            sys.stderr.write(f"{stop.code}\n")
            code = 1
    except BaseException:
        import traceback

        traceback.print_exc()
        code = 1
    finally:
        for stream in (sys.stdout, sys.stderr):
            with contextlib.suppress(Exception):
                stream.flush()
        os._exit(code if isinstance(code, int) else 1)


# -- the client ------------------------------------------------------------------------


def _client(path: str, argv: list[str]) -> None:
    payload = json.dumps({"argv": argv, "cwd": os.getcwd(), "env": dict(os.environ)}).encode()
    fds = []
    for fd in (0, 1, 2):
        try:
            os.fstat(fd)
            fds.append(fd)
        except OSError:
            fds.append(os.open(os.devnull, os.O_RDWR))
    conn = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    conn.connect(path)
    message = _HEADER.pack(len(payload)) + payload
    sent = socket.send_fds(conn, [message], fds)
    conn.sendall(message[sent:])
    data = b""
    while len(data) < _STATUS.size:
        chunk = conn.recv(_STATUS.size - len(data))
        if not chunk:
            sys.stderr.write("warm irgrad: the server closed the connection without a status\n")
            sys.exit(125)
        data += chunk
    (status,) = _STATUS.unpack(data)
    if os.WIFSIGNALED(status):
        sig = os.WTERMSIG(status)
        signal.signal(sig, signal.SIG_DFL)
        os.kill(os.getpid(), sig)
    sys.exit(os.waitstatus_to_exitcode(status))


if __name__ == "__main__":
    if sys.argv[1:2] == ["--serve"]:
        _serve(sys.argv[2])
    else:
        _client(sys.argv[1], sys.argv[2:])
