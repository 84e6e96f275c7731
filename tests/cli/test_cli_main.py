"""In-process checks of the CLI's error handling and of ``irgrad cc`` argument parsing."""

from __future__ import annotations

import pytest

from irgrad import cli
from irgrad.errors import UsageError
from irgrad.frontends.driver import parse_cc_args


def test_internal_error_exits_70(monkeypatch, capsys) -> None:
    def boom(argv):
        raise RuntimeError("kaboom")

    monkeypatch.setitem(cli.COMMANDS, "opt", boom)
    assert cli.main(["opt", "x.ll"]) == 70
    err = capsys.readouterr().err
    assert "irgrad: internal error: RuntimeError: kaboom" in err
    assert "IRGRAD_DEBUG=1" in err and "Traceback" not in err


def test_user_error_exits_2(capsys) -> None:
    assert cli.main(["cc", "-c"]) == 2
    assert capsys.readouterr().err == "error: no input files\n"


def test_help_and_version(capsys) -> None:
    assert cli.main(["--help"]) == 0
    assert "opt" in capsys.readouterr().out
    assert cli.main(["--version"]) == 0
    assert capsys.readouterr().out.startswith("irgrad ")


def test_parse_cc_args(tmp_path, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "a.c").write_text("int x;\n")
    (tmp_path / "b.f90").write_text("end\n")
    inv = parse_cc_args(
        ["-O3", "-Iinc", "-D", "N=3", "-std=c11", "a.c", "-x", "c++", "a.c", "-x", "none",
         "b.f90", "lib.o", "-L/opt/lib", "-lfoo", "-Wl,--as-needed", "-fuse-ld=lld", "-o", "out"]
    )
    assert inv.opt_level == 3 and inv.output == "out" and inv.use_lld
    assert [(str(p), lang) for p, lang in inv.sources] == [
        ("a.c", "c"), ("a.c", "c++"), ("b.f90", "fortran"),
    ]
    assert inv.preprocessor_flags == ["-Iinc", "-DN=3"]
    assert inv.compile_flags == ["-std=c11"]
    # the link line keeps its order: sources, files, -L, -l and linker flags as given
    assert [(i.kind, i.value) for i in inv.inputs] == [
        ("source", "a.c"), ("source", "a.c"), ("source", "b.f90"), ("file", "lib.o"),
        ("flag", "-L/opt/lib"), ("library", "foo"), ("flag", "-Wl,--as-needed"),
    ]
    assert inv.library_dirs == ["/opt/lib"]
    assert inv.link_flags == ["-L/opt/lib", "-Wl,--as-needed"]


def test_parse_cc_args_errors(tmp_path, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)
    with pytest.raises(UsageError, match="no such file"):
        parse_cc_args(["missing.c"])
    with pytest.raises(UsageError, match="argument to '-o' is missing"):
        parse_cc_args(["-o"])
    with pytest.raises(UsageError, match="invalid optimization level"):
        parse_cc_args(["-O9"])
