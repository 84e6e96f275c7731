"""The ``irgrad`` command line.

    irgrad opt IN [-o OUT] [-S] [-O0..-O3]     like LLVM's opt with -passes=enzyme
    irgrad cc [clang flags] sources...          a clang-compatible driver (AD at link time)
    irgrad --version | --include-dir

The console scripts ``irgrad-cc``, ``irgrad-c++`` and ``irgrad-fortran`` are ``irgrad cc``
standing in for clang-22, clang++-22 and flang-22 (for ``CC=irgrad-cc`` in make, CMake,
Meson); ``irgrad-ar`` and ``irgrad-ranlib`` are llvm-ar-22 and llvm-ranlib-22, which
index LLVM 22 bitcode objects.

Errors a user can cause print ``file:line:col: error: message`` and exit with status 2;
anything else is an internal error (status 70) — never a bare traceback.
"""

from __future__ import annotations

import argparse
import os
import sys
import traceback
from collections.abc import Callable, Sequence
from pathlib import Path

from irgrad.errors import IRGradError

EXIT_USER_ERROR = 2
EXIT_INTERNAL_ERROR = 70

_USAGE = """\
usage: irgrad <command> [options]

commands:
  opt   read LLVM IR (.ll/.bc, file or '-' for stdin), lower __enzyme_* calls, optimize
  cc    clang-compatible compiler driver (C, C++, Fortran, Rust, .ll/.bc, .o/.a inputs);
        -c writes LLVM bitcode objects, the link step differentiates across all of them

options:
  --version      irgrad, llvmlite/LLVM and every front end found (or how to install it)
  --include-dir  the folder holding enzyme/enzyme.h (clang -I$(irgrad --include-dir))

'irgrad <command> --help' shows a command's options.
"""


def _opt_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="irgrad opt",
        description="Read LLVM IR, lower __enzyme_* calls to derivatives, optimize, write IR.",
    )
    parser.add_argument("input", help="input .ll or .bc file ('-' reads standard input)")
    parser.add_argument("-o", dest="output", default="-", help="output file (default: stdout)")
    parser.add_argument("-S", dest="text", action="store_true", help="write IR text, not bitcode")
    parser.add_argument(
        "-O", dest="opt_level", type=int, choices=(0, 1, 2, 3), default=2,
        help="post-AD optimization level (default 2)",
    )
    parser.add_argument(
        "--no-pre-ad", dest="pre_ad", action="store_false",
        help="differentiate the IR as given (skip the pre-AD O2 simplification)",
    )
    parser.add_argument(
        "--print-type-analysis", metavar="FN", action="append", default=[],
        help="print type analysis of function FN (before AD) to stdout",
    )
    parser.add_argument(
        "--print-activity", metavar="FN", action="append", default=[],
        help="print activity analysis of function FN (before AD) to stdout",
    )
    parser.add_argument(
        "--explain-ad", action="store_true",
        help="report, for each reverse-mode derivative, what is cached on the tape (source "
        "line, bytes per iteration, totals for trip counts known at compile time), what is "
        "recomputed and why, and the tape's peak size (to stderr)",
    )
    return parser


def run_opt(argv: Sequence[str]) -> int:
    """``irgrad opt``: the pipeline on one module, text (-S) or bitcode out."""
    args = _opt_parser().parse_args(list(argv))
    from irgrad.llvm.load import load_file
    from irgrad.pipeline import PipelineOptions, explain_sink, run_pipeline

    filename = "<stdin>" if args.input == "-" else args.input
    module = load_file(args.input)
    printed = tuple(("type", f) for f in args.print_type_analysis) + tuple(
        ("activity", f) for f in args.print_activity
    )
    options = PipelineOptions(
        opt_level=args.opt_level, pre_ad=args.pre_ad, print_analyses=printed,
        analysis_sink=lambda text: print(text, file=sys.stdout, flush=True),
        explain_sink=explain_sink(args.explain_ad),
    )
    module = run_pipeline(module, filename=filename, options=options)
    data = str(module).encode() if args.text else module.as_bitcode()
    if args.output == "-":
        if not args.text and sys.stdout.isatty():
            print(
                "irgrad opt: not writing bitcode to a terminal (use -S or -o FILE)",
                file=sys.stderr,
            )
            return EXIT_USER_ERROR
        sys.stdout.buffer.write(data)
        sys.stdout.buffer.flush()
    else:
        Path(args.output).write_bytes(data)
    return 0


