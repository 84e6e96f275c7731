"""The rule expression DSL: construction, printing, hashing, evaluation, walk/map, simplify."""

from __future__ import annotations

import math

import pytest

from irgrad.ad.rules.expr import (
    DRET,
    FUNCTIONS,
    ONE,
    RESULT,
    ZERO,
    BinOp,
    Call,
    Cmp,
    Const,
    Neg,
    Select,
    Sym,
    X,
    Y,
    Z,
    as_expr,
    cos,
    digamma,
    digamma_value,
    eq,
    exp,
    frexp_exp,
    ge,
    ieee_div,
    ieee_pow,
    isnan,
    log,
    lt,
    ne,
    pow,
    sign,
    simplify,
    sin,
    sqrt,
    to_fp,
    where,
)


def test_operators_build_nodes() -> None:
    e = 1 / (1 + X * X)
    assert e == BinOp("/", Const(1.0), BinOp("+", Const(1.0), BinOp("*", X, X)))
    assert Neg(X) == -X
    assert BinOp("-", X, Const(2.0)) == X - 2
    assert BinOp("-", Const(2.0), X) == 2 - X
    assert BinOp("*", Const(3.0), Y) == 3 * Y
    assert sin(X) == Call("sin", (X,))
    assert where(lt(X, Y), X, 0) == Select(Cmp("lt", X, Y), X, Const(0.0))
    assert +X is X


def test_printing() -> None:
    assert str(1 / (1 + X * X)) == "1 / (1 + X * X)"
    assert str(X - (Y - Z)) == "X - (Y - Z)"
    assert str((X - Y) - Z) == "X - Y - Z"
    assert str(X / (Y * Z)) == "X / (Y * Z)"
    assert str(X * (Y / Z)) == "X * (Y / Z)"
    assert str(-(X + Y)) == "-(X + Y)"
    assert str(X * -Y) == "X * (-Y)"
    assert str(where(ge(X, 0), 1, -1)) == "where(X >= 0, 1, -1)"
    assert str(pow(X, Y - 1)) == "pow(X, Y - 1)"
    assert str(Const(0.5)) == "0.5"


def test_hash_and_equality_are_structural() -> None:
    a = DRET * cos(X)
    b = DRET * cos(X)
    assert a == b and hash(a) == hash(b) and a is not b
    assert a != DRET * sin(X)
    assert len({a, b, X, Sym("X")}) == 2


def test_evaluate() -> None:
    env = {"X": 0.5, "Y": 2.0, "RESULT": math.exp(0.5), "DRET": 3.0}
    assert (DRET * RESULT).evaluate(env) == pytest.approx(3.0 * math.exp(0.5))
    assert (1 / (1 + X * X)).evaluate(env) == pytest.approx(0.8)
    assert pow(X, Y).evaluate(env) == pytest.approx(0.25)
    assert sqrt(Y).evaluate(env) == pytest.approx(math.sqrt(2.0))
    assert where(lt(X, Y), X, Y).evaluate(env) == 0.5
    assert where(lt(Y, X), X, Y).evaluate(env) == 2.0
    assert (-log(X)).evaluate(env) == pytest.approx(math.log(2.0))
    assert to_fp(Y).evaluate(env) == 2.0
    assert X.evaluate({X: 4.0}) == 4.0  # symbols as keys work too


def test_evaluate_missing_symbol() -> None:
    with pytest.raises(KeyError, match="RESULT"):
        (X + RESULT).evaluate({"X": 1.0})


