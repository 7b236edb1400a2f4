r"""Long short-term memory: the gated cell, and the notes' build-up of it as variants."""

import keras
from keras import ops

# Private Keras, kept on purpose: `backend.lstm` is the fused (cuDNN) kernel that
# `keras.layers.LSTM` calls (it raises NotImplementedError when not eligible); no
# public API runs it on weights other than a keras.layers.LSTM's own.
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

# The notes' build-up (seed 004, "LSTMs"), one step per variant:
#   variant: (gates packed in the weights, in Keras's i, f, c, o order;
#             whether h_{t-1} feeds the gates and the candidate;
#             the constant forget gate f_t when the variant has none)
VARIANTS = {
    "gates_only": ("ico", False, 0.0),  # "We enter input and output gates"
    "feedback": ("ico", True, 0.0),  # "With feedback"
    "no_forget_gate": ("ico", True, 1.0),  # "Cell state with self-recurrency", f_t = 1
    "full": ("ifco", True, None),  # "... and forget gate": the LSTM
}


def _gate_view(weight_name, gate, doc):
    def view(self):
        return self.gate_slice(weight_name, gate)

    return property(view, doc=doc)


@keras.saving.register_keras_serializable(package="seqlab")
class LSTMCell(keras.layers.Layer, DropoutRNNCell):
    r"""One step of the LSTM, or of one of the notes' steps towards it.

    Equations:
        $$ i_t = \sigma\left(x_t W_{xi} + h_{t-1} W_{hi} + b_i\right) $$

        $$ f_t = \sigma\left(x_t W_{xf} + h_{t-1} W_{hf} + b_f\right) $$

        $$ o_t = \sigma\left(x_t W_{xo} + h_{t-1} W_{ho} + b_o\right) $$

        $$ \tilde{c}_t = \tanh\left(x_t W_{xc} + h_{t-1} W_{hc} + b_c\right) $$

        $$ c_t = f_t \circ c_{t-1} + i_t \circ \tilde{c}_t $$

        $$ h_t = o_t \circ \tanh(c_t) $$

        This is `variant="full"`, Keras's LSTM: $x_t W_{xf} + h_{t-1} W_{hf}$
        is the notes' $W_f \cdot [h_{t-1}, x_t]$. The notes (seed 004) build
        it up from a feed-forward unit with cell state $s_t$ ($= c_t$), output
        $z_t$ ($= h_t$), input gate $g_t$ ($= i_t$) and output gate $q_t$
        ($= o_t$); each step is a variant:

        $$ \text{gates\_only:}\quad c_t = i_t \circ \tilde{c}_t,\quad
           i_t, o_t, \tilde{c}_t \text{ from } x_t \text{ only} $$

        $$ \text{feedback:}\quad c_t = i_t \circ \tilde{c}_t,\quad
           i_t, o_t, \tilde{c}_t \text{ also from } h_{t-1} $$

        $$ \text{no\_forget\_gate:}\quad c_t = c_{t-1} + i_t \circ \tilde{c}_t
           \quad (f_t = 1) $$

        $$ \text{full:}\quad c_t = f_t \circ c_{t-1} + i_t \circ \tilde{c}_t $$

        The notes' build-up writes sig for the cell input; all variants use
        `activation` (tanh), so they differ only by the structural addition.
        Variants without a forget gate report it as the constant they imply
        ($f_t = 0$: no memory, $f_t = 1$: memory that never forgets) and have
        no forget-gate weights; `gates_only` has no `recurrent_kernel`.

    Args:
        units: Positive integer, dimension of $h_t$ and $c_t$.
        variant: `"full"` (default, the LSTM), `"no_forget_gate"`,
            `"feedback"` or `"gates_only"` (see Equations).
        activation: Activation of $\tilde{c}_t$ and of $c_t$ in $h_t$.
            Default `"tanh"`.
        recurrent_activation: Gate activation $\sigma$. Default `"sigmoid"`.
        use_bias: Whether to add the biases. Default `True`.
        kernel_initializer: Initializer of `kernel` (the $W_{x\cdot}$, packed).
            Default `"glorot_uniform"`.
        recurrent_initializer: Initializer of `recurrent_kernel` (the
            $W_{h\cdot}$, packed). Default `"orthogonal"`.
        bias_initializer: Initializer of `bias`. Default `"zeros"`.
        unit_forget_bias: Start $b_f$ at 1 (Jozefowicz et al. 2015), as Keras.
            Default `True`; only used with a forget gate.
        kernel_regularizer, recurrent_regularizer, bias_regularizer: Optional
            regularizers.
        kernel_constraint, recurrent_constraint, bias_constraint: Optional
            constraints.
        dropout: Fraction in [0, 1) of the inputs to drop while training.
        recurrent_dropout: Fraction in [0, 1) of $h_{t-1}$ to drop while training.
        seed: Random seed of the dropout masks.

    Call arguments:
        inputs: Tensor of shape `(batch, features)`, the input $x_t$.
        states: List `[h_{t-1}, c_{t-1}]` of `(batch, units)` tensors.
        training: Whether dropout is active.

    Returns:
        `(h, [h, c])`. `step` also returns the internals
        `{"i", "f", "o", "c_tilde", "c", "h"}`.

    Example:

    ```python
    cell = LSTMCell(4)
    cell.build((None, 3))
    h, (h, c), gates = cell.step(np.zeros((2, 3)), cell.get_initial_state(2))
    gates["f"]  # the forget gate f_t, (2, 4)
    ```
    """

    internal_names = ("i", "f", "o", "c_tilde", "c", "h")

    # The notes' matrices as read-only slices of the packed weights, shape
    # (features, units), (units, units) or (units,); None when the variant lacks them.
    W_xi = _gate_view("kernel", "i", "Input x_t -> input gate i_t.")
    W_xf = _gate_view("kernel", "f", "Input x_t -> forget gate f_t.")
    W_xc = _gate_view("kernel", "c", "Input x_t -> candidate c~_t.")
    W_xo = _gate_view("kernel", "o", "Input x_t -> output gate o_t.")
    W_hi = _gate_view("recurrent_kernel", "i", "State h_{t-1} -> input gate i_t.")
    W_hf = _gate_view("recurrent_kernel", "f", "State h_{t-1} -> forget gate f_t.")
    W_hc = _gate_view("recurrent_kernel", "c", "State h_{t-1} -> candidate c~_t.")
    W_ho = _gate_view("recurrent_kernel", "o", "State h_{t-1} -> output gate o_t.")
    b_i = _gate_view("bias", "i", "Bias of the input gate.")
    b_f = _gate_view("bias", "f", "Bias of the forget gate.")
    b_c = _gate_view("bias", "c", "Bias of the candidate.")
    b_o = _gate_view("bias", "o", "Bias of the output gate.")

    def __init__(
        self,
        units,
        variant="full",
        activation="tanh",
        recurrent_activation="sigmoid",
        use_bias=True,
        kernel_initializer="glorot_uniform",
        recurrent_initializer="orthogonal",
        bias_initializer="zeros",
        unit_forget_bias=True,
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
        if variant not in VARIANTS:
            raise ValueError(
                f"Argument `variant` must be one of {sorted(VARIANTS)}. Received: variant={variant!r}"
            )
        self.units = check_units(units)
        self.variant = variant
        self.gates, self.recurrent, self.constant_forget = VARIANTS[variant]
        self.activation = get_activation("activation", activation)
        self.recurrent_activation = get_activation("recurrent_activation", recurrent_activation)
        self.use_bias = bool(use_bias)
        self.unit_forget_bias = bool(unit_forget_bias)
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
        self.state_size = [self.units, self.units]
        self.output_size = self.units

    def build(self, input_shape):
        check_step_rank(self, input_shape)
        width = len(self.gates) * self.units
        self.kernel = self.add_weight(
            shape=(input_shape[-1], width),
            name="kernel",
            initializer=self.kernel_initializer,
            regularizer=self.kernel_regularizer,
            constraint=self.kernel_constraint,
        )
        self.recurrent_kernel = None
        if self.recurrent:
            self.recurrent_kernel = self.add_weight(
                shape=(self.units, width),
                name="recurrent_kernel",
                initializer=self.recurrent_initializer,
                regularizer=self.recurrent_regularizer,
                constraint=self.recurrent_constraint,
            )
        self.bias = None
        if self.use_bias:
            self.bias = self.add_weight(
                shape=(width,),
                name="bias",
                initializer=self._bias_initializer,
                regularizer=self.bias_regularizer,
                constraint=self.bias_constraint,
            )

    def _bias_initializer(self, shape, dtype=None):
        if not (self.unit_forget_bias and "f" in self.gates):
            return self.bias_initializer(shape, dtype=dtype)
        parts = [
            ops.ones((self.units,), dtype=dtype)  # b_f = 1: remember by default
            if gate == "f"
            else self.bias_initializer((self.units,), dtype=dtype)
            for gate in self.gates
        ]
        return ops.concatenate(parts)

    def gate_slice(self, weight_name, gate):
        """The columns of `kernel`, `recurrent_kernel` or `bias` that feed `gate`."""
        weight = getattr(self, weight_name)
        if weight is None or gate not in self.gates:
            return None
        start = self.gates.index(gate) * self.units
        return weight[..., start : start + self.units]

    def step(self, inputs, states, training=False):
        """One time step: returns `(output, new_states, internals)`."""
        h_prev, c_prev = states[0], states[1]
        inputs = ops.cast(inputs, self.compute_dtype)  # e.g. NumPy float64 from a trace loop
        if training and self.dropout > 0:
            inputs = inputs * self.get_dropout_mask(inputs)
        pre = ops.matmul(inputs, self.kernel)  # (B, F) @ (F, G*u), all gates at once
        if self.recurrent:
            if training and self.recurrent_dropout > 0:
                h_prev = h_prev * self.get_recurrent_dropout_mask(h_prev)
            pre = pre + ops.matmul(h_prev, self.recurrent_kernel)  # (B, u) @ (u, G*u)
        if self.bias is not None:
            pre = pre + self.bias
        net = dict(zip(self.gates, ops.split(pre, len(self.gates), axis=-1)))  # (B, G*u) -> G x (B, u)
        i = self.recurrent_activation(net["i"])
        o = self.recurrent_activation(net["o"])
        c_tilde = self.activation(net["c"])
        if "f" in self.gates:
            f = self.recurrent_activation(net["f"])
        else:
            f = ops.full_like(i, self.constant_forget)
        c = f * c_prev + i * c_tilde
        h = o * self.activation(c)
        internals = {"i": i, "f": f, "o": o, "c_tilde": c_tilde, "c": c, "h": h}
        return h, [h, c], internals

    def call(self, inputs, states, training=False):
        output, new_states, _ = self.step(inputs, states, training=training)
        return output, new_states

    def get_initial_state(self, batch_size=None):
        return [ops.zeros((batch_size, self.units), dtype=self.compute_dtype) for _ in range(2)]

    def get_config(self):
        config = {
            "units": self.units,
            "variant": self.variant,
            "activation": keras.activations.serialize(self.activation),
            "recurrent_activation": keras.activations.serialize(self.recurrent_activation),
            "use_bias": self.use_bias,
            "unit_forget_bias": self.unit_forget_bias,
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
class LSTM(FusedSequenceLayer):
    r"""Long short-term memory layer, with Keras's fused (cuDNN) path when eligible.

    Equations:
        $$ i_t = \sigma\left(x_t W_{xi} + h_{t-1} W_{hi} + b_i\right) $$

        $$ f_t = \sigma\left(x_t W_{xf} + h_{t-1} W_{hf} + b_f\right) $$

        $$ o_t = \sigma\left(x_t W_{xo} + h_{t-1} W_{ho} + b_o\right) $$

        $$ \tilde{c}_t = \tanh\left(x_t W_{xc} + h_{t-1} W_{hc} + b_c\right) $$

        $$ c_t = f_t \circ c_{t-1} + i_t \circ \tilde{c}_t $$

        $$ h_t = o_t \circ \tanh(c_t) $$

        The loop runs `LSTMCell.step` (see its `variant`s for the notes'
        build-up). Weights are Keras's `LSTM` weights (`kernel`,
        `recurrent_kernel`, `bias`, gates packed i, f, c, o), so `set_weights`
        works both ways. With `variant="full"`, tanh/sigmoid, a bias, no
        recurrent dropout and no unrolling, the whole sequence goes through
        Keras's backend kernel (cuDNN on a GPU) exactly as `keras.layers.LSTM`
        does; elsewhere, and whenever that kernel declines, through the cell.

    Args:
        units: Positive integer, dimension of $h_t$ and $c_t$.
        variant: `"full"` (default), `"no_forget_gate"`, `"feedback"` or
            `"gates_only"`: the notes' steps towards the LSTM (see `LSTMCell`).
        activation: Activation of $\tilde{c}_t$ and of $c_t$ in $h_t$.
            Default `"tanh"`.
        recurrent_activation: Gate activation $\sigma$. Default `"sigmoid"`.
        use_bias: Whether to add the biases. Default `True`.
        unit_forget_bias: Start $b_f$ at 1, as Keras. Default `True`.
        dropout: Fraction in [0, 1) of the inputs to drop while training.
        recurrent_dropout: Fraction in [0, 1) of $h_{t-1}$ to drop while
            training (disables the fused path).
        seed: Random seed of the dropout masks.
        return_sequences: Return all $h_1..h_T$ (`True`) or only $h_T$.
        return_state: Also return the last $h_T$ and $c_T$.
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
        initial_state: Optional list `[h_0, c_0]` of `(batch, units)` tensors.
        mask: Optional boolean tensor `(batch, time)`; `False` skips a step.
        training: Whether dropout is active.

    Returns:
        `(batch, units)` or `(batch, time, units)` with `return_sequences`;
        with `return_state`, a list `[output, h_T, c_T]`.

    Example:

    ```python
    LSTM(4, return_sequences=True)(np.zeros((2, 5, 3)))  # (2, 5, 4)
    LSTM(4, variant="no_forget_gate")(np.zeros((2, 5, 3)))  # (2, 4)
    ```
    """

    def __init__(
        self,
        units,
        variant="full",
        activation="tanh",
        recurrent_activation="sigmoid",
        use_bias=True,
        unit_forget_bias=True,
        dropout=0.0,
        recurrent_dropout=0.0,
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
        cell = LSTMCell(
            units,
            variant=variant,
            activation=activation,
            recurrent_activation=recurrent_activation,
            use_bias=use_bias,
            unit_forget_bias=unit_forget_bias,
            dropout=dropout,
            recurrent_dropout=recurrent_dropout,
            seed=seed,
            **self.cell_options(kwargs, "lstm_cell"),
        )
        super().__init__(
            cell, return_sequences=return_sequences, return_state=return_state, go_backwards=go_backwards,
            stateful=stateful, unroll=unroll, zero_output_for_mask=zero_output_for_mask, use_cudnn=use_cudnn,
            **kwargs,
        )

    @property
    def variant(self):
        return self.cell.variant

    def _fused_kernel(self):
        return getattr(backend, "lstm", None)  # private: see the import

    def _fused_eligible(self):
        return super()._fused_eligible() and self.cell.variant == "full"

    def _fused_settings(self):
        return {"variant": self.cell.variant, **super()._fused_settings()}
