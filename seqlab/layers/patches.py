r"""An image cut into square patches read as a sequence: the vision transformer's tokens (seed 003).

A transformer reads a sequence of vectors; an image of H x W pixels becomes
N = HW / p^2 patches of p x p pixels, in reading order (left to right, top
to bottom), each flattened to a vector of p^2 C values.
"""

import keras
from keras import ops

__all__ = ["ImagePatches"]


@keras.saving.register_keras_serializable(package="seqlab")
class ImagePatches(keras.layers.Layer):
    r"""Cuts images into non-overlapping ``patch_size`` x ``patch_size`` patches, flattened, in reading order.

    Equations:
        $$ \mathbf{x}_n = \mathrm{vec}\left( X_{(i-1)p+1 \,:\, ip, \; (j-1)p+1 \,:\, jp} \right),
           \qquad n = (i-1)\frac{W}{p} + j $$

        $N = HW / p^2$ patches $\mathbf{x}_n \in \mathbb{R}^{p^2 C}$; $p$ must
        divide both $H$ and $W$.

    Args:
        patch_size: $p$, the side of a square patch in pixels.
        **kwargs: Base layer arguments (`name`, `dtype`, ...).

    Call arguments:
        images: `(batch, H, W)` (one channel) or `(batch, H, W, C)`.

    Returns:
        `(batch, N, p * p * C)`, N = H W / p^2.

    Example:

    ```python
    images = np.arange(16, dtype="float32").reshape(1, 4, 4)
    patches = ImagePatches(2)(images)  # (1, 4, 4): patches[0, 0] = [0, 1, 4, 5]
    ```
    """

    def __init__(self, patch_size, **kwargs):
        super().__init__(**kwargs)
        if isinstance(patch_size, bool) or not isinstance(patch_size, int) or patch_size < 1:
            raise ValueError(f"patch_size must be a positive integer, got {patch_size!r}.")
        self.patch_size = patch_size

    def _image_shape(self, input_shape) -> tuple[int, int, int]:
        if len(input_shape) not in (3, 4) or any(s is None for s in input_shape[1:]):
            raise ValueError(
                f"ImagePatches expects images (batch, H, W) or (batch, H, W, C) of known size; "
                f"received {tuple(input_shape)}."
            )
        height, width, *channels = input_shape[1:]
        p = self.patch_size
        if height % p or width % p:
            raise ValueError(
                f"A patch of {p}x{p} pixels does not tile an image of {height}x{width} pixels: choose a "
                f"patch size that divides both {height} and {width}."
            )
        return height, width, channels[0] if channels else 1

    def build(self, input_shape):
        self._image_shape(input_shape)

    def call(self, images):
        height, width, channels = self._image_shape(images.shape)
        p = self.patch_size
        x = ops.reshape(images, (-1, height // p, p, width // p, p, channels))
        x = ops.transpose(x, (0, 1, 3, 2, 4, 5))  # (B, H/p, W/p, p, p, C): patch rows, patch columns
        return ops.reshape(x, (-1, (height // p) * (width // p), p * p * channels))

    def compute_output_shape(self, input_shape):
        height, width, channels = self._image_shape(input_shape)
        p = self.patch_size
        return (input_shape[0], (height // p) * (width // p), p * p * channels)

    def get_config(self):
        return {**super().get_config(), "patch_size": self.patch_size}
