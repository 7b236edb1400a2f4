"""The decoder side of a translate model, one token at a time: what greedy, beam search, replay and serving use.

A translate model (``seqlab.models.seq2seq``, ``seqlab.models.transformer_seq2seq``) has a nested ``encoder``
model and a ``decoder`` layer; each architecture declares its ``DecoderSteps`` (``seqlab.models.seq2seq_steps``,
``seqlab.models.transformer_seq2seq_steps``), the ``seqlab.models.steps`` protocol for a decoder:

- ``start(source)`` -> the state of the first step: a dict of tensors with one row per source row, the encoder's
  ``values``, the ``source_mask`` and what the decoder carries from step to step;
- ``next(previous, state, t)`` -> ``(probabilities (B, V), state)``: the next token's probabilities after
  ``previous`` ids ``(B,)`` written at step ``t`` (0 for ``[START]``);
- ``teacher_forced(source, target_in)`` -> ``(probabilities (B, T, V), weights (B, T, S) or None, positions
  (B, T) or None)``: the decoder teacher-forced on ``target_in``, with the attention behind every step (replay);
- ``carried()`` -> ``{name: shape}`` (no batch axis) of the carried tensors: the ``decode_step`` signature.

A recurrent decoder carries its layers' states and Luong's input feed; a Transformer decoder carries every
block's key/value cache. Both states have rows on axis 0, so beam search reorders them row by row. The
functions work on tensors (eager or inside a ``tf.function``); ``seqlab.tasks.translate.translation`` converts to NumPy.
"""

from __future__ import annotations

from keras import ops

from seqlab.models.encoder_decoder import DECODER, ENCODER, real_steps
from seqlab.models.steps import Steps


class DecoderSteps(Steps):
    """The protocol (see the module's docstring); a subclass per kind of decoder."""

    in_graph = True

    def __init__(self, model):
        self.encoder, self.decoder = model.get_layer(ENCODER), model.get_layer(DECODER)

    def encode(self, source) -> list:
        """The encoder's outputs, always a list: ``[values, *last states]``."""
        out = self.encoder(ops.convert_to_tensor(source, self.encoder.inputs[0].dtype), training=False)
        return list(out) if isinstance(out, (list, tuple)) else [out]

    def start(self, source) -> dict:
        values, *last = self.encode(source)
        return {"values": values, "source_mask": real_steps(source), **self.first_carried(values, last)}

    def step(self, previous, state, t):
        """``next``: a decoder's step is written in ``keras.ops`` already."""
        return self.next(previous, state, t)

    @property
    def width(self) -> int:
        """The width of the encoder's ``values``."""
        return int(self.encoder.outputs[0].shape[-1])

    def first_carried(self, values, last) -> dict:
        """The carried tensors of the first step, from the encoder's ``values`` and ``last`` states."""
        raise NotImplementedError

    def teacher_forced(self, source, target_in) -> tuple:
        raise NotImplementedError
