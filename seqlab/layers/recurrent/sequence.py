"""The whole-sequence layer around a seqlab cell, shared by SimpleRNN, LSTM, GRU and ESN.

The time loop is `keras.layers.RNN`'s; a family's layer builds its cell from
its own arguments and hands it to `SequenceLayer`, which keeps the Keras
conventions all four share. `FusedSequenceLayer` adds, for LSTM and GRU,
Keras's fused (cuDNN) kernel over the whole sequence, exactly as
`keras.layers.LSTM` and `keras.layers.GRU` take it.
"""

import keras
from keras import ops

# Private Keras, kept on purpose (tests/test_private_keras.py pins it):
# `backend.cudnn_ok` here and the fused kernels `backend.lstm` / `backend.gru`
# (lstm.py, gru.py) are what keras.layers.LSTM and GRU call, and Keras exposes
# them nowhere publicly; the public layers own their weights, so they cannot
# run a seqlab cell's.
from keras.src import backend

from seqlab.layers.recurrent.arguments import WEIGHT_OPTIONS, cell_arguments


class SequenceLayer(keras.layers.RNN):
    """`keras.layers.RNN` around a seqlab cell, configured by the cell's own arguments.

    A family's layer builds its cell (`cell_options` hands it the layer's
    dtype and trainable flag and the weight options from the layer's
    `kwargs`) and passes it here with the usual `keras.layers.RNN` options.
    The layer reads sequences `(batch, time, features)` only; its config holds
    the cell's arguments in place of the cell, so `cls(**config)` rebuilds it.
    """

    def __init__(
        self,
        cell,
        return_sequences=False,
        return_state=False,
        go_backwards=False,
        stateful=False,
        unroll=False,
        zero_output_for_mask=False,
        **kwargs,
    ):
        super().__init__(
            cell,
            return_sequences=return_sequences,
            return_state=return_state,
            go_backwards=go_backwards,
            stateful=stateful,
            unroll=unroll,
            zero_output_for_mask=zero_output_for_mask,
            **kwargs,
        )
        self.input_spec = keras.layers.InputSpec(ndim=3)

    @staticmethod
    def cell_options(kwargs, name):
        """The cell's `name`, the layer's dtype and trainable flag, and the `WEIGHT_OPTIONS`
        popped from the layer's `kwargs` (they configure the cell, not the layer)."""
        weight_options = {key: kwargs.pop(key) for key in WEIGHT_OPTIONS if key in kwargs}
        layer_options = {"dtype": kwargs.get("dtype"), "trainable": kwargs.get("trainable", True)}
        return {**layer_options, "name": name, **weight_options}

    @property
    def units(self):
        return self.cell.units

    def get_config(self):
        config = super().get_config()
        del config["cell"]
        return {**config, **cell_arguments(self.cell)}

    @classmethod
    def from_config(cls, config):
        return cls(**config)


class FusedSequenceLayer(SequenceLayer):
    """A `SequenceLayer` that runs the whole sequence through Keras's fused kernel when it can.

    With `use_cudnn="auto"` the kernel (cuDNN on a GPU) computes the layer when
    `_fused_eligible()` and the backend accepts the configuration, and the
    cell loop runs everywhere else; `use_cudnn=True` turns that fallback into
    an error, `False` always runs the cell. A family names its kernel
    (`_fused_kernel`), the cell options the kernel also takes
    (`_fused_options`) and, where only some cells qualify, extends
    `_fused_eligible` and `_fused_settings`. The kernel takes the cell's
    states positionally after the sequences: `h_0` (GRU) or `h_0, c_0` (LSTM).
    """

    def __init__(self, cell, use_cudnn="auto", **kwargs):
        super().__init__(cell, **kwargs)
        self.use_cudnn = use_cudnn
        # As keras.layers.LSTM and GRU: cuDNN ops are not XLA-compatible.
        # backend.cudnn_ok: private, no public test of cuDNN eligibility exists (see the import).
        if keras.backend.backend() == "tensorflow" and self._fused_eligible() and backend.cudnn_ok(
            cell.activation, cell.recurrent_activation, self.unroll, cell.use_bias, **self._fused_options()
        ):
            self.supports_jit = False

    def _fused_kernel(self):
        """The backend function that computes the whole sequence (e.g. `backend.lstm`), or None."""
        return None

    def _fused_options(self):
        """Cell options that the fused kernel and `backend.cudnn_ok` take besides the common ones."""
        return {}

    def _fused_eligible(self):
        """Whether the fused kernel may compute this layer at all (it may still decline)."""
        return self.use_cudnn in ("auto", True) and not self.cell.recurrent_dropout

    def _fused_settings(self):
        """The cell's settings that decide eligibility, named in the `use_cudnn=True` error."""
        return {**self._fused_options(), "recurrent_dropout": self.cell.recurrent_dropout}

    def inner_loop(self, sequences, initial_state, mask, training=False):
        states = list(initial_state) if isinstance(initial_state, (list, tuple)) else [initial_state]
        if isinstance(mask, (list, tuple)):
            mask = mask[0]
        if self._fused_eligible():
            try:
                return self._fused_loop(sequences, states, mask, training)
            except NotImplementedError:
                pass  # not on this device/backend/configuration: use the cell
        if self.use_cudnn is True:
            settings = ", ".join(f"{name}={value!r}" for name, value in self._fused_settings().items())
            raise ValueError(
                f"use_cudnn=True was specified, but the fused {type(self).__name__} kernel is not available "
                f"for this configuration ({settings}, backend={keras.backend.backend()!r}, "
                "device). Pass use_cudnn='auto' to fall back to the cell loop."
            )
        return super().inner_loop(sequences, states, mask=mask, training=training)

    def _fused_loop(self, sequences, states, mask, training):
        fused = self._fused_kernel()
        if fused is None:
            raise NotImplementedError
        if training and self.cell.dropout:
            # One input mask per sequence, as in the cell loop.
            mask_t = self.cell.get_dropout_mask(sequences[:, 0, :])  # (B, F)
            sequences = sequences * ops.expand_dims(mask_t, axis=1)  # (B, T, F)
        outputs = fused(
            sequences,
            *states,
            mask,
            kernel=self.cell.kernel,
            recurrent_kernel=self.cell.recurrent_kernel,
            bias=self.cell.bias,
            activation=self.cell.activation,
            recurrent_activation=self.cell.recurrent_activation,
            return_sequences=self.return_sequences,
            go_backwards=self.go_backwards,
            unroll=self.unroll,
            **self._fused_options(),
        )
        if keras.backend.backend() == "tensorflow":
            self.supports_jit = False
        return outputs

    def get_config(self):
        return {**super().get_config(), "use_cudnn": self.use_cudnn}
