"""The recurrent encoder-decoder's decoder one token at a time: the ``Steps`` of the ``seq2seq`` architecture."""

from __future__ import annotations

from keras import ops

from seqlab.models.decoder_steps import DecoderSteps


class RecurrentDecoderSteps(DecoderSteps):
    """``seqlab.layers.decoder.AttentionDecoder``: carries ``feed`` (z~_{t-1}, zeros without input feeding) and
    ``state_0 ..`` (every layer's ``h``, and ``c`` for an LSTM), the encoder's last states first."""

    def first_carried(self, values, last) -> dict:
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

    def teacher_forced(self, source, target_in):
        state, probabilities, weights, positions = self.start(source), [], [], []
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
