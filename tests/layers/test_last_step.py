"""The last real step: the one before the padding, zeros when there is none."""

import keras
import numpy as np

from seqlab.layers.last_step import LastRealStep


def test_the_last_real_step_of_every_sequence():
    z = np.arange(2 * 4 * 2, dtype="float32").reshape(2, 4, 2)
    mask = np.array([[True, True, True, False], [False, False, False, False]])
    h = keras.ops.convert_to_numpy(LastRealStep()(z, mask=mask))
    np.testing.assert_array_equal(h, [z[0, 2], [0.0, 0.0]])
    np.testing.assert_array_equal(keras.ops.convert_to_numpy(LastRealStep()(z)), z[:, -1])  # no mask: step T
