"""An image as a sequence of patches, in reading order."""

import keras
import numpy as np
import pytest

from seqlab.layers.patches import ImagePatches


def test_patches_in_reading_order():
    image = np.arange(16, dtype="float32").reshape(1, 4, 4)
    patches = keras.ops.convert_to_numpy(ImagePatches(2)(image))
    np.testing.assert_array_equal(patches[0], [[0, 1, 4, 5], [2, 3, 6, 7], [8, 9, 12, 13], [10, 11, 14, 15]])
    rgb = np.stack([image, 100 + image], axis=-1)  # (1, 4, 4, 2): channels stay together per pixel
    assert keras.ops.convert_to_numpy(ImagePatches(4)(rgb)).shape == (1, 1, 32)
    assert ImagePatches.from_config(ImagePatches(2).get_config()).patch_size == 2


def test_a_patch_that_does_not_tile_the_image_is_refused():
    with pytest.raises(ValueError, match="does not tile an image of 4x6 pixels"):
        ImagePatches(4)(np.ones((1, 4, 6), "float32"))
    with pytest.raises(ValueError, match="patch_size must be a positive integer"):
        ImagePatches(0)
