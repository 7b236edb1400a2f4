"""The recurrent architectures: Elman RNN, LSTM and GRU, each optionally bidirectional.

The body stacks ``layers`` of seqlab's recurrent layers (``seqlab.layers.recurrent``);
all but the last return sequences, the last returns its final state h_T (or
every h_t for a labelling task or a language model), on which the task's head sits. With
``bidirectional``, every layer runs forwards and backwards and the notes'
z_t = [z_t^f ; z_t^b] is formed by ``merge_mode`` (concat, or sum, mul, ave).

Keras and the layers are imported inside the builders: registering (and
listing, ``python -m seqlab models``) must not import TensorFlow.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from seqlab.checks import check_bool, check_dropout, check_positive_int
from seqlab.data.sequence_data import SequenceData
from seqlab.models.registry import Architecture, register_architecture
from seqlab.tasks import get_task

if TYPE_CHECKING:
    import keras

TASKS = ("forecast", "regress", "classify", "label", "language")
MERGE_MODES = ("concat", "sum", "mul", "ave")
# The names of seqlab.layers.recurrent.lstm.VARIANTS, the notes' build-up of the LSTM, written out
# so that listing needs no Keras (tests/test_cli_listing.py checks that both agree).
LSTM_VARIANTS = ("gates_only", "feedback", "no_forget_gate", "full")
DEFAULTS = {"units": 64, "layers": 1, "dropout": 0.0, "bidirectional": False, "merge_mode": "concat"}


def build_recurrent(
    data: SequenceData, layer_cls, name: str, units: int, layers: int, dropout: float,
    bidirectional: bool, merge_mode: str, **layer_options,
) -> keras.Model:
    import keras

    from seqlab.models.task_model import build_task_model

    units = check_positive_int("units", units)
    layers = check_positive_int("layers", layers)
    dropout = check_dropout(dropout)
    bidirectional = check_bool("bidirectional", bidirectional)
    if bidirectional and get_task(data.task).causal:
        raise ValueError(
            f"A {data.task} model cannot be bidirectional: the backward pass would read the very tokens it "
            "must predict. Set bidirectional to false."
        )

    def body(x, sequences):
        for i in range(layers):
            last = i == layers - 1
            layer = layer_cls(
                units, return_sequences=sequences or not last, dropout=dropout, name=f"{name}_{i + 1}",
                **layer_options,
            )
            if bidirectional:
                layer = keras.layers.Bidirectional(layer, merge_mode=merge_mode, name=f"bidirectional_{i + 1}")
            x = layer(x)
        return x  # (B, units) h_T of the top layer, or (B, T, units); 2 * units when concatenated

    return build_task_model(data, body, name=name)


def build_simple_rnn(data: SequenceData, activation: str, identity_init: bool, **options) -> keras.Model:
    # IRNN (Le et al. 2015): ReLU units with B = I start as a memory that neither vanishes nor explodes.
    from seqlab.layers.recurrent import SimpleRNN

    initializer = "identity" if check_bool("identity_init", identity_init) else "orthogonal"
    return build_recurrent(
        data, SimpleRNN, "simple_rnn", activation=activation, recurrent_initializer=initializer, **options
    )


def build_lstm(data: SequenceData, variant: str, **options) -> keras.Model:
    from seqlab.layers.recurrent import LSTM

    return build_recurrent(data, LSTM, "lstm", variant=variant, **options)


def build_gru(data: SequenceData, reset_after: bool, **options) -> keras.Model:
    from seqlab.layers.recurrent import GRU

    return build_recurrent(data, GRU, "gru", reset_after=check_bool("reset_after", reset_after), **options)


def recurrent_steps(model: keras.Model):
    """The model one step at a time, every cell's state carried (``seqlab.models.recurrent_steps``)."""
    from seqlab.models.recurrent_steps import RecurrentSteps

    return RecurrentSteps(model)


register_architecture(
    Architecture(
        name="simple_rnn",
        title="Elman RNN",
        tasks=TASKS,
        family="Elman RNN",
        teaches=r"$z_t = \sigma(B z_{t-1} + V x_t)$, $y_t = \sigma(W z_t)$; BPTT and truncated BPTT",
        description=(
            "The notes' simple recurrent network z_t = sig(B z_{t-1} + V x_t): BPTT through a single "
            "state. With activation relu and identity_init it is the IRNN remedy for vanishing gradients."
        ),
        build=build_simple_rnn,
        defaults={**DEFAULTS, "activation": "tanh", "identity_init": False},
        choices={"activation": ("tanh", "relu", "sigmoid"), "merge_mode": MERGE_MODES},
        steps=recurrent_steps,
    )
)
register_architecture(
    Architecture(
        name="lstm",
        title="LSTM",
        tasks=TASKS,
        family="LSTM",
        teaches="forget, input and output gates $f_t, i_t, o_t$ with a cell state $c_t$",
        description=(
            "Long short-term memory: gated cell state carries information over long spans. The variant "
            "option steps through the notes' build-up: gates_only, feedback, no_forget_gate, full."
        ),
        build=build_lstm,
        defaults={**DEFAULTS, "variant": "full"},
        choices={"variant": LSTM_VARIANTS, "merge_mode": MERGE_MODES},
        steps=recurrent_steps,
    )
)
register_architecture(
    Architecture(
        name="gru",
        title="GRU",
        tasks=TASKS,
        family="GRU",
        teaches="update and reset gates $u_t, r_t$",
        description=(
            "Gated recurrent unit: update and reset gates, fewer weights than an LSTM. reset_after "
            "false is the notes' form (reset before the recurrent product), true Keras's/cuDNN's."
        ),
        build=build_gru,
        defaults={**DEFAULTS, "reset_after": True},
        choices={"merge_mode": MERGE_MODES},
        steps=recurrent_steps,
    )
)