def test_ieee_semantics() -> None:
    assert (1 / X).evaluate({"X": 0.0}) == math.inf
    assert (-1 / X).evaluate({"X": 0.0}) == -math.inf
    assert math.isnan((X / X).evaluate({"X": 0.0}))
    assert math.isnan(log(X).evaluate({"X": -1.0}))
    assert math.isnan(sqrt(X).evaluate({"X": -1.0}))
    assert exp(X).evaluate({"X": 1e6}) == math.inf
    assert ieee_div(1.0, -0.0) == -math.inf
    assert ieee_pow(0.0, -1.0) == math.inf
    assert ieee_pow(-0.0, -3.0) == -math.inf
    assert ieee_pow(-8.0, 1.0 / 3.0) != ieee_pow(-8.0, 1.0 / 3.0)  # NaN
    # where evaluates both arms (like select), and picks the guarded one
    guarded = where(eq(X, 0), 0, Y * log(X))
    assert guarded.evaluate({"X": 0.0, "Y": 1.0}) == 0.0
    assert isnan(X).evaluate({"X": math.nan}) == 1.0
    assert ne(X, X).evaluate({"X": 1.0}) == 0.0


def test_special_functions() -> None:
    euler_gamma = 0.5772156649015329
    assert digamma_value(1.0) == pytest.approx(-euler_gamma, rel=1e-12)
    assert digamma_value(0.5) == pytest.approx(-euler_gamma - 2 * math.log(2), rel=1e-12)
    assert digamma_value(10.0) == pytest.approx(2.251752589066721, rel=1e-12)
    assert digamma_value(-0.5) == pytest.approx(0.03648997397857652, rel=1e-10)
    assert math.isnan(digamma_value(0.0)) and math.isnan(digamma_value(-2.0))
    for x in (0.3, 1.7, 4.2, 12.5):
        h = 1e-6
        fd = (math.lgamma(x + h) - math.lgamma(x - h)) / (2 * h)
        assert digamma(X).evaluate({"X": x}) == pytest.approx(fd, rel=1e-7)
    assert frexp_exp(X).evaluate({"X": 8.0}) == 4.0  # 8 = 0.5 * 2**4
    assert sign(X).evaluate({"X": -2.0}) == -1.0
    assert sign(X).evaluate({"X": 0.0}) == 0.0


def test_type_errors() -> None:
    with pytest.raises(TypeError, match="boolean"):
        _ = lt(X, Y) + 1
    with pytest.raises(TypeError, match="condition"):
        where(X, 1, 0)
    with pytest.raises(TypeError, match="truth value"):
        bool(X)
    with pytest.raises(ValueError, match="takes 1 argument"):
        Call("sin", (X, Y))
    with pytest.raises(ValueError, match="unknown rule function"):
        Call("gamma", (X,))
    with pytest.raises(TypeError):
        as_expr("x")  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        as_expr(True)


def test_walk_is_post_order() -> None:
    e = DRET * cos(X)
    nodes = list(e.walk())
    assert nodes == [DRET, X, cos(X), e]
    assert e.symbols() == {"DRET", "X"}


def test_map_and_substitute() -> None:
    e = 1 / (1 + X * X)
    assert e.substitute({"X": Y}) == 1 / (1 + Y * Y)
    assert e.substitute({"X": 2.0}).evaluate({}) == pytest.approx(0.2)
    # count nodes with map (the emitter's pattern: children are done first)
    seen: list[str] = []

    def record(node):  # type: ignore[no-untyped-def]
        seen.append(type(node).__name__)
        return node

    assert e.map(record) == e
    assert seen == ["Const", "Const", "Sym", "Sym", "BinOp", "BinOp", "BinOp"]


def test_simplify() -> None:
    assert simplify(DRET * ONE) == DRET
    assert simplify(ONE * DRET) == DRET
    assert simplify(DRET * ZERO) == ZERO
    assert simplify(X + 0) == X
    assert simplify(0 - X) == -X
    assert simplify(Neg(Neg(X))) == X
    assert simplify(Const(2.0) * 3) == Const(6.0)
    assert simplify(X + -Y) == X - Y
    assert simplify(DRET * -(X / Y)) == -(DRET * (X / Y))
    assert simplify(where(lt(X, Y), X, X)) == X
    assert simplify(X * -1) == -X


def test_function_table_entries_evaluate() -> None:
    for name, spec in FUNCTIONS.items():
        args = [0.75] * spec.arity
        value = Call(name, tuple(Const(a) for a in args)).evaluate({})
        assert value == pytest.approx(float(spec.impl(*args))), name
