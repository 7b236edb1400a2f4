r"""Gated recurrent unit: update and reset gates, in both of Keras's conventions."""

import keras
from keras import ops

# Private Keras, kept on purpose: `backend.gru` is the fused (cuDNN) kernel that
# `keras.layers.GRU` calls (it raises NotImplementedError when not eligible); no
# public API runs it on weights other than a keras.layers.GRU's own.
from keras.src import backend

# keras.layers.RNN (also around these cells in TBPTT and in user code) draws a cell's
# dropout masks once per sequence before its loop, and clears them after, only for
# subclasses of the private `DropoutRNNCell` (an isinstance check in RNN.call): Keras
# has no public base class or hook for it, and a public copy of the mixin would draw
# its masks inside the loop and keep them past the call. Pinned by tests/test_private_keras.py.
from keras.src.layers.rnn.dropout_rnn_cell import DropoutRNNCell

from seqlab.layers.recurrent.arguments import (
    check_rate,
    check_step_rank,
    check_units,
    check_use_cudnn,
    get_activation,
)
from seqlab.layers.recurrent.sequence import FusedSequenceLayer

GATES = "zrh"  # Keras's packing: update z, reset r, candidate h~


def _gate_view(weight_name, gate, doc, row=None):
    def view(self):
        return self.gate_slice(weight_name, gate, row)

    return property(view, doc=doc)


