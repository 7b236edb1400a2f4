r"""Complex arithmetic on pairs of real tensors `(re, im)`, `im=None` for a real number.

The diagonal state-space layer writes its complex algebra out in real tensors,
so it needs no complex dtype (keras.ops' support for them varies by backend);
with S4D-Real (`im` is None everywhere) the same code runs real arithmetic only.
"""

from keras import ops


def multiply(a, b):
    """$(a_r + i a_i)(b_r + i b_i)$."""
    (ar, ai), (br, bi) = a, b
    if ai is None and bi is None:
        return ar * br, None
    if ai is None:
        return ar * br, ar * bi
    if bi is None:
        return ar * br, ai * br
    return ar * br - ai * bi, ar * bi + ai * br


def add(a, b):
    """$a + b$."""
    (ar, ai), (br, bi) = a, b
    if ai is None and bi is None:
        return ar + br, None
    return ar + br, (0.0 if ai is None else ai) + (0.0 if bi is None else bi)


def divide(a, b):
    r"""$a / b$ for $b \ne 0$."""
    (ar, ai), (br, bi) = a, b
    if bi is None:
        return ar / br, None if ai is None else ai / br
    norm = br * br + bi * bi
    ai = ops.zeros_like(ar) if ai is None else ai
    return (ar * br + ai * bi) / norm, (ai * br - ar * bi) / norm


def exp(z):
    r"""$e^{z_r}(\cos z_i + i \sin z_i)$."""
    zr, zi = z
    magnitude = ops.exp(zr)
    return (magnitude, None) if zi is None else (magnitude * ops.cos(zi), magnitude * ops.sin(zi))


def expm1(z):
    r"""$e^z - 1$ without the cancellation of `exp(z) - 1` when $|z|$ is small (a short $\Delta$):
    $\mathrm{Re} = \mathrm{expm1}(z_r) \cos z_i - 2 \sin^2(z_i / 2)$."""
    zr, zi = z
    if zi is None:
        return ops.expm1(zr), None
    half_sine = ops.sin(zi / 2.0)
    return ops.expm1(zr) * ops.cos(zi) - 2.0 * half_sine * half_sine, ops.exp(zr) * ops.sin(zi)


def map_parts(fn, z):
    """`fn` on each part of `z` (reshaping, slicing), None kept."""
    return tuple(None if part is None else fn(part) for part in z)


def parts(z):
    """The parts of `z` that exist, as a list: a state's tensors."""
    return [part for part in z if part is not None]
