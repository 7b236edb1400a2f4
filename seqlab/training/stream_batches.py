"""Training batches drawn at random offsets of a token stream (``seqlab.data.token_stream``), as a Keras PyDataset.

Backend-neutral (TensorFlow and JAX read it alike) and reproducible: batch
``i`` of epoch ``e`` is drawn by a generator seeded with ``(seed, e, i)``, so
the same seed gives the same batches in any order of reading.
"""

from __future__ import annotations

import keras
import numpy as np

from seqlab.data.token_stream import TokenStream


class StreamBatches(keras.utils.PyDataset):
    """``batches`` batches an epoch of ``batch_size`` windows of ``stream``, drawn anew every epoch."""

    def __init__(self, stream: TokenStream, batch_size: int, batches: int, seed: int):
        super().__init__()
        self.stream, self.batch_size, self.batches, self.seed = stream, batch_size, batches, seed
        self.epoch = 0

    def __len__(self) -> int:
        return self.batches

    def __getitem__(self, index: int) -> tuple[np.ndarray, np.ndarray]:
        return self.stream.random_windows(self.batch_size, np.random.default_rng((self.seed, self.epoch, index)))

    def on_epoch_end(self) -> None:
        self.epoch += 1