@keras.saving.register_keras_serializable(package="seqlab")
class GRUCell(keras.layers.Layer, DropoutRNNCell):
    r"""One step of the gated recurrent unit.

    Equations:
        $$ z_t = \sigma\left(x_t W_{xz} + h_{t-1} W_{hz} + b_z\right) $$

        $$ r_t = \sigma\left(x_t W_{xr} + h_{t-1} W_{hr} + b_r\right) $$

        $$ \text{reset\_after=False:}\quad
           \tilde{h}_t = \tanh\left(x_t W_{xh} + (r_t \circ h_{t-1}) W_{hh} + b_h\right) $$

        $$ \text{reset\_after=True:}\quad
           \tilde{h}_t = \tanh\left(x_t W_{xh} + b_h + r_t \circ (h_{t-1} W_{hh} + b_{hh})\right) $$

        $$ h_t = z_t \circ h_{t-1} + (1 - z_t) \circ \tilde{h}_t $$

        `reset_after=False` is the notes' $\tilde{h}_t = \tanh(W \cdot [r_t * h_{t-1}, x_t])$;
        `reset_after=True` (Keras's default, the cuDNN form) applies $r_t$
        after the recurrent product and has a second, recurrent bias
        ($b_{hz}, b_{hr}, b_{hh}$ added to the $h_{t-1}$ products). The notes
        (seed 003) write $h_t = (1 - z_t) * h_{t-1} + z_t * \tilde{h}_t$: their
        $z_t$ is $1 - z_t$ here. seqlab keeps Keras's convention so that
        weights move both ways.

    Args:
        units: Positive integer, dimension of $h_t$.
        activation: Activation of $\tilde{h}_t$. Default `"tanh"`.
        recurrent_activation: Gate activation $\sigma$. Default `"sigmoid"`.
        use_bias: Whether to add the biases. Default `True`.
        kernel_initializer: Initializer of `kernel` (the $W_{x\cdot}$, packed
            z, r, h). Default `"glorot_uniform"`.
        recurrent_initializer: Initializer of `recurrent_kernel` (the
            $W_{h\cdot}$). Default `"orthogonal"`.
        bias_initializer: Initializer of `bias`. Default `"zeros"`.
        kernel_regularizer, recurrent_regularizer, bias_regularizer: Optional
            regularizers.
        kernel_constraint, recurrent_constraint, bias_constraint: Optional
            constraints.
        dropout: Fraction in [0, 1) of the inputs to drop while training.
        recurrent_dropout: Fraction in [0, 1) of $h_{t-1}$ to drop while training.
        reset_after: Apply the reset gate after the recurrent product
            (`True`, default; `bias` of shape `(2, 3 * units)`) or before it
            (`False`; `bias` of shape `(3 * units,)`).
        seed: Random seed of the dropout masks.

    Call arguments:
        inputs: Tensor of shape `(batch, features)`, the input $x_t$.
        states: List with one `(batch, units)` tensor, $h_{t-1}$.
        training: Whether dropout is active.

    Returns:
        `(h, [h])`. `step` also returns the internals `{"z", "r", "h_tilde", "h"}`.

    Example:

    ```python
    cell = GRUCell(4)
    cell.build((None, 3))
    h, states, gates = cell.step(np.zeros((2, 3)), cell.get_initial_state(2))
    gates["r"]  # the reset gate r_t, (2, 4)
    ```
    """

    internal_names = ("z", "r", "h_tilde", "h")

    # The notes' matrices as read-only slices of the packed weights.
    W_xz = _gate_view("kernel", "z", "Input x_t -> update gate z_t, (features, units).")
    W_xr = _gate_view("kernel", "r", "Input x_t -> reset gate r_t, (features, units).")
    W_xh = _gate_view("kernel", "h", "Input x_t -> candidate h~_t, (features, units).")
    W_hz = _gate_view("recurrent_kernel", "z", "State h_{t-1} -> update gate z_t, (units, units).")
    W_hr = _gate_view("recurrent_kernel", "r", "State h_{t-1} -> reset gate r_t, (units, units).")
    W_hh = _gate_view("recurrent_kernel", "h", "State h_{t-1} -> candidate h~_t, (units, units).")
    b_z = _gate_view("bias", "z", "Input-side bias of z_t.", row=0)
    b_r = _gate_view("bias", "r", "Input-side bias of r_t.", row=0)
    b_h = _gate_view("bias", "h", "Input-side bias of h~_t.", row=0)
    b_hz = _gate_view("bias", "z", "Recurrent bias of z_t (reset_after only, else None).", row=1)
    b_hr = _gate_view("bias", "r", "Recurrent bias of r_t (reset_after only, else None).", row=1)
    b_hh = _gate_view("bias", "h", "Recurrent bias of h~_t (reset_after only, else None).", row=1)

    def __init__(
        self,
        units,
        activation="tanh",
        recurrent_activation="sigmoid",
        use_bias=True,
        kernel_initializer="glorot_uniform",
        recurrent_initializer="orthogonal",
        bias_initializer="zeros",
        kernel_regularizer=None,
        recurrent_regularizer=None,
        bias_regularizer=None,
        kernel_constraint=None,
        recurrent_constraint=None,
        bias_constraint=None,
        dropout=0.0,
        recurrent_dropout=0.0,
        reset_after=True,
        seed=None,
        **kwargs,
    ):
        super().__init__(**kwargs)
        if not isinstance(reset_after, bool):
            raise ValueError(f"Argument `reset_after` must be True or False. Received: reset_after={reset_after!r}")
        self.units = check_units(units)
        self.activation = get_activation("activation", activation)
        self.recurrent_activation = get_activation("recurrent_activation", recurrent_activation)
        self.use_bias = bool(use_bias)
        self.kernel_initializer = keras.initializers.get(kernel_initializer)
        self.recurrent_initializer = keras.initializers.get(recurrent_initializer)
        self.bias_initializer = keras.initializers.get(bias_initializer)
        self.kernel_regularizer = keras.regularizers.get(kernel_regularizer)
        self.recurrent_regularizer = keras.regularizers.get(recurrent_regularizer)
        self.bias_regularizer = keras.regularizers.get(bias_regularizer)
        self.kernel_constraint = keras.constraints.get(kernel_constraint)
        self.recurrent_constraint = keras.constraints.get(recurrent_constraint)
        self.bias_constraint = keras.constraints.get(bias_constraint)
        self.dropout = check_rate("dropout", dropout)
        self.recurrent_dropout = check_rate("recurrent_dropout", recurrent_dropout)
        self.reset_after = reset_after
        self.seed = seed
        self.seed_generator = keras.random.SeedGenerator(seed=seed)
        self.state_size = self.units
        self.output_size = self.units

    def build(self, input_shape):
        check_step_rank(self, input_shape)
        self.kernel = self.add_weight(
            shape=(input_shape[-1], 3 * self.units),
            name="kernel",
            initializer=self.kernel_initializer,
            regularizer=self.kernel_regularizer,
            constraint=self.kernel_constraint,
        )
        self.recurrent_kernel = self.add_weight(
            shape=(self.units, 3 * self.units),
            name="recurrent_kernel",
            initializer=self.recurrent_initializer,
            regularizer=self.recurrent_regularizer,
            constraint=self.recurrent_constraint,
        )
        self.bias = None
        if self.use_bias:
            # reset_after: row 0 is added to the x_t products, row 1 to the h_{t-1} products.
            shape = (2, 3 * self.units) if self.reset_after else (3 * self.units,)
            self.bias = self.add_weight(
                shape=shape,
                name="bias",
                initializer=self.bias_initializer,
                regularizer=self.bias_regularizer,
                constraint=self.bias_constraint,
            )

    def gate_slice(self, weight_name, gate, row=None):
        """The columns of a weight that feed `gate`; `row` picks a bias row."""
        weight = getattr(self, weight_name)
        if weight is None:
            return None
        if row is not None and self.reset_after:
            weight = weight[row]
        elif row == 1:
            return None  # one bias only: no recurrent bias
        start = GATES.index(gate) * self.units
        return weight[..., start : start + self.units]

    def step(self, inputs, states, training=False):
        """One time step: returns `(output, new_states, internals)`."""
        h_prev = states[0] if isinstance(states, (list, tuple)) else states
        inputs = ops.cast(inputs, self.compute_dtype)  # e.g. NumPy float64 from a trace loop
        input_bias = recurrent_bias = None
        if self.use_bias:
            input_bias, recurrent_bias = (self.bias[0], self.bias[1]) if self.reset_after else (self.bias, None)
        if training and self.dropout > 0:
            inputs = inputs * self.get_dropout_mask(inputs)
        h_in = h_prev
        if training and self.recurrent_dropout > 0:
            h_in = h_prev * self.get_recurrent_dropout_mask(h_prev)

        x_proj = ops.matmul(inputs, self.kernel)  # (B, F) @ (F, 3u)
        if input_bias is not None:
            x_proj = x_proj + input_bias
        x_z, x_r, x_h = ops.split(x_proj, 3, axis=-1)  # 3 x (B, u)

        if self.reset_after:
            h_proj = ops.matmul(h_in, self.recurrent_kernel)  # (B, u) @ (u, 3u)
            if recurrent_bias is not None:
                h_proj = h_proj + recurrent_bias
            h_z, h_r, h_h = ops.split(h_proj, 3, axis=-1)
        else:
            h_proj = ops.matmul(h_in, self.recurrent_kernel[:, : 2 * self.units])  # (B, 2u)
            h_z, h_r = ops.split(h_proj, 2, axis=-1)

        z = self.recurrent_activation(x_z + h_z)
        r = self.recurrent_activation(x_r + h_r)
        if self.reset_after:
            h_tilde = self.activation(x_h + r * h_h)
        else:
            h_tilde = self.activation(x_h + ops.matmul(r * h_in, self.recurrent_kernel[:, 2 * self.units :]))
        h = z * h_prev + (1.0 - z) * h_tilde
        return h, [h], {"z": z, "r": r, "h_tilde": h_tilde, "h": h}

    def call(self, inputs, states, training=False):
        output, new_states, _ = self.step(inputs, states, training=training)
        return output, new_states

    def get_initial_state(self, batch_size=None):
        return [ops.zeros((batch_size, self.units), dtype=self.compute_dtype)]

    def get_config(self):
        config = {
            "units": self.units,
            "activation": keras.activations.serialize(self.activation),
            "recurrent_activation": keras.activations.serialize(self.recurrent_activation),
            "use_bias": self.use_bias,
            "kernel_initializer": keras.initializers.serialize(self.kernel_initializer),
            "recurrent_initializer": keras.initializers.serialize(self.recurrent_initializer),
            "bias_initializer": keras.initializers.serialize(self.bias_initializer),
            "kernel_regularizer": keras.regularizers.serialize(self.kernel_regularizer),
            "recurrent_regularizer": keras.regularizers.serialize(self.recurrent_regularizer),
            "bias_regularizer": keras.regularizers.serialize(self.bias_regularizer),
            "kernel_constraint": keras.constraints.serialize(self.kernel_constraint),
            "recurrent_constraint": keras.constraints.serialize(self.recurrent_constraint),
            "bias_constraint": keras.constraints.serialize(self.bias_constraint),
            "dropout": self.dropout,
            "recurrent_dropout": self.recurrent_dropout,
            "reset_after": self.reset_after,
            "seed": self.seed,
        }
        return {**super().get_config(), **config}


