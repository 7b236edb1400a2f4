r"""Elman recurrent network, the notes' z_t = sig(B z_{t-1} + V x_t)."""

import keras
from keras import ops

# Private Keras, kept on purpose: keras.layers.RNN (also around these cells in TBPTT
# and in user code) draws a cell's dropout masks once per sequence before its loop,
# and clears them after, only for subclasses of the private `DropoutRNNCell` (an
# isinstance check in RNN.call): Keras has no public base class or hook for it, and
# a public copy of the mixin would draw its masks inside the loop and keep them past
# the call. Pinned by tests/test_private_keras.py.
from keras.src.layers.rnn.dropout_rnn_cell import DropoutRNNCell

from seqlab.layers.recurrent.arguments import check_rate, check_step_rank, check_units, get_activation
from seqlab.layers.recurrent.sequence import SequenceLayer


@keras.saving.register_keras_serializable(package="seqlab")
class SimpleRNNCell(keras.layers.Layer, DropoutRNNCell):
    r"""One step of the Elman recurrent network.

    Equations:
        $$ z_t = \mathrm{sig}\left(B z_{t-1} + V x_t + b\right) $$

        The notes' $z_t$ is the hidden state $h_t$ returned here. Weights keep
        Keras's layout, which multiplies a batch of row vectors from the left:
        $V$ is `kernel` transposed, $B$ is `recurrent_kernel` transposed, and
        `cell.V`, `cell.B`, `cell.b` give the notes' matrices. The readout
        $y_t = \mathrm{sig}(W z_t)$ is a `Dense` layer on top.

    Args:
        units: Positive integer, dimension of the state $z_t$.
        activation: The notes' "sig": `"tanh"` (default), `"sigmoid"`, `"relu"`
            or any Keras activation.
        use_bias: Whether to add the bias $b$. Default `True`.
        kernel_initializer: Initializer of `kernel` ($V^\top$).
            Default `"glorot_uniform"`.
        recurrent_initializer: Initializer of `recurrent_kernel` ($B^\top$).
            Default `"orthogonal"`; `"identity"` with `activation="relu"` is the
            IRNN remedy for vanishing gradients (Le et al. 2015).
        bias_initializer: Initializer of `bias`. Default `"zeros"`.
        kernel_regularizer, recurrent_regularizer, bias_regularizer: Optional
            regularizers of the three weights.
        kernel_constraint, recurrent_constraint, bias_constraint: Optional
            constraints of the three weights.
        dropout: Fraction in [0, 1) of the inputs $x_t$ to drop while training.
        recurrent_dropout: Fraction in [0, 1) of $z_{t-1}$ to drop while training.
        seed: Random seed of the dropout masks.

    Call arguments:
        inputs: Tensor of shape `(batch, features)`, the input $x_t$.
        states: List with one tensor of shape `(batch, units)`, $z_{t-1}$.
        training: Whether dropout is active.

    Returns:
        `(h, [h])`, the new state as output and as the next state. `step` also
        returns the internals `{"pre_activation", "h"}`.

    Example:

    ```python
    rnn = keras.layers.RNN(SimpleRNNCell(4), return_sequences=True)
    rnn(np.zeros((2, 5, 3)))  # (2, 5, 4)
    ```
    """

    internal_names = ("pre_activation", "h")

    def __init__(
        self,
        units,
        activation="tanh",
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
        seed=None,
        **kwargs,
    ):
        super().__init__(**kwargs)
        self.units = check_units(units)
        self.activation = get_activation("activation", activation)
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
        self.seed = seed
        self.seed_generator = keras.random.SeedGenerator(seed=seed)
        self.state_size = self.units
        self.output_size = self.units

    def build(self, input_shape):
        check_step_rank(self, input_shape)
        self.kernel = self.add_weight(
            shape=(input_shape[-1], self.units),  # V^T
            name="kernel",
            initializer=self.kernel_initializer,
            regularizer=self.kernel_regularizer,
            constraint=self.kernel_constraint,
        )
        self.recurrent_kernel = self.add_weight(
            shape=(self.units, self.units),  # B^T
            name="recurrent_kernel",
            initializer=self.recurrent_initializer,
            regularizer=self.recurrent_regularizer,
            constraint=self.recurrent_constraint,
        )
        self.bias = None
        if self.use_bias:
            self.bias = self.add_weight(
                shape=(self.units,),
                name="bias",
                initializer=self.bias_initializer,
                regularizer=self.bias_regularizer,
                constraint=self.bias_constraint,
            )

    @property
    def V(self):
        """The notes' input matrix V, shape (units, features): `kernel` transposed."""
        return ops.transpose(self.kernel)

    @property
    def B(self):
        """The notes' recurrent matrix B, shape (units, units): `recurrent_kernel` transposed."""
        return ops.transpose(self.recurrent_kernel)

    @property
    def b(self):
        """The bias b, shape (units,), or None without bias."""
        return self.bias

    def step(self, inputs, states, training=False):
        """One time step: returns `(output, new_states, internals)`."""
        z_prev = states[0] if isinstance(states, (list, tuple)) else states
        inputs = ops.cast(inputs, self.compute_dtype)  # e.g. NumPy float64 from a trace loop
        if training and self.dropout > 0:
            inputs = inputs * self.get_dropout_mask(inputs)
        if training and self.recurrent_dropout > 0:
            z_prev = z_prev * self.get_recurrent_dropout_mask(z_prev)
        pre_activation = ops.matmul(inputs, self.kernel)  # (B, F) @ (F, u): x_t V^T
        if self.bias is not None:
            pre_activation = pre_activation + self.bias
        pre_activation = pre_activation + ops.matmul(z_prev, self.recurrent_kernel)
        z = self.activation(pre_activation)
        return z, [z], {"pre_activation": pre_activation, "h": z}

    def call(self, inputs, states, training=False):
        output, new_states, _ = self.step(inputs, states, training=training)
        return output, new_states

    def get_initial_state(self, batch_size=None):
        return [ops.zeros((batch_size, self.units), dtype=self.compute_dtype)]

    def get_config(self):
        config = {
            "units": self.units,
            "activation": keras.activations.serialize(self.activation),
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
            "seed": self.seed,
        }
        return {**super().get_config(), **config}


