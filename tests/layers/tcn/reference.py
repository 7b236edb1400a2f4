"""NumPy references written from the equations of seqlab.layers.tcn, for the tests."""

import keras
import numpy as np


def numpy(tensor):
    return keras.ops.convert_to_numpy(tensor)


def causal_conv(x, f, b, d):
    r"""$(F *_d x)_t = \sum_i f_i x_{t - d i} + b$ with $x_s = 0$ before the sequence; `f` oldest tap first."""
    k = len(f)
    y = np.zeros((*x.shape[:2], f.shape[-1])) + b
    for t in range(x.shape[1]):
        for i in range(k):
            if t - d * i >= 0:
                y[:, t] += x[:, t - d * i] @ f[k - 1 - i]  # f_i is row k - 1 - i
    return y


def relu(x):
    return np.maximum(x, 0.0)


def temporal_block(block, x):
    r"""$o = \mathrm{ReLU}(x W_r + b_r + \mathcal{F}(x))$ of a built `TemporalBlock`, without dropout."""
    h = relu(causal_conv(x, numpy(block.conv1.kernel), numpy(block.conv1.bias), block.dilation))
    h = relu(causal_conv(h, numpy(block.conv2.kernel), numpy(block.conv2.bias), block.dilation))
    shortcut = x if block.residual is None else x @ numpy(block.residual.kernel) + numpy(block.residual.bias)
    return relu(shortcut + h)
