"""The llvmlite bridge: load (parse + verify), canonicalize (pre-AD), optimize (post-AD),
jit (LLJIT + ctypes) and objects (object files and linking)."""

from irgrad.llvm.canonicalize import canonicalize, strip_optnone, strip_optnone_text
from irgrad.llvm.jit import JITModule
from irgrad.llvm.load import is_bitcode, load_file, module_text, parse_llvm, verify
from irgrad.llvm.objects import LinkOptions, emit_assembly, emit_object, link
from irgrad.llvm.optimize import optimize
from irgrad.llvm.target import create_target_machine, initialize

__all__ = [
    "JITModule",
    "LinkOptions",
    "canonicalize",
    "create_target_machine",
    "emit_assembly",
    "emit_object",
    "initialize",
    "is_bitcode",
    "link",
    "load_file",
    "module_text",
    "optimize",
    "parse_llvm",
    "strip_optnone",
    "strip_optnone_text",
    "verify",
]
