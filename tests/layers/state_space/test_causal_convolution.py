import numpy as np
import pytest

from seqlab.layers.state_space import causal_convolution as module


@pytest.mark.parametrize("direct_max_steps", [module.DIRECT_MAX_STEPS, 0], ids=["direct", "fft"])
def test_each_channel_is_numpys_convolution_cut_to_the_past(monkeypatch, direct_max_steps):
    monkeypatch.setattr(module, "DIRECT_MAX_STEPS", direct_max_steps)
    rng = np.random.default_rng(0)
    u, kernel = rng.normal(size=(2, 20, 3)).astype("float32"), rng.normal(size=(3, 20)).astype("float32")
    expected = np.stack(
        [np.stack([np.convolve(u[b, :, h], kernel[h])[:20] for h in range(3)], axis=-1) for b in range(2)]
    )
    np.testing.assert_allclose(np.asarray(module.causal_convolution(u, kernel)), expected, atol=1e-5)
