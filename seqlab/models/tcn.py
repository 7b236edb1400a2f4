"""The temporal convolutional network (Bai et al. 2018): residual blocks of dilated causal convolutions.

The body is one ``seqlab.layers.tcn.TemporalConvNet`` of ``layers`` residual
blocks, block ``l`` with dilation ``2^(l-1)``, so the receptive field
``R = 1 + 2(k-1)(2^layers - 1)`` doubles with each block. It returns every
step for a labelling task or a language model, else its last real step, on
which the task's head sits. Nothing reads a later step, so a language model
needs no mask of the future, and it generates one token at a time from each
convolution's last ``(k-1)d`` inputs (``seqlab.models.chain_steps``).

Keras and the layers are imported inside the builder, so registering the architecture does not import TensorFlow.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from seqlab.checks import Range, check_bool, check_dropout, check_positive_int
from seqlab.data.sequence_data import SequenceData
from seqlab.models.registry import Architecture, register_architecture

if TYPE_CHECKING:
    import keras

BODY_LAYER = "tcn"


def doubling_dilations(layers: int) -> list[int]:
    """``[1, 2, 4, ..., 2^(layers-1)]``: one dilation per residual block."""
    return [2**l for l in range(check_positive_int("layers", layers))]


def build_tcn(
    data: SequenceData, filters: int, kernel_size: int, layers: int, dropout: float, weight_norm: bool
) -> keras.Model:
    from seqlab.layers.tcn import TemporalConvNet
    from seqlab.models.task_model import build_task_model

    network = dict(
        filters=check_positive_int("filters", filters), kernel_size=check_positive_int("kernel_size", kernel_size),
        dilations=doubling_dilations(layers), dropout=check_dropout(dropout),
        weight_norm=check_bool("weight_norm", weight_norm),
    )

    def body(x, sequences):
        return TemporalConvNet(**network, return_sequences=sequences, name=BODY_LAYER)(x)  # (B, T, f) or (B, f)

    return build_task_model(data, body, name="tcn")


def tcn_steps(model: keras.Model):
    """The model one step at a time from every convolution's shift buffer (``seqlab.models.chain_steps``)."""
    from seqlab.layers.tcn import TemporalConvNet
    from seqlab.models.chain_steps import ChainSteps

    return ChainSteps(model, (TemporalConvNet,), "tcn")


register_architecture(
    Architecture(
        name="tcn",
        title="Temporal convolutional network (TCN)",
        tasks=("forecast", "classify", "label", "language"),
        family="CNN over sequences",
        teaches="dilated causal convolutions (TCN)",
        description=(
            "Residual blocks of two dilated causal 1-D convolutions (ReLU, dropout, weight normalisation), "
            "block l with dilation 2^(l-1): output t reads the last R = 1 + 2(kernel_size - 1)(2^layers - 1) "
            "steps and nothing later (Bai et al. 2018). Generates one token at a time from each "
            "convolution's shift buffer; Inspect shows which inputs a step reads."
        ),
        build=build_tcn,
        defaults={"filters": 64, "kernel_size": 3, "layers": 4, "dropout": 0.0, "weight_norm": True},
        ranges={"filters": Range(1, 1024), "kernel_size": Range(1, 15)},
        labels={
            "filters": ("Filters", "Channels of every causal convolution and block output."),
            "kernel_size": ("Kernel size k", "Taps of each convolution: it reads t, t - d, ..., t - (k-1)d."),
            "layers": ("Blocks", "Residual blocks, block l with dilation 2^(l-1): each doubles the receptive field."),
            "weight_norm": ("Weight normalisation", "Learn each kernel as a direction and a length (Bai et al. do)."),
        },
        steps=tcn_steps,
    )
)