_CC_HELP = """\
usage: irgrad cc [clang options] inputs... [-c|-S [-emit-llvm]] [-o OUT] [-O0..3]

  -c            write an LTO object (LLVM bitcode, __enzyme_* calls kept), with or
                without -flto; the link step differentiates across objects and archives
  -v            print each stage with its command and time, and the build cache's hits
  -Xirgrad OPT  irgrad options: --print-activity=F, --print-type-analysis=F (printed
                when the module that AD uses is complete: at the link step),
                --no-pre-ad (differentiate the IR as the front end wrote it)
"""


def run_cc(argv: Sequence[str], personality: str = "cc") -> int:
    """``irgrad cc``: see :mod:`irgrad.frontends.driver`."""
    if list(argv) in (["--help"], ["-h"]):
        print(_CC_HELP, end="")
        return 0
    from irgrad.frontends.driver import run_cc as driver

    return driver(argv, personality)


COMMANDS = {"opt": run_opt, "cc": run_cc}


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``irgrad`` script; returns the process exit status."""
    args = list(sys.argv[1:] if argv is None else argv)
    if not args or args[0] in ("-h", "--help", "help"):
        print(_USAGE, end="")
        return 0 if args else EXIT_USER_ERROR
    if args[0] == "--version":
        from irgrad.frontends.tool_report import version_report

        print(version_report())
        return 0
    if args[0] == "--include-dir":
        from irgrad.toolchain import enzyme_include_dir

        print(enzyme_include_dir())
        return 0
    command = COMMANDS.get(args[0])
    if command is None:
        print(f"irgrad: unknown command '{args[0]}'\n\n{_USAGE}", end="", file=sys.stderr)
        return EXIT_USER_ERROR
    return _guarded(command, args[1:])


def _guarded(command: Callable[[Sequence[str]], int], argv: Sequence[str]) -> int:
    """Run ``command``: user errors print ``file:line: error: ...`` and give status 2,
    irgrad bugs give status 70 — never a bare traceback."""
    try:
        return command(argv)
    except IRGradError as err:
        print(err.format(), file=sys.stderr)
        return EXIT_USER_ERROR
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        return 0
    except Exception as exc:  # an irgrad bug, not a user error
        print(f"irgrad: internal error: {type(exc).__name__}: {exc}", file=sys.stderr)
        if os.environ.get("IRGRAD_DEBUG"):
            traceback.print_exc()
        else:
            print(
                "irgrad: this is a bug in irgrad; rerun with IRGRAD_DEBUG=1 for details "
                "and report it with the input that caused it",
                file=sys.stderr,
            )
        return EXIT_INTERNAL_ERROR


def _drop_in(personality: str) -> int:
    return _guarded(lambda argv: run_cc(argv, personality), sys.argv[1:])


def cc_main() -> int:
    """``irgrad-cc``: ``irgrad cc`` as one executable path (``CC=irgrad-cc``)."""
    return _drop_in("cc")


def cxx_main() -> int:
    """``irgrad-c++``: like clang++ (C++ sources, links the C++ standard library)."""
    return _drop_in("c++")


def fortran_main() -> int:
    """``irgrad-fortran``: like flang (links the Fortran runtime)."""
    return _drop_in("fortran")


def _llvm_tool_main(key: str) -> int:
    from irgrad.toolchain import find_tool

    def run(argv: Sequence[str]) -> int:
        import subprocess

        return subprocess.run([find_tool(key), *argv], check=False).returncode

    return _guarded(run, sys.argv[1:])


def ar_main() -> int:
    """``irgrad-ar``: llvm-ar-22 (indexes LLVM 22 bitcode members; GNU ar works too)."""
    return _llvm_tool_main("llvm-ar")


def ranlib_main() -> int:
    """``irgrad-ranlib``: llvm-ranlib-22."""
    return _llvm_tool_main("llvm-ranlib")
