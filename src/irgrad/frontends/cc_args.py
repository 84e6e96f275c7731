"""The command line of ``irgrad cc`` / ``irgrad-cc`` / ``irgrad-c++`` / ``irgrad-fortran``.

Clang's flags are understood or passed on; the positional inputs, ``-l`` libraries and
linker flags keep their order (a linker resolves archives in command-line order). irgrad's
own options come as ``-Xirgrad OPTION`` (or directly): ``--print-activity=F``,
``--print-type-analysis=F``, ``--no-pre-ad``.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from irgrad.errors import UsageError
from irgrad.frontends import detect_language
from irgrad.frontends.sanitizers import front_end_flag

# flags whose value is the next argument (when not glued: -I dir / -Idir)
_COMPILE_WITH_VALUE = {"-include", "-isystem", "-iquote", "-idirafter", "-imacros",
                       "-Xclang", "-mllvm", "-target", "-isysroot", "--sysroot"}
_PREPROCESSOR = ("-I", "-D", "-U")
_DEPENDENCY_WITH_VALUE = ("-MF", "-MT", "-MQ")
_DEPENDENCY_FLAGS = ("-MD", "-MMD", "-MP")
_LINK_ONLY_PREFIXES = ("-Wl,", "-fuse-ld=", "-rdynamic", "-static", "-shared", "-pie",
                       "-no-pie", "-nostdlib", "-nodefaultlibs", "-nostartfiles", "-rpath")
# these ask clang for something other than a compilation: clang answers them itself
_PASSTHROUGH = ("-E", "-M", "-MM", "-###", "-dM", "-dumpversion", "-dumpmachine",
                "-dumpfullversion", "--version")
_PASSTHROUGH_PREFIXES = ("-print-", "--print-")
_X_LANGUAGES = {"c": "c", "c++": "c++", "f95": "fortran", "f77": "fortran",
                "fortran": "fortran", "ir": "ir", "rust": "rust"}
_LINK_INPUT_SUFFIXES = (".o", ".a", ".so", ".obj", ".lo")
_IRGRAD_OPTIONS = ("--print-activity", "--print-type-analysis", "--no-pre-ad", "--explain-ad")

PERSONALITIES = ("cc", "c++", "fortran")


@dataclass
class LinkInput:
    """One link-line element, in order: a source, a file (object, archive, shared
    library), an ``-l`` library, or a linker flag."""

    kind: str  # "source" | "file" | "library" | "flag"
    value: str
    language: str | None = None


@dataclass
class Invocation:
    """A parsed command line."""

    personality: str = "cc"  # cc | c++ | fortran: which driver irgrad stands in for
    sources: list[tuple[Path, str]] = field(default_factory=list)  # (path, language)
    inputs: list[LinkInput] = field(default_factory=list)
    output: str | None = None
    compile_only: bool = False  # -c
    assembly: bool = False  # -S
    emit_llvm: bool = False
    lto: bool = False  # -flto[=...]
    opt_level: int | None = None  # None: not given
    debug: bool = False
    verbose: bool = False
    passthrough: bool = False  # -E, -M, --version, ...: clang answers
    compile_flags: list[str] = field(default_factory=list)  # to clang (C/C++)
    preprocessor_flags: list[str] = field(default_factory=list)  # also to flang
    fortran_flags: list[str] = field(default_factory=list)  # -J dir, -module-dir dir
    dependency_flags: list[str] = field(default_factory=list)  # -MD -MF f -MT t ...
    library_dirs: list[str] = field(default_factory=list)
    static: bool = False
    use_lld: bool = False
    shared: bool = False
    pre_ad: bool = True
    # -fsanitize=..., -fno-sanitize=..., -fsanitize-recover=...: given to the front end
    # and to the link (irgrad instruments the differentiated module itself)
    sanitize_flags: list[str] = field(default_factory=list)
    print_analyses: list[tuple[str, str]] = field(default_factory=list)  # (kind, function)
    explain_ad: bool = False  # --explain-ad: report what each derivative caches/recomputes
    argv: list[str] = field(default_factory=list)

    @property
    def level(self) -> int:
        return self.opt_level if self.opt_level is not None else 0

    @property
    def sanitizers(self) -> list[str]:
        """The sanitizers asked for (``-fsanitize=address,undefined`` -> both), in order."""
        on: list[str] = []
        for flag in self.sanitize_flags:
            name, _, value = flag.partition("=")
            for s in value.split(","):
                if name == "-fsanitize" and s and s not in on:
                    on.append(s)
                elif name == "-fno-sanitize" and s in on:
                    on.remove(s)
        return on

    @property
    def link_flags(self) -> list[str]:
        return [item.value for item in self.inputs if item.kind == "flag"]


def _opt_level(flag: str) -> int:
    level = flag[2:]
    if level in ("", "1", "g"):
        return 1
    if level in ("0", "2", "3"):
        return int(level)
    if level in ("s", "z"):
        return 2
    if level == "fast":
        return 3
    raise UsageError(f"invalid optimization level '{flag}'")


def parse_cc_args(argv: Sequence[str], personality: str = "cc") -> Invocation:
    """Parse clang-style arguments into an :class:`Invocation`."""
    inv = Invocation(personality=personality, argv=list(argv))
    language: str | None = None
    it = iter(argv)
    for arg in it:
        if arg in _PASSTHROUGH or arg.startswith(_PASSTHROUGH_PREFIXES):
            inv.passthrough = True
        elif arg == "-Xirgrad":
            _irgrad_option(inv, _value(it, arg))
        elif arg.startswith(_IRGRAD_OPTIONS) or arg == "--irgrad-no-pre-ad":
            _irgrad_option(inv, arg)
        elif arg == "-o":
            inv.output = _value(it, arg)
        elif arg.startswith("-o") and len(arg) > 2:
            inv.output = arg[2:]
        elif arg == "-c":
            inv.compile_only = True
        elif arg == "-S":
            inv.assembly = True
        elif arg == "-emit-llvm":
            inv.emit_llvm = True
        elif arg == "-flto" or arg.startswith("-flto="):
            inv.lto = True
        elif arg == "-fno-lto":
            inv.lto = False
        elif arg == "-v":
            inv.verbose = True
        elif arg.startswith("-O"):
            inv.opt_level = _opt_level(arg)
            if arg == "-Ofast":
                inv.compile_flags.append("-ffast-math")
        elif arg.startswith("-g") and not arg.startswith(("-gno-", "-g0")):
            inv.debug = True
            inv.compile_flags.append(arg)
        elif arg == "-x":
            lang = _value(it, arg)
            language = None if lang == "none" else _X_LANGUAGES.get(lang)
            if lang != "none" and language is None:
                raise UsageError(f"language '{lang}' not supported by irgrad cc")
        elif arg in _DEPENDENCY_FLAGS:
            inv.dependency_flags.append(arg)
        elif arg in _DEPENDENCY_WITH_VALUE:
            inv.dependency_flags += [arg, _value(it, arg)]
        elif arg.startswith(_DEPENDENCY_WITH_VALUE):
            inv.dependency_flags += [arg[:3], arg[3:]]
        elif arg in ("-J", "-module-dir"):
            inv.fortran_flags += ["-module-dir", _value(it, arg)]
        elif arg.startswith("-J"):
            inv.fortran_flags += ["-module-dir", arg[2:]]
        elif arg == "-L" or arg.startswith("-L"):
            inv.library_dirs.append(arg[2:] or _value(it, arg))
            inv.inputs.append(LinkInput("flag", f"-L{inv.library_dirs[-1]}"))
        elif arg == "-l" or arg.startswith("-l"):
            inv.inputs.append(LinkInput("library", arg[2:] or _value(it, arg)))
        elif arg == "-Xlinker":
            inv.inputs.append(LinkInput("flag", f"-Wl,{_value(it, arg)}"))
        elif arg == "-u":
            inv.inputs.append(LinkInput("flag", f"-Wl,-u,{_value(it, arg)}"))
        elif arg == "-fuse-ld=lld":
            inv.use_lld = True
        elif arg == "-shared":
            inv.shared = True
        elif arg.startswith(_LINK_ONLY_PREFIXES):
            inv.static = inv.static or arg == "-static"
            inv.inputs.append(LinkInput("flag", arg))
        elif arg.startswith(("-fsanitize", "-fno-sanitize")):
            inv.sanitize_flags.append(arg)
            front = front_end_flag(arg)
            if front is not None:
                inv.compile_flags.append(front)
        elif arg in ("-pthread", "-fopenmp"):
            inv.compile_flags.append(arg)
            inv.inputs.append(LinkInput("flag", arg))
        elif arg.startswith(_PREPROCESSOR):
            value = arg if len(arg) > 2 else arg + _value(it, arg)
            inv.preprocessor_flags.append(value)
        elif arg in _COMPILE_WITH_VALUE:
            inv.compile_flags += [arg, _value(it, arg)]
        elif arg.startswith("-") and arg != "-":
            inv.compile_flags.append(arg)
        else:
            _add_input(inv, arg, language)
    if not inv.passthrough and not inv.inputs and not inv.sources:
        if inv.verbose:  # `cc -v`: clang prints its version and search paths
            inv.passthrough = True
        else:
            raise UsageError("no input files")
    return inv


def _irgrad_option(inv: Invocation, option: str) -> None:
    name, _, value = option.partition("=")
    if name in ("--no-pre-ad", "--irgrad-no-pre-ad"):
        inv.pre_ad = False
    elif name == "--explain-ad" and not value:
        inv.explain_ad = True
    elif name in ("--print-activity", "--print-type-analysis") and value:
        kind = "activity" if name == "--print-activity" else "type"
        inv.print_analyses.append((kind, value))
    else:
        raise UsageError(
            f"unknown irgrad option '{option}' (expected --print-activity=F, "
            "--print-type-analysis=F, --explain-ad or --no-pre-ad)"
        )


def _value(it: Iterator[str], flag: str) -> str:
    try:
        return next(it)
    except StopIteration:
        raise UsageError(f"argument to '{flag}' is missing (expected 1 value)") from None


def _add_input(inv: Invocation, arg: str, language: str | None) -> None:
    path = Path(arg)
    if (language is None and arg.endswith(_LINK_INPUT_SUFFIXES)) or ".so." in path.name:
        inv.inputs.append(LinkInput("file", arg))
        return
    lang = language or detect_language(path)
    if lang is None:
        raise UsageError(f"cannot tell the language of input '{arg}' (use -x)")
    if not path.is_file():
        raise UsageError(f"no such file or directory: '{arg}'")
    if inv.personality == "c++" and lang == "c" and language is None:
        lang = "c++"  # clang++ compiles .c files as C++
    inv.sources.append((path, lang))
    inv.inputs.append(LinkInput("source", arg, lang))