@keras.saving.register_keras_serializable(package="seqlab")
class SimpleRNN(SequenceLayer):
    r"""Elman recurrent layer: the notes' simple RNN over a whole sequence.

    Equations:
        $$ z_t = \mathrm{sig}\left(B z_{t-1} + V x_t + b\right), \quad z_0 = 0 $$

        The time loop is `keras.layers.RNN`'s, around `SimpleRNNCell.step`.
        Weights are Keras's `SimpleRNN` weights (`kernel` $=V^\top$,
        `recurrent_kernel` $=B^\top$, `bias`), so `set_weights` works both ways.

    Args:
        units: Positive integer, dimension of the state $z_t$.
        activation: `"tanh"` (default), `"sigmoid"`, `"relu"` or any Keras
            activation.
        use_bias: Whether to add the bias $b$. Default `True`.
        dropout: Fraction in [0, 1) of the inputs to drop while training.
        recurrent_dropout: Fraction in [0, 1) of $z_{t-1}$ to drop while training.
        seed: Random seed of the dropout masks.
        return_sequences: Return all $z_1..z_T$ (`True`) or only $z_T$.
        return_state: Also return the last state.
        go_backwards: Process the sequence backwards (used by `Bidirectional`).
        stateful: Carry the last state of a batch into the next batch.
        unroll: Unroll the time loop (short sequences only).
        zero_output_for_mask: Output zeros at masked steps instead of
            repeating the last output.
        **kwargs: `kernel_initializer`, `recurrent_initializer` (`"identity"`
            for an IRNN), `bias_initializer`, the matching `*_regularizer` and
            `*_constraint` (passed to the cell), and base layer arguments
            (`name`, `dtype`, ...).

    Call arguments:
        sequences: Tensor of shape `(batch, time, features)`.
        initial_state: Optional list with one `(batch, units)` tensor.
        mask: Optional boolean tensor `(batch, time)`; `False` skips a step.
        training: Whether dropout is active.

    Returns:
        `(batch, units)` or `(batch, time, units)` with `return_sequences`;
        with `return_state`, a list `[output, z_T]`.

    Example:

    ```python
    irnn = SimpleRNN(8, activation="relu", recurrent_initializer="identity")
    irnn(np.zeros((2, 5, 3)))  # (2, 8)
    ```
    """

    def __init__(
        self,
        units,
        activation="tanh",
        use_bias=True,
        dropout=0.0,
        recurrent_dropout=0.0,
        seed=None,
        return_sequences=False,
        return_state=False,
        go_backwards=False,
        stateful=False,
        unroll=False,
        zero_output_for_mask=False,
        **kwargs,
    ):
        cell = SimpleRNNCell(
            units,
            activation=activation,
            use_bias=use_bias,
            dropout=dropout,
            recurrent_dropout=recurrent_dropout,
            seed=seed,
            **self.cell_options(kwargs, "simple_rnn_cell"),
        )
        super().__init__(
            cell, return_sequences=return_sequences, return_state=return_state, go_backwards=go_backwards,
            stateful=stateful, unroll=unroll, zero_output_for_mask=zero_output_for_mask, **kwargs,
        )