@keras.saving.register_keras_serializable(package="seqlab")
class GRU(FusedSequenceLayer):
    r"""Gated recurrent unit layer, with Keras's fused (cuDNN) path when eligible.

    Equations:
        $$ z_t = \sigma\left(x_t W_{xz} + h_{t-1} W_{hz} + b_z\right) $$

        $$ r_t = \sigma\left(x_t W_{xr} + h_{t-1} W_{hr} + b_r\right) $$

        $$ \tilde{h}_t = \tanh\left(x_t W_{xh} + (r_t \circ h_{t-1}) W_{hh} + b_h\right)
           \quad \text{(reset\_after=False)} $$

        $$ \tilde{h}_t = \tanh\left(x_t W_{xh} + b_h + r_t \circ (h_{t-1} W_{hh} + b_{hh})\right)
           \quad \text{(reset\_after=True)} $$

        $$ h_t = z_t \circ h_{t-1} + (1 - z_t) \circ \tilde{h}_t $$

        The loop runs `GRUCell.step` (which also explains the notes' opposite
        $z_t$ convention). Weights are Keras's `GRU` weights (`kernel`,
        `recurrent_kernel`, `bias`, packed z, r, h), so `set_weights` works
        both ways. With `reset_after=True`, tanh/sigmoid, a bias, no recurrent
        dropout and no unrolling, the sequence goes through Keras's backend
        kernel (cuDNN on a GPU) as `keras.layers.GRU` does; otherwise, and
        whenever that kernel declines, through the cell.

    Args:
        units: Positive integer, dimension of $h_t$.
        activation: Activation of $\tilde{h}_t$. Default `"tanh"`.
        recurrent_activation: Gate activation $\sigma$. Default `"sigmoid"`.
        use_bias: Whether to add the biases. Default `True`.
        dropout: Fraction in [0, 1) of the inputs to drop while training.
        recurrent_dropout: Fraction in [0, 1) of $h_{t-1}$ to drop while
            training (disables the fused path).
        reset_after: Keras/cuDNN convention (`True`, default) or the notes'
            (`False`); see Equations.
        seed: Random seed of the dropout masks.
        return_sequences: Return all $h_1..h_T$ (`True`) or only $h_T$.
        return_state: Also return the last state $h_T$.
        go_backwards: Process the sequence backwards (used by `Bidirectional`).
        stateful: Carry the last state of a batch into the next batch.
        unroll: Unroll the time loop (short sequences only).
        zero_output_for_mask: Output zeros at masked steps instead of
            repeating the last output.
        use_cudnn: `"auto"` (default) takes the fused path when eligible,
            `False` never, `True` requires it (ValueError when not possible).
        **kwargs: `kernel_initializer`, `recurrent_initializer`,
            `bias_initializer`, the matching `*_regularizer` and
            `*_constraint` (passed to the cell), and base layer arguments.

    Call arguments:
        sequences: Tensor of shape `(batch, time, features)`.
        initial_state: Optional list with one `(batch, units)` tensor.
        mask: Optional boolean tensor `(batch, time)`; `False` skips a step.
        training: Whether dropout is active.

    Returns:
        `(batch, units)` or `(batch, time, units)` with `return_sequences`;
        with `return_state`, a list `[output, h_T]`.

    Example:

    ```python
    gru = GRU(4, reset_after=False, return_sequences=True)
    gru(np.zeros((2, 5, 3)))  # (2, 5, 4)
    ```
    """

    def __init__(
        self,
        units,
        activation="tanh",
        recurrent_activation="sigmoid",
        use_bias=True,
        dropout=0.0,
        recurrent_dropout=0.0,
        reset_after=True,
        seed=None,
        return_sequences=False,
        return_state=False,
        go_backwards=False,
        stateful=False,
        unroll=False,
        zero_output_for_mask=False,
        use_cudnn="auto",
        **kwargs,
    ):
        check_use_cudnn(use_cudnn)
        cell = GRUCell(
            units,
            activation=activation,
            recurrent_activation=recurrent_activation,
            use_bias=use_bias,
            dropout=dropout,
            recurrent_dropout=recurrent_dropout,
            reset_after=reset_after,
            seed=seed,
            **self.cell_options(kwargs, "gru_cell"),
        )
        super().__init__(
            cell, return_sequences=return_sequences, return_state=return_state, go_backwards=go_backwards,
            stateful=stateful, unroll=unroll, zero_output_for_mask=zero_output_for_mask, use_cudnn=use_cudnn,
            **kwargs,
        )

    @property
    def reset_after(self):
        return self.cell.reset_after

    def _fused_kernel(self):
        return getattr(backend, "gru", None)  # private: see the import

    def _fused_options(self):
        return {"reset_after": self.cell.reset_after}  # Keras's backend declines reset_after=False itself
