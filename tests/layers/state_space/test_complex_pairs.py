import numpy as np
import pytest

from seqlab.layers.state_space import complex_pairs as cx

RNG = np.random.default_rng(0)
A, B = RNG.normal(size=5) + 1j * RNG.normal(size=5), RNG.normal(size=5) + 1j * RNG.normal(size=5)


def _pair(z, real):
    return (z.real, None) if real else (z.real, z.imag)


def _value(pair):
    return np.asarray(pair[0]) + 1j * (0.0 if pair[1] is None else np.asarray(pair[1]))


@pytest.mark.parametrize("a_real, b_real", [(False, False), (True, False), (False, True), (True, True)])
@pytest.mark.parametrize("name, expected", [("multiply", np.multiply), ("add", np.add), ("divide", np.divide)])
def test_binary_operations_are_numpys_complex_ones(a_real, b_real, name, expected):
    a, b = (A.real if a_real else A), (B.real if b_real else B)
    result = getattr(cx, name)(_pair(a, a_real), _pair(b, b_real))
    assert (result[1] is None) == (a_real and b_real)  # a real result stays real
    np.testing.assert_allclose(_value(result), expected(a, b), rtol=1e-6)


@pytest.mark.parametrize("real", [False, True])
def test_exp_and_expm1(real):
    z = A.real if real else A
    np.testing.assert_allclose(_value(cx.exp(_pair(z, real))), np.exp(z), rtol=1e-6)
    tiny = (1e-4 * z).astype(np.float32 if real else np.complex64)  # float32: exp(z) - 1 would keep 3 digits
    np.testing.assert_allclose(_value(cx.expm1(_pair(tiny, real))), np.exp(tiny.astype(complex)) - 1, rtol=1e-5)
