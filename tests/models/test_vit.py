"""The vision transformer: digits read as patches, learns, round-trips, and refuses data that is not an image."""

import dataclasses

import keras
import numpy as np
import pytest

from seqlab.data.sequence_data import Split
from seqlab.models import build_model, list_architectures
from seqlab.models.vit import image_size
from tests.compiled import compiled
from tests.models.test_cnn import text_data

TINY = {"patch_size": 4, "layers": 1, "heads": 2, "width": 8, "ff_units": 16, "dropout": 0.0}


def test_it_learns_digits_from_patches(tiny):
    data = tiny["classify"]
    assert image_size(data) == (8, 8)
    keras.utils.set_random_seed(0)
    model = build_model("vit", data, TINY)
    assert model.get_layer("patches").output.shape == (None, 4, 16)  # four 4x4 patches
    train = data.splits["train"]
    compiled(model, keras.optimizers.Adam(0.01), "sparse_categorical_crossentropy")
    losses = model.fit(train.x[:256], train.y[:256], epochs=5, batch_size=32, verbose=0).history["loss"]
    assert losses[-1] < 0.7 * losses[0]  # ln 10 = 2.30 at chance


def test_the_keras_file_round_trips(tiny, tmp_path):
    data = tiny["classify"]
    model = build_model("vit", data, {**TINY, "patch_size": 2, "norm": "post", "dropout": 0.1})
    x = data.splits["test"].x[:4]
    model.save(tmp_path / "vit.keras")
    loaded = keras.saving.load_model(tmp_path / "vit.keras")
    np.testing.assert_allclose(loaded.predict(x, verbose=0), model.predict(x, verbose=0), rtol=1e-5, atol=1e-6)


def test_a_patch_that_does_not_tile_the_image_is_refused(tiny):
    with pytest.raises(ValueError, match=r"patch_size 3 does not divide the 8x8 images: choose one of 1, 2, 4, 8"):
        build_model("vit", tiny["classify"], {"patch_size": 3})


def test_text_and_sequences_of_different_lengths_are_not_images(tiny):
    with pytest.raises(ValueError, match="vit reads images, but dataset 'tiny_text' holds text"):
        build_model("vit", text_data("classify", T=8))
    digits = tiny["classify"]
    train = digits.splits["train"]
    masked = Split(train.x, train.y, train.origin, mask=np.ones(train.x.shape[:2], bool))
    padded = dataclasses.replace(digits, splits={**digits.splits, "train": masked})
    with pytest.raises(ValueError, match="sequences of different lengths"):
        build_model("vit", padded)


def test_offered_for_classify_only():
    assert "vit" in {a.name for a in list_architectures("classify")}
    assert not any("vit" in {a.name for a in list_architectures(task)} for task in ("label", "forecast", "regress"))


def test_vit_is_offered_for_image_datasets_only():
    from seqlab.data import get_dataset
    from seqlab.models import list_architectures

    offered = {name: [a.name for a in list_architectures("classify", get_dataset(name).kinds)]
               for name in ("digits", "movie_sentiment", "japanese_vowels")}
    assert "vit" in offered["digits"] and "transformer" in offered["digits"]
    assert "vit" not in offered["movie_sentiment"] and "vit" not in offered["japanese_vowels"]
    assert "vit" in [a.name for a in list_architectures("classify")]  # the CLI lists every architecture
