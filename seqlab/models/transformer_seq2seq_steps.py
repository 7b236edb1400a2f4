"""The Transformer decoder one token at a time with its key/value caches: the ``Steps`` of
``transformer_seq2seq``."""

from __future__ import annotations

from keras import ops

from seqlab.models.decoder_steps import DecoderSteps
from seqlab.models.encoder_decoder import real_steps


class TransformerDecoderSteps(DecoderSteps):
    """``seqlab.layers.transformer_decoder.TransformerDecoder``: carries ``key_l`` and ``value_l``, block l's
    self-attention cache ``(h, L, d_k)`` per row; its weights are the last block's cross-attention averaged over
    the heads."""

    def first_carried(self, values, last) -> dict:
        return self.named(self.decoder.init_cache(ops.shape(values)[0]))

    def next(self, previous, state, t):
        caches = [(state[f"key_{i}"], state[f"value_{i}"]) for i in range(len(self.decoder.blocks))]
        probabilities, caches = self.decoder.step(ops.cast(previous, "int32"), caches, t, state["values"],
                                                  state["source_mask"])
        return probabilities, {**state, **self.named(caches)}

    @staticmethod
    def named(caches) -> dict:
        """``[(k, v)]`` per block as ``{"key_0": k, "value_0": v, ...}``."""
        return {name: tensor for i, (k, v) in enumerate(caches) for name, tensor in ((f"key_{i}", k),
                                                                                     (f"value_{i}", v))}

    def teacher_forced(self, source, target_in):
        values, = self.encode(source)
        probabilities, cross = self.decoder.attention(ops.cast(target_in, "int32"), values, real_steps(source))
        return probabilities, ops.mean(cross, axis=1), None

    def carried(self) -> dict:
        k, _ = self.decoder.init_cache(1)[0]
        shape = tuple(int(n) for n in k.shape[1:])
        return {name: shape for i in range(len(self.decoder.blocks)) for name in (f"key_{i}", f"value_{i}")}
