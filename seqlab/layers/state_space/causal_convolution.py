"""The causal convolution of each channel of a sequence with its own kernel as long as the sequence."""

from keras import ops

# Measured on this 2-core CPU, batch 64, 32 channels, forward and backward:
# the direct form took 6 / 23 / 56 ms at 64 / 128 / 256 steps, the FFT
# 15 / 28 / 54 ms. Direct up to 256 steps; the FFT, O(L log L), beyond them
# and when the length is only known at run time.
DIRECT_MAX_STEPS = 256


def causal_convolution(inputs, kernel):
    r"""$y_t = \sum_{k=0}^{t} K_k u_{t-k}$ for every channel.

    Args:
        inputs: $u$, `(batch, steps, channels)`.
        kernel: $K$, `(channels, steps)`, $K_0$ first.

    Returns:
        `(batch, steps, channels)`.
    """
    steps = inputs.shape[1]
    if steps is not None and steps <= DIRECT_MAX_STEPS:
        return _direct(inputs, kernel)
    return _fft(inputs, kernel)


def _direct(inputs, kernel):
    steps = ops.shape(inputs)[1]
    t = ops.arange(steps)
    lag = t[:, None] - t[None, :]  # (t, s): output step t reads input step s through K_{t-s}
    toeplitz = ops.where(lag >= 0, ops.take(kernel, ops.maximum(lag, 0), axis=1), 0.0)  # (H, L, L)
    return ops.einsum("bsh,hts->bth", inputs, toeplitz)


def _fft(inputs, kernel):
    steps = ops.shape(inputs)[1]
    length = 2 * steps  # zero-padded to 2L: the circular convolution is then the linear one
    u_real, u_imag = ops.rfft(ops.transpose(inputs, (0, 2, 1)), fft_length=length)  # (B, H, L + 1)
    k_real, k_imag = ops.rfft(kernel, fft_length=length)  # (H, L + 1)
    product = (u_real * k_real - u_imag * k_imag, u_real * k_imag + u_imag * k_real)
    outputs = ops.irfft(product, fft_length=length)[..., :steps]  # (B, H, L)
    return ops.transpose(outputs, (0, 2, 1))
