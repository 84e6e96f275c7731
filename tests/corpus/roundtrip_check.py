"""The round-trip property every corpus module must satisfy.

parse -> print -> parse -> print gives the same text twice; LLVM parses and verifies our
print; LLVM's own print of our output equals LLVM's print of the original module. With
``lazy=False`` every function body is parsed into instructions and printed from them, and
the block/instruction counts per function must match what LLVM sees.
"""

from __future__ import annotations

import difflib
import functools

import llvmlite.binding as llvm

from irgrad import ir


@functools.cache
def _init_llvm() -> None:
    llvm.initialize_native_target()
    llvm.initialize_native_asmprinter()


def text_diff(expected: str, actual: str, expected_name: str, actual_name: str) -> str:
    """A short unified diff (first 60 lines) for assertion messages."""
    lines = list(
        difflib.unified_diff(
            expected.splitlines(),
            actual.splitlines(),
            expected_name,
            actual_name,
            lineterm="",
            n=2,
        )
    )
    more = f"\n... ({len(lines) - 60} more diff lines)" if len(lines) > 60 else ""
    return "\n".join(lines[:60]) + more


def assert_same_text(expected: str, actual: str, expected_name: str, actual_name: str) -> None:
    if expected != actual:
        raise AssertionError(
            f"{actual_name} differs from {expected_name}:\n"
            + text_diff(expected, actual, expected_name, actual_name)
        )


def llvm_shape(module: llvm.ModuleRef) -> dict[str, tuple[int, int]]:
    """function name -> (blocks, instructions) as LLVM sees them (definitions only)."""
    shape: dict[str, tuple[int, int]] = {}
    for fn in module.functions:
        if fn.is_declaration:
            continue
        blocks = list(fn.blocks)
        shape[fn.name] = (len(blocks), sum(len(list(b.instructions)) for b in blocks))
    return shape


def our_shape(module: ir.Module) -> dict[str, tuple[int, int]]:
    shape: dict[str, tuple[int, int]] = {}
    for fn in module.functions:
        if fn.is_declaration:
            continue
        blocks = fn.blocks
        shape[fn.name] = (len(blocks), sum(len(b.instructions) for b in blocks))
    return shape


def parse_llvm_text(text: str, what: str) -> llvm.ModuleRef:
    """Parse and verify ``text`` with LLVM in a fresh context.

    A fresh LLVMContext per module keeps identified struct names as written: in the shared
    global context LLVM renames ``%struct.S`` to ``%struct.S.0`` when another module
    already defined that name, which would make the comparison depend on test order.
    """
    _init_llvm()
    try:
        module = llvm.parse_assembly(text, context=llvm.create_context())
    except RuntimeError as exc:
        raise AssertionError(f"LLVM cannot parse {what}: {exc}") from None
    try:
        module.verify()
    except RuntimeError as exc:
        raise AssertionError(f"LLVM's verifier rejects {what}: {exc}") from None
    return module


def check_roundtrip(text: str, name: str, *, lazy: bool) -> str:
    """Assert the round-trip property for module ``text``; returns our first print."""
    mode = "lazy" if lazy else "full"
    ref = parse_llvm_text(text, f"the original {name}")

    module = ir.parse_module(text, name, lazy=lazy)
    if not lazy:
        expected_shape = llvm_shape(ref)
        shape = our_shape(module)
        assert shape == expected_shape, (
            f"{name}: (blocks, instructions) per function differ from LLVM's: "
            + str({k: (shape.get(k), v) for k, v in expected_shape.items() if shape.get(k) != v})
        )
    printed = ir.print_module(module)

    reprinted = ir.print_module(ir.parse_module(printed, f"{name} (printed)", lazy=lazy))
    assert_same_text(printed, reprinted, f"print[{mode}]", f"print(parse(print))[{mode}]")

    ours = parse_llvm_text(printed, f"irgrad's print ({mode}) of {name}")
    assert_same_text(str(ref), str(ours), "LLVM print of original", f"LLVM print of ours[{mode}]")
    return printed
