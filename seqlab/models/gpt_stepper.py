r"""A GPT language model a few tokens at a time with every block's key/value cache: the engine of its generation.

Generating token t+1 needs each block's keys and values of tokens 1..t; they
never change once computed (the mask keeps every position from reading later
ones), so each block keeps them in a cache
(``TransformerDecoderBlock.init_cache``, ``step``) and a step computes only
the new token's query, key and value: one token costs O(t d) attention
instead of a pass over the whole context.

``GPTStepper`` shares the model's layers (the same weights) and walks them
in order (embedding, projection if any, positions, the decoder blocks, the
final layer norm, the head) in two XLA-compiled functions, each compiled
once per model (and number of rows):

- ``prime``: a whole window of ``T`` ids, the prompt padded after its end, in
  one pass that fills every block's cache; the padding's keys and values are
  never read (each position reads only the ones before it) and the steps
  that follow overwrite them;
- ``step``: one new id per row at any position, reading the cache.
"""

from __future__ import annotations

import keras
import numpy as np
import tensorflow as tf
from keras import ops

from seqlab.models.gpt import FINAL_NORM, POSITIONS_LAYER, PROJECTION
from seqlab.tasks.language import HEAD_LAYER
from seqlab.tasks.text_inputs import EMBEDDING_LAYER
from seqlab.text import PAD_ID


def gpt_layers(model: keras.Model) -> dict:
    """The GPT's layers by role; a model not built by the ``gpt`` architecture is refused."""
    from seqlab.layers.transformer import TransformerDecoderBlock

    named = {layer.name: layer for layer in model.layers}
    blocks = [layer for layer in model.layers if isinstance(layer, TransformerDecoderBlock)]
    missing = [name for name in (EMBEDDING_LAYER, POSITIONS_LAYER, FINAL_NORM, HEAD_LAYER) if name not in named]
    if missing or not blocks or any(block.cross_attention for block in blocks):
        raise ValueError(
            f"Model {model.name!r} is not a GPT language model "
            f"(lacks {', '.join(missing) or 'causal decoder blocks'}): "
            "the key/value cache steps models of the gpt architecture only."
        )
    return {
        "embedding": named[EMBEDDING_LAYER], "projection": named.get(PROJECTION), "positions": named[POSITIONS_LAYER],
        "blocks": blocks, "final_norm": named[FINAL_NORM], "head": named[HEAD_LAYER],
    }


class GPTStepper:
    """New ids through a GPT with each block's key/value cache (module docstring); shares the model's weights.

    Args:
        model: a language model of the ``gpt`` architecture.

    ``max_length`` is the context: the model's window ``T``, the cache's size.
    """

    def __init__(self, model: keras.Model):
        self.layers = gpt_layers(model)
        self.max_length = int(model.inputs[0].shape[1])
        blocks = self.layers["blocks"]
        # Every block's keys and values in one array (rows first, for beam search): one argument per call,
        # as a nested list of them costs more to pass into the compiled function than the step itself.
        self.cache_shape = (len(blocks), 2, blocks[0].num_heads, self.max_length, blocks[0].self_attention.d_k)
        scalar = tf.TensorSpec((), tf.int32)
        self._prime = tf.function(
            self._prime_window, input_signature=[tf.TensorSpec((None, self.max_length), tf.int32), scalar],
            jit_compile=True,
        )
        # The concrete function: a call skips tf.function's look-up of which trace fits (a third of a step).
        self._step = tf.function(self._one_step, jit_compile=True).get_concrete_function(
            tf.TensorSpec((None, 1), tf.int32), tf.TensorSpec((None, *self.cache_shape)), scalar
        )

    def _walk(self, ids, cache, position):
        """Probabilities ``(rows, n, V)`` of the ids at ``position ..`` and the cache ``(rows, blocks, 2, h, T, d_k)``
        with their keys and values."""
        layers = self.layers
        x = layers["embedding"](ids)
        if layers["projection"] is not None:
            x = layers["projection"](x)
        x = layers["positions"](x, start=position)
        new_cache = []
        for i, block in enumerate(layers["blocks"]):
            x, (k, v) = block.step(x, (cache[:, i, 0], cache[:, i, 1]), position)
            new_cache.append(ops.stack([k, v], axis=1))
        return layers["head"](layers["final_norm"](x)), ops.stack(new_cache, axis=1)

    def _prime_window(self, window, last):
        empty = ops.zeros((ops.shape(window)[0], *self.cache_shape))
        probabilities, cache = self._walk(window, empty, 0)
        return probabilities[:, last], cache

    def _one_step(self, ids, cache, position):
        probabilities, cache = self._walk(ids, cache, position)
        return probabilities[:, 0], cache

    def prime(self, ids):
        """``(probabilities (rows, V) after the last of ``ids``, cache)`` from an empty cache.

        ``ids``: ``(rows, n)`` with ``1 <= n <= T``, read in one pass.
        """
        rows, n = ids.shape
        if not 1 <= n <= self.max_length:
            raise ValueError(
                f"A GPT reads 1 to {self.max_length} ids at once (its context), got {n}: trim the ids to the last "
                f"{self.max_length} (seqlab.generate.gpt_next does)."
            )
        window = np.full((rows, self.max_length), PAD_ID, dtype="int32")
        window[:, :n] = ids  # padded after the end: never read by the ids before it
        return self._prime(tf.constant(window), tf.constant(n - 1, tf.int32))

    def step(self, ids, cache, position: int):
        """``(probabilities (rows, V) after ``ids``, new cache)``: ``ids`` ``(rows, 1)`` at ``position`` (< T)."""
        if not 0 <= position < self.max_length:
            raise ValueError(
                f"Position {position} is outside the context of {self.max_length} tokens: rebuild the cache from the "
                "last ids with prime (seqlab.generate.gpt_next does when the cache is full)."
            )
        return self._step(tf.constant(ids, tf.int32), tf.convert_to_tensor(cache), tf.constant(position, tf.int32))
