"""irgrad: automatic differentiation of LLVM IR."""

__version__ = "0.1.0"
