"""The decoder side of a translate model, one token at a time: what greedy, beam search, replay and serving use.

A translate model (``seqlab.models.seq2seq``, ``seqlab.models.transformer_seq2seq``) has a nested ``encoder``
model and a ``decoder`` layer; ``decoder_steps(model)`` wraps them in a ``DecoderSteps``:

- ``first(source)`` -> the state of the first step: a dict of tensors with one row per source row, the encoder's
  ``values``, the ``source_mask`` and what the decoder carries from step to step (``carried``);
- ``next(previous, state, t)`` -> ``(probabilities (B, V), state)``: the next token's probabilities after
  ``previous`` ids ``(B,)`` written at step ``t`` (0 for ``[START]``);
- ``read(source, target_in)`` -> ``(probabilities (B, T, V), weights (B, T, S) or None, positions (B, T) or
  None)``: the decoder teacher-forced on ``target_in``, with the attention behind every step (replay);
- ``carried()`` -> ``{name: shape}`` (no batch axis) of the carried tensors: the ``decode_step`` signature.

A recurrent decoder carries its layers' states and Luong's input feed; a Transformer decoder carries every
block's key/value cache. Both states have rows on axis 0, so beam search reorders them row by row. The
functions work on tensors (eager or inside a ``tf.function``); ``seqlab.translation`` converts to NumPy.
"""

from __future__ import annotations

from keras import ops

from seqlab.layers.decoder import AttentionDecoder
from seqlab.layers.transformer_decoder import TransformerDecoder
from seqlab.models.seq2seq import DECODER, ENCODER, real_steps


class DecoderSteps:
    """The protocol (see the module's docstring); a subclass per kind of decoder."""

    def __init__(self, model):
        self.encoder, self.decoder = model.get_layer(ENCODER), model.get_layer(DECODER)

    def encode(self, source) -> tuple:
        """The encoder's outputs, always a list: ``[values, *last states]``."""
        out = self.encoder(ops.convert_to_tensor(source, self.encoder.inputs[0].dtype), training=False)
        return list(out) if isinstance(out, (list, tuple)) else [out]

    def first(self, source) -> dict:
        values, *last = self.encode(source)
        return {"values": values, "source_mask": real_steps(source), **self.start(values, last)}

    @property
    def width(self) -> int:
        """The width of the encoder's ``values``."""
        return int(self.encoder.outputs[0].shape[-1])

    def start(self, values, last) -> dict:
        """The carried tensors of the first step."""
        raise NotImplementedError

    def next(self, previous, state: dict, t) -> tuple:
        raise NotImplementedError

    def read(self, source, target_in) -> tuple:
        raise NotImplementedError

    def carried(self) -> dict:
        raise NotImplementedError


class RecurrentSteps(DecoderSteps):
    """``seqlab.layers.decoder.AttentionDecoder``: carries ``feed`` (z~_{t-1}, zeros without input feeding) and
    ``state_0 ..`` (every layer's ``h``, and ``c`` for an LSTM), the encoder's last states first."""

    def start(self, values, last) -> dict:
        return {"feed": self.decoder.start_feed(values), **{f"state_{i}": s for i, s in enumerate(last)}}

    def _step(self, previous, state, t):
        decoder, count = self.decoder, len(self.encoder.outputs) - 1
        probabilities, layers, feed, weights, position = decoder.step(
            ops.cast(previous, "int32"), decoder.group([state[f"state_{i}"] for i in range(count)]),
            state["values"], state["source_mask"], ops.cast(t, "float32"),
            state["feed"] if decoder.input_feeding else None,
        )
        new = {f"state_{i}": s for i, s in enumerate(s for layer in layers for s in layer)}
        return probabilities, {**state, **new, **({"feed": feed} if feed is not None else {})}, weights, position

    def next(self, previous, state, t):
        probabilities, state, _, _ = self._step(previous, state, t)
        return probabilities, state

    def read(self, source, target_in):
        state, probabilities, weights, positions = self.first(source), [], [], []
        for t in range(target_in.shape[1]):
            p, state, w, position = self._step(target_in[:, t], state, t)
            probabilities.append(p)
            weights += [] if w is None else [w]
            positions += [] if position is None else [position]
        return (ops.stack(probabilities, axis=1), ops.stack(weights, axis=1) if weights else None,
                ops.stack(positions, axis=1) if positions else None)

    def carried(self) -> dict:
        units = (self.decoder.units,)
        return {"feed": units, **{f"state_{i}": units for i in range(len(self.encoder.outputs) - 1)}}


class TransformerSteps(DecoderSteps):
    """``seqlab.layers.transformer_decoder.TransformerDecoder``: carries ``key_l`` and ``value_l``, block l's
    self-attention cache ``(h, L, d_k)`` per row; its weights are the last block's cross-attention averaged over
    the heads."""

    def start(self, values, last) -> dict:
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

    def read(self, source, target_in):
        values, = self.encode(source)
        probabilities, cross = self.decoder.attention(ops.cast(target_in, "int32"), values, real_steps(source))
        return probabilities, ops.mean(cross, axis=1), None

    def carried(self) -> dict:
        k, _ = self.decoder.init_cache(1)[0]
        shape = tuple(int(n) for n in k.shape[1:])
        return {name: shape for i in range(len(self.decoder.blocks)) for name in (f"key_{i}", f"value_{i}")}


# The one place that knows which decoder is which.
STEPS = {AttentionDecoder: RecurrentSteps, TransformerDecoder: TransformerSteps}


def decoder_steps(model) -> DecoderSteps:
    """The ``DecoderSteps`` of a translate model; ``ValueError`` for a model without a known decoder."""
    try:
        decoder = model.get_layer(DECODER)
    except ValueError:
        raise ValueError(f"Model {model.name!r} has no layer named {DECODER!r}: decoding needs a translate model "
                         "(an encoder-decoder).") from None
    if type(decoder) not in STEPS:
        raise ValueError(f"Decoding knows the decoders {', '.join(c.__name__ for c in STEPS)}, not "
                         f"{type(decoder).__name__}: add its DecoderSteps to seqlab.models.decoder_steps.STEPS.")
    return STEPS[type(decoder)](model)
