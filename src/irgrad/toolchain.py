"""Finding and running the external tools irgrad drives (clang-22, flang-22, rustc, ...).

Every tool is looked up by its versioned name on ``PATH`` (then in ``/usr/lib/llvm-22/bin``);
an environment variable overrides the lookup (``IRGRAD_CLANG=/opt/llvm/bin/clang``). A
missing tool raises :class:`~irgrad.errors.ToolchainError` that says what to install; a tool
that fails raises the same error carrying the tool's own diagnostics.
"""

from __future__ import annotations

import contextlib
import contextvars
import functools
import os
import shutil
import subprocess
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

from irgrad.errors import ToolchainError

LLVM_MAJOR = 22
_LLVM_BIN = Path(f"/usr/lib/llvm-{LLVM_MAJOR}/bin")


@dataclass(frozen=True)
class Tool:
    """How to find one tool: its executable name, override variable and install hint."""

    key: str
    executable: str
    env_var: str
    install_hint: str
    llvm_bin_name: str | None = None


def _llvm_tool(key: str, exe: str, package: str, env: str) -> Tool:
    return Tool(
        key=key,
        executable=f"{exe}-{LLVM_MAJOR}",
        env_var=env,
        install_hint=f"install it with `apt-get install {package}-{LLVM_MAJOR}` "
        f"(or set {env} to its path)",
        llvm_bin_name=exe,
    )


TOOLS: dict[str, Tool] = {
    "clang": _llvm_tool("clang", "clang", "clang", "IRGRAD_CLANG"),
    "clang++": _llvm_tool("clang++", "clang++", "clang", "IRGRAD_CLANGXX"),
    "flang": _llvm_tool("flang", "flang", "flang", "IRGRAD_FLANG"),
    "lli": _llvm_tool("lli", "lli", "llvm", "IRGRAD_LLI"),
    "opt": _llvm_tool("opt", "opt", "llvm", "IRGRAD_OPT"),
    "llvm-as": _llvm_tool("llvm-as", "llvm-as", "llvm", "IRGRAD_LLVM_AS"),
    "llvm-dis": _llvm_tool("llvm-dis", "llvm-dis", "llvm", "IRGRAD_LLVM_DIS"),
    "ld.lld": _llvm_tool("ld.lld", "ld.lld", "lld", "IRGRAD_LLD"),
    "llvm-nm": _llvm_tool("llvm-nm", "llvm-nm", "llvm", "IRGRAD_LLVM_NM"),
    "llvm-ar": _llvm_tool("llvm-ar", "llvm-ar", "llvm", "IRGRAD_LLVM_AR"),
    "llvm-ranlib": _llvm_tool("llvm-ranlib", "llvm-ranlib", "llvm", "IRGRAD_LLVM_RANLIB"),
    "rustc": Tool(
        key="rustc",
        executable="rustc",
        env_var="IRGRAD_RUSTC",
        install_hint="install Rust (https://rustup.rs, or `apt-get install rustc`) "
        "or set IRGRAD_RUSTC to its path",
    ),
}


def find_tool(key: str) -> str:
    """The absolute path of tool ``key`` (a key of :data:`TOOLS`); ToolchainError if missing."""
    tool = TOOLS.get(key)
    if tool is None:
        raise ToolchainError(f"unknown tool '{key}'")
    return _find(tool, os.environ.get(tool.env_var) or None)


@functools.cache
def _find(tool: Tool, override: str | None) -> str:
    if override:
        found = shutil.which(override)
        if found is None:
            raise ToolchainError(
                f"{tool.env_var}={override!r} does not name an executable program"
            )
        return found
    found = shutil.which(tool.executable)
    if found is None and tool.llvm_bin_name is not None:
        candidate = _LLVM_BIN / tool.llvm_bin_name
        if candidate.is_file() and os.access(candidate, os.X_OK):
            found = str(candidate)
    if found is None:
        raise ToolchainError(f"'{tool.executable}' not found: {tool.install_hint}")
    return found


# receives (argv, seconds) of every tool run (``irgrad cc -v`` prints them)
CommandObserver = Callable[[Sequence[str], float], None]
_observer: contextvars.ContextVar[CommandObserver | None] = contextvars.ContextVar(
    "irgrad_command_observer", default=None
)


@contextlib.contextmanager
def observe_commands(observer: CommandObserver | None) -> Iterator[None]:
    """Within the block, report every :func:`run_tool` command and its time to ``observer``."""
    token = _observer.set(observer)
    try:
        yield
    finally:
        _observer.reset(token)


def run_tool(
    key: str,
    args: Sequence[str],
    *,
    input: bytes | None = None,
    cwd: str | Path | None = None,
    what: str | None = None,
    env: dict[str, str] | None = None,
) -> subprocess.CompletedProcess[bytes]:
    """Run tool ``key`` with ``args``; a non-zero exit becomes a ToolchainError with its
    stderr. ``env``: variables added to the environment."""
    exe = find_tool(key)
    argv = [exe, *map(str, args)]
    start = time.perf_counter()
    full_env = {**os.environ, **env} if env else None
    try:
        proc = subprocess.run(argv, input=input, cwd=cwd, capture_output=True, check=False,
                              env=full_env)
    except OSError as exc:
        raise ToolchainError(f"cannot run '{exe}': {exc}") from exc
    observer = _observer.get()
    if observer is not None:
        observer(argv, time.perf_counter() - start)
    if proc.returncode != 0:
        stderr = proc.stderr.decode("utf-8", "replace").strip()
        doing = what or f"{Path(exe).name} failed"
        detail = f"\n{stderr}" if stderr else ""
        raise ToolchainError(f"{doing} (exit status {proc.returncode}){detail}")
    return proc


@functools.cache
def rust_sysroot() -> Path:
    """rustc's sysroot (where the Rust standard library lives)."""
    out = run_tool("rustc", ["--print", "sysroot"], what="rustc --print sysroot failed")
    return Path(out.stdout.decode().strip())


@functools.cache
def rust_target_libdir() -> Path:
    """The directory holding the host's Rust standard library (libstd-*.so, *.rlib)."""
    out = run_tool(
        "rustc", ["--print", "target-libdir"], what="rustc --print target-libdir failed"
    )
    return Path(out.stdout.decode().strip())


def enzyme_include_dir() -> Path:
    """The directory holding ``enzyme/enzyme.h`` (Enzyme's user API), shipped inside the
    package (``clang -I$(irgrad --include-dir)``)."""
    return Path(__file__).resolve().parent / "include"
