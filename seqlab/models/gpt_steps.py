r"""A GPT language model one token at a time with every block's key/value cache: the ``Steps`` of ``gpt``.

Generating token t+1 needs each block's keys and values of tokens 1..t; they
never change once computed (the mask keeps every position from reading later
ones), so each block keeps them in a cache
(``TransformerDecoderBlock.init_cache``, ``step``) and a step computes only
the new token's query, key and value: one token costs O(t d) attention
instead of a pass over the whole context.

``GPTSteps`` shares the model's layers (the same weights) and walks them
in order (embedding, projection if any, positions, the decoder blocks, the
final layer norm, the head) in two XLA-compiled functions, each compiled
once per model (and number of rows):

- ``read`` (from an empty cache): a whole window of ``T`` ids, the prompt
  padded after its end, in one pass that fills every block's cache; the
  padding's keys and values are never read (each position reads only the
  ones before it) and the steps that follow overwrite them;
- ``next``: one new id per row at the next position, reading the cache.

The state is ``{"context": the ids in the cache (rows, n), "cache": every
block's keys and values (rows, blocks, 2, h, T, d_k)}``. The context never
passes the window ``T`` the model was trained on: a prompt keeps its last
``T`` ids, and a full cache is rebuilt from the last ``T / 2`` ids (one pass
over them, then single steps again).
"""

from __future__ import annotations

import keras
import numpy as np
import tensorflow as tf
from keras import ops

from seqlab.layers.transformer import TransformerDecoderBlock
from seqlab.models.gpt_names import FINAL_NORM, POSITIONS_LAYER, PROJECTION
from seqlab.models.steps import Steps
from seqlab.tasks.language import HEAD_LAYER
from seqlab.tasks.text_inputs import EMBEDDING_LAYER
from seqlab.text import PAD_ID


def gpt_layers(model: keras.Model) -> dict:
    """The GPT's layers by role; a model not built by the ``gpt`` architecture is refused."""
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


class GPTSteps(Steps):
    """New ids through a GPT with each block's key/value cache (module docstring); shares the model's weights.

    Args:
        model: a language model of the ``gpt`` architecture.

    ``context`` is the model's window ``T``, the cache's size.
    """

    in_graph = True
    xla = True

    def __init__(self, model: keras.Model):
        self.layers = gpt_layers(model)
        self.context = int(model.inputs[0].shape[1])
        blocks = self.layers["blocks"]
        # Every block's keys and values in one array (rows first, for beam search): one argument per call,
        # as a nested list of them costs more to pass into the compiled function than the step itself.
        self.cache_shape = (len(blocks), 2, blocks[0].num_heads, self.context, blocks[0].self_attention.d_k)
        self._prime = tf.function(
            self._prime_window, input_signature=[tf.TensorSpec((None, self.context), tf.int32)], jit_compile=True,
        )
        self._step_function = None  # traced on the first single step (an export never takes one: seconds saved)

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

    def _prime_window(self, window):
        return self._walk(window, ops.zeros((ops.shape(window)[0], *self.cache_shape)), 0)

    @property
    def _step(self):
        """The XLA-compiled single step as a concrete function: a call skips tf.function's look-up of which trace
        fits (a third of a step)."""
        if self._step_function is None:
            self._step_function = tf.function(self._one_step, jit_compile=True).get_concrete_function(
                tf.TensorSpec((None, 1), tf.int32), tf.TensorSpec((None, *self.cache_shape)),
                tf.TensorSpec((), tf.int32))
        return self._step_function

    def _one_step(self, ids, cache, position):
        probabilities, cache = self._walk(ids, cache, position)
        return probabilities[:, 0], cache

    def initial(self, rows) -> dict:
        """An empty cache: ``context`` (the ids in it), ``count`` (how many), ``cache`` (their keys and values)."""
        return {"context": ops.full((rows, self.context), PAD_ID, "int32"), "count": ops.zeros((rows,), "int32"),
                "cache": ops.zeros((rows, *self.cache_shape))}

    def step(self, x, state, t):
        """``next`` in ``keras.ops``: one id into the cache, or, the cache full, the cache rebuilt from the last
        ``T / 2`` ids."""
        ids, count, half = ops.cast(x, "int32")[:, None], state["count"][0], self.context // 2

        def cached():
            probabilities, cache = self._walk(ids, state["cache"], count)
            context = ops.slice_update(state["context"], [0, count], ids)
            return probabilities[:, 0], {"context": context, "count": state["count"] + 1, "cache": cache}

        def rebuilt():
            kept = ops.concatenate([state["context"][:, self.context - half + 1 :], ids], axis=1)  # (rows, T / 2)
            window = ops.pad(kept, [[0, 0], [0, self.context - half]], constant_values=PAD_ID)
            probabilities, cache = self._prime_window(window)
            return probabilities[:, half - 1], {"context": window, "count": ops.full_like(state["count"], half),
                                                "cache": cache}

        return ops.cond(count < self.context, cached, rebuilt)

    def carried(self) -> dict:
        return {"context": (self.context,), "count": (), "cache": self.cache_shape}

    def start(self, rows: int) -> dict:
        """An empty cache for ``rows`` rows."""
        return {"context": np.zeros((rows, 0), dtype="int32"), "cache": np.zeros((rows, *self.cache_shape), "float32")}

    def read(self, ids, state):
        """``(probabilities (rows, n, V), state)`` after ``ids`` ``(rows, n)``: from an empty cache one pass over the
        last ``T`` of them, else one ``next`` per id."""
        ids = np.asarray(ids, dtype="int32")
        if state["context"].shape[1]:
            return super().read(ids, state)
        ids = ids[:, -self.context :]
        window = np.full((len(ids), self.context), PAD_ID, dtype="int32")
        window[:, : ids.shape[1]] = ids  # padded after the end: never read by the ids before it
        probabilities, cache = self._prime(tf.constant(window))
        return np.asarray(probabilities)[:, : ids.shape[1]], {"context": ids, "cache": cache}

    def next(self, x, state, t):
        """The probabilities ``(rows, V)`` after ids ``x`` ``(rows,)`` and the state with them (module docstring)."""
        ids = np.asarray(x, dtype="int32")[:, None]
        context = np.concatenate([state["context"], ids], axis=1)
        if context.shape[1] > self.context:  # the cache is full: rebuilt from the last T / 2 ids
            probabilities, state = self.read(context[:, -(self.context // 2) :], self.start(len(ids)))
            return probabilities[:, -1], state
        position = tf.constant(context.shape[1] - 1, tf.int32)
        probabilities, cache = self._step(tf.constant(ids), tf.convert_to_tensor(state["cache"]), position)
        # The cache stays a tensor between steps (beam search's row picking reads it as an array).
        return np.asarray(probabilities), {"context": context, "cache": cache}
