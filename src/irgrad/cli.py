"""The ``irgrad`` command line.

    irgrad opt IN [-o OUT] [-S] [-O0..-O3]     like LLVM's opt with -passes=enzyme
    irgrad cc [clang flags] sources...          a clang-compatible driver

Errors a user can cause print ``file:line:col: error: message`` and exit with status 2;
anything else is an internal error (status 70) — never a bare traceback.
"""

from __future__ import annotations

import argparse
import os
import sys
import traceback
from collections.abc import Sequence
from pathlib import Path

from irgrad import __version__
from irgrad.errors import IRGradError

EXIT_USER_ERROR = 2
EXIT_INTERNAL_ERROR = 70

_USAGE = """\
usage: irgrad <command> [options]

commands:
  opt   read LLVM IR (.ll/.bc, file or '-' for stdin), lower __enzyme_* calls, optimize
  cc    clang-compatible compiler driver (C, C++, Fortran, Rust, .ll/.bc, .o/.a inputs)

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
    return parser


def run_opt(argv: Sequence[str]) -> int:
    """``irgrad opt``: the pipeline on one module, text (-S) or bitcode out."""
    args = _opt_parser().parse_args(list(argv))
    from irgrad.llvm.load import load_file
    from irgrad.pipeline import PipelineOptions, run_pipeline

    filename = "<stdin>" if args.input == "-" else args.input
    module = load_file(args.input)
    printed = tuple(("type", f) for f in args.print_type_analysis) + tuple(
        ("activity", f) for f in args.print_activity
    )
    options = PipelineOptions(
        opt_level=args.opt_level, pre_ad=args.pre_ad, print_analyses=printed,
        analysis_sink=lambda text: print(text, file=sys.stdout, flush=True),
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


def run_cc(argv: Sequence[str]) -> int:
    """``irgrad cc``: see :mod:`irgrad.frontends.driver`."""
    if list(argv) in (["--help"], ["-h"]):
        print("usage: irgrad cc [clang options] inputs... [-c|-S [-emit-llvm]] [-o OUT] [-O0..3]")
        return 0
    from irgrad.frontends.driver import run_cc as driver

    return driver(argv)


COMMANDS = {"opt": run_opt, "cc": run_cc}


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``irgrad`` script; returns the process exit status."""
    args = list(sys.argv[1:] if argv is None else argv)
    if not args or args[0] in ("-h", "--help", "help"):
        print(_USAGE, end="")
        return 0 if args else EXIT_USER_ERROR
    if args[0] == "--version":
        print(f"irgrad {__version__}")
        return 0
    command = COMMANDS.get(args[0])
    if command is None:
        print(f"irgrad: unknown command '{args[0]}'\n\n{_USAGE}", end="", file=sys.stderr)
        return EXIT_USER_ERROR
    try:
        return command(args[1:])
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
