"""The 1-D CNN over time (seed 003's exercise: the text classifier's RNN replaced by a CNN).

Kernels of widths ``min_width .. max_width`` slide over the (embedded)
sequence with zero padding (``seqlab.layers.ParallelConv1D``); for a class
per sequence the max over the real steps of every feature (global max
pooling, Kim 2014) feeds the head, for a tag per step every step does. The
padding of a short sentence is masked throughout: it gets the prediction of
the unpadded sentence.

Keras is imported inside the builder, so registering the architecture does not import TensorFlow.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from seqlab.checks import Range, check_dropout, check_positive_int
from seqlab.data.sequence_data import SequenceData
from seqlab.models.registry import Architecture, register_architecture

if TYPE_CHECKING:
    import keras


def kernel_widths(min_width: int, max_width: int) -> list[int]:
    """``[min_width, ..., max_width]``; refused when the range is empty."""
    low, high = check_positive_int("min_width", min_width), check_positive_int("max_width", max_width)
    if low > high:
        raise ValueError(
            f"min_width ({low}) is larger than max_width ({high}): set min_width <= max_width "
            "(equal for kernels of one width)."
        )
    return list(range(low, high + 1))


def build_cnn(data: SequenceData, filters: int, min_width: int, max_width: int, dropout: float) -> keras.Model:
    import keras

    from seqlab.layers import MaskedGlobalMaxPooling1D, ParallelConv1D
    from seqlab.models.task_model import build_task_model

    filters = check_positive_int("filters", filters)
    widths = kernel_widths(min_width, max_width)
    dropout = check_dropout(dropout)

    def body(x, sequences):
        z = ParallelConv1D(filters, widths, name="convolution")(x)  # (B, T, filters * widths), mask passed on
        if not sequences:
            z = MaskedGlobalMaxPooling1D(name="max_over_time")(z)  # (B, filters * widths)
        return keras.layers.Dropout(dropout, name="dropout")(z) if dropout else z

    return build_task_model(data, body, name="cnn")


register_architecture(
    Architecture(
        name="cnn",
        title="1-D CNN",
        tasks=("classify", "label"),  # max over time drops where a feature fired: no forecasts
        family="CNN over sequences",
        teaches="1-D convolution with zero padding",
        description=(
            "Kernels of widths min_width..max_width (filters of each) slide over the sequence with zero "
            "padding, ReLU; the max over time of every feature (a class per sequence) or every step (a tag "
            "per step) feeds the head. Padding is masked: a padded sentence is predicted as the unpadded one."
        ),
        build=build_cnn,
        defaults={"filters": 64, "min_width": 3, "max_width": 5, "dropout": 0.5},  # dropout 0.5 as Kim (2014)
        ranges={"filters": Range(1, 1024), "min_width": Range(1, 15), "max_width": Range(1, 15)},
    )
)
