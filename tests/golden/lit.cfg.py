# lit configuration for irgrad's golden IR tests (lit + filecheck from PyPI).
# ruff: noqa: F821  (lit injects `config` and `lit_config`)
import os
import sys

import lit.formats

config.name = "irgrad-golden"
config.test_format = lit.formats.ShTest(execute_external=False)
config.suffixes = [".ll", ".c"]
config.test_source_root = os.path.dirname(__file__)
config.excludes = ["inputs", "lit.cfg.py"]

bindir = os.path.dirname(sys.executable)
config.substitutions.append(("%irgrad", f"{sys.executable} -m irgrad"))
config.substitutions.append(("%filecheck", os.path.join(bindir, "filecheck")))
config.substitutions.append(("%python", sys.executable))
config.environment["PATH"] = os.pathsep.join([bindir, os.environ.get("PATH", "")])
for var in ("HOME", "TMPDIR", "IRGRAD_CLANG"):
    if var in os.environ:
        config.environment[var] = os.environ[var]
