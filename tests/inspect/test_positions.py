"""Attention maps name the positions a model makes: [CLS] in front, BERT's [SEP], image patches by grid cell."""

import numpy as np

from seqlab.data import load_dataset
from seqlab.inspect import AttentionTrace, trace
from seqlab.models import build_model
from tests.models.test_cnn import text_data

ENCODER = {"layers": 1, "heads": 2, "width": 8, "ff_units": 16, "dropout": 0.0}


def first_attention(model, x, labels=None) -> AttentionTrace:
    return trace(model, x, labels).of(AttentionTrace)[0]


def test_image_patches_are_named_by_their_row_and_column_after_the_class_token():
    data = load_dataset("digits")
    layer = first_attention(build_model("vit", data, {**ENCODER, "patch_size": 4}), data.splits["test"].x[:1])
    assert layer.query_labels == ["[CLS]", "(1,1)", "(1,2)", "(2,1)", "(2,2)"]  # four 4x4 patches of an 8x8 image
    assert layer.key_labels["self"] == layer.query_labels and layer.arrays["self"].shape == (2, 5, 5)


def test_bert_names_its_cls_and_sep_around_the_sentence_and_keeps_the_padding_after():
    data = text_data("classify", T=6)
    ids = np.array([[5, 6, 7, 0, 0, 0]])
    layer = first_attention(build_model("bert", data, ENCODER), ids, ["a", "b", "c", "·", "·", "·"])
    assert layer.query_labels == ["[CLS]", "a", "b", "c", "[SEP]", "·", "·", "·"]
    assert np.all(layer.arrays["self"][:, :, 5:] == 0), "the padding after [SEP] gets no weight"


def test_a_class_token_goes_in_front_of_the_words():
    data = text_data("classify", T=4)
    model = build_model("transformer", data, {**ENCODER, "pooling": "cls"})
    layer = first_attention(model, np.array([[5, 6, 7, 8]]), ["w", "x", "y", "z"])
    assert layer.query_labels == ["[CLS]", "w", "x", "y", "z"]
