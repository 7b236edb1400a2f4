r"""The vision transformer (seed 003): an image read as a sequence of patches, classified from its [CLS] token.

An image of H x W pixels is cut into N = HW / p^2 patches of p x p pixels in
reading order (``seqlab.layers.ImagePatches``); a linear patch embedding maps
each to the width d, a learned [CLS] vector goes in front, learned positions
are added (the encoder would otherwise see a bag of patches), and the encoder
blocks of ``seqlab.models.transformer`` read the N + 1 tokens. The [CLS]
token's encoding z_CLS feeds the class head.

    image -> N patches -> Dense d -> [CLS] -> + P_t -> N x encoder block -> z_CLS -> classes

The data must be images: a classify dataset of numbers, every example a grid
of H rows by W columns (T = H, F = W; ``digits``: 8 x 8), not text and not
sequences of different lengths. seqlab's datasets carry no "image" flag, so
those are what the builder checks.

Keras is imported inside the builder, so registering the architecture does not import TensorFlow.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from seqlab.checks import Range, check_positive_int
from seqlab.data.sequence_data import SequenceData
from seqlab.models.registry import Architecture, register_architecture
from seqlab.models.transformer import ENCODER_CHOICES, ENCODER_DEFAULTS, ENCODER_RANGES, check_encoder

if TYPE_CHECKING:
    import keras


def image_size(data: SequenceData) -> tuple[int, int]:
    """``(H, W)`` of the dataset's images; a ValueError for text or for sequences of different lengths."""
    train = data.splits["train"]
    if data.tokenizer is not None:
        raise ValueError(
            f"vit reads images, but dataset {data.name!r} holds text: choose an image dataset (digits), "
            "or the transformer architecture for text."
        )
    if train.mask is not None or len(data.input_shape) != 2:
        raise ValueError(
            f"vit reads images of H x W pixels, but dataset {data.name!r} holds sequences of different lengths "
            f"(input shape {data.input_shape}): choose an image dataset (digits), or the transformer architecture."
        )
    return data.input_shape


def check_patch_size(patch_size, height: int, width: int) -> int:
    """``patch_size`` if it tiles an ``height`` x ``width`` image, else a ValueError listing those that do."""
    p = check_positive_int("patch_size", patch_size)
    if height % p or width % p:
        fitting = [q for q in range(1, min(height, width) + 1) if height % q == 0 and width % q == 0]
        raise ValueError(
            f"patch_size {p} does not divide the {height}x{width} images: choose one of "
            f"{', '.join(map(str, fitting))}."
        )
    return p


def build_vit(data: SequenceData, patch_size: int, **encoder) -> keras.Model:
    import keras

    from seqlab.layers.class_token import ClassToken
    from seqlab.layers.patches import ImagePatches
    from seqlab.models.task_model import build_task_model
    from seqlab.models.transformer import transformer_encoder

    p = check_patch_size(patch_size, *image_size(data))
    encoder = check_encoder(**encoder)
    width = encoder.pop("width")

    def body(x, sequences):
        patches = ImagePatches(p, name="patches")(x)  # (B, N, p^2)
        z = keras.layers.Dense(width, name="patch_embedding")(patches)  # (B, N, d)
        z = ClassToken(name="class_token")(z)  # (B, 1 + N, d)
        return transformer_encoder(z, "learned", **encoder)[:, 0]  # z_CLS

    return build_task_model(data, body, name="vit")


register_architecture(
    Architecture(
        name="vit",
        title="Vision transformer",
        tasks=("classify",),
        family="Transformer",
        teaches="images as sequences of patches, a [CLS] token",
        description=(
            "For images (digits): cut into patches of patch_size x patch_size pixels, read as a sequence. "
            "A linear patch embedding, a [CLS] token, learned positions and N encoder blocks; the [CLS] "
            "token's encoding names the class. patch_size must divide the image's height and width."
        ),
        build=build_vit,
        needs=frozenset({"image"}),
        defaults={"patch_size": 4, **ENCODER_DEFAULTS},
        choices=ENCODER_CHOICES,
        ranges={**ENCODER_RANGES, "patch_size": Range(1, 64)},
    )
)
