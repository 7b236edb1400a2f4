"""The Transformer encoder as a body: padding masked, positions make word order count, it trains for every task."""

import keras
import numpy as np
import pytest

from seqlab.models import build_model, list_architectures
from seqlab.models.transformer import POOLINGS
from tests.compiled import compiled
from tests.models.test_cnn import text_data

TINY = {"layers": 1, "heads": 2, "width": 8, "ff_units": 16, "dropout": 0.0}


def copy_weights(source: keras.Model, target: keras.Model) -> None:
    """``source``'s weights into ``target``; a learned position table keeps its first rows (a shorter T)."""
    target.set_weights([w[: t.shape[0]] if w.shape != t.shape else w
                        for w, t in zip(source.get_weights(), target.get_weights())])


@pytest.mark.parametrize("task, options", [
    ("classify", {"pooling": "cls", "positions": "sinusoidal"}),
    ("classify", {"pooling": "mean", "positions": "learned", "norm": "post"}),
    ("classify", {"pooling": "last", "positions": "none", "multi_head": "full"}),
    ("label", {"positions": "learned"}),
])
def test_a_padded_sentence_is_predicted_as_the_unpadded_one(task, options):
    options = {**TINY, "width": 6, **options}  # width 6 != embedding_dim 4: the projection is used
    sentence = "a weak plot and dull acting"  # 6 words
    padded_model = build_model("transformer", text_data(task, T=10), options)
    unpadded_model = build_model("transformer", text_data(task, T=6), options)
    copy_weights(padded_model, unpadded_model)
    tokenizer = text_data(task, T=6).tokenizer
    padded = tokenizer.pad_and_mask([tokenizer.encode(sentence)], 10)[0]
    unpadded = tokenizer.pad_and_mask([tokenizer.encode(sentence)], 6)[0]
    assert (padded[0, 6:] == 0).all() and (unpadded != 0).all()
    real = slice(None) if task == "classify" else (slice(None), slice(0, 6))  # a tag per step: the real steps
    seen = padded_model.predict(padded, verbose=0)[real]
    alone = unpadded_model.predict(unpadded, verbose=0)
    np.testing.assert_allclose(seen, alone, rtol=1e-5, atol=1e-6)

    # Whatever the [PAD] row of the embedding holds, the prediction does not move.
    embedding = padded_model.get_layer("embedding")
    table = embedding.get_weights()[0]
    table[0] += 5.0
    embedding.set_weights([table])
    np.testing.assert_allclose(padded_model.predict(padded, verbose=0)[real], seen, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("positions, same", [("none", True), ("sinusoidal", False), ("learned", False)])
def test_without_positions_live_to_work_is_work_to_live(positions, same):
    data = text_data("classify", T=6)
    model = build_model("transformer", data, {**TINY, "positions": positions, "pooling": "cls"})
    ids = data.tokenizer.pad_and_mask([data.tokenizer.encode("a dull plot")], 6)[0]
    swapped = ids.copy()
    swapped[0, [0, 2]] = ids[0, [2, 0]]  # "plot dull a": the same bag of words
    p, q = model.predict(ids, verbose=0), model.predict(swapped, verbose=0)
    assert np.allclose(p, q, atol=1e-6) == same


def train_loss(model: keras.Model, x, y, epochs: int, loss: str = "sparse_categorical_crossentropy") -> list[float]:
    compiled(model, keras.optimizers.Adam(0.01), loss)
    return model.fit(x, y, epochs=epochs, batch_size=8, verbose=0).history["loss"]


@pytest.mark.parametrize("task", ["classify", "label"])
def test_it_learns_text_and_keeps_the_mask_only_for_a_tag_per_step(task):
    data = text_data(task, T=8)
    keras.utils.set_random_seed(0)
    model = build_model("transformer", data, TINY)
    train = data.splits["train"]
    losses = train_loss(model, train.x, train.y, epochs=30)
    assert losses[-1] < 0.5 * losses[0]
    assert model.predict(train.x, verbose=0).shape == ((6, 2) if task == "classify" else (6, 8, 2))
    out = model(keras.ops.convert_to_tensor(train.x))
    # The label loss skips the padding only if the mask reaches the head's output.
    assert (getattr(out, "_keras_mask", None) is not None) == (task == "label")


@pytest.mark.parametrize("pooling", POOLINGS)
def test_it_forecasts_and_learns(tiny, pooling):
    data = tiny["forecast"]
    keras.utils.set_random_seed(0)
    model = build_model("transformer", data, {**TINY, "pooling": pooling})
    train = data.splits["train"]
    losses = train_loss(model, train.x, train.y, epochs=4, loss="mse")
    assert losses[-1] < 0.5 * losses[0]
    assert model.predict(train.x[:3], verbose=0).shape == (3, data.horizon)


def test_numbers_classified_and_the_keras_file_round_trips(tiny, tmp_path):
    data = tiny["classify"]
    model = build_model("transformer", data, {**TINY, "positions": "learned", "norm": "post", "dropout": 0.1})
    x = data.splits["test"].x[:4]
    model.save(tmp_path / "model.keras")
    loaded = keras.saving.load_model(tmp_path / "model.keras")
    np.testing.assert_allclose(loaded.predict(x, verbose=0), model.predict(x, verbose=0), rtol=1e-5, atol=1e-6)
    assert loaded.predict(x, verbose=0).shape == (4, len(data.classes))


def test_empty_sentence_gets_a_finite_prediction():
    data = text_data("classify", T=5)
    for pooling in POOLINGS:
        p = build_model("transformer", data, {**TINY, "pooling": pooling}).predict(np.zeros((1, 5), "int32"), verbose=0)
        assert np.all(np.isfinite(p)) and p.sum() == pytest.approx(1.0, abs=1e-5)


def test_registered_for_its_tasks_and_bad_options_refused():
    for task in ("classify", "label", "forecast"):
        assert "transformer" in {a.name for a in list_architectures(task)}
    assert "transformer" not in {a.name for a in list_architectures("language")}
    data = text_data("classify", T=5)
    with pytest.raises(ValueError, match=r"width 10 does not split into 4 heads.*1, 2, 5, 10.*'full'"):
        build_model("transformer", data, {"width": 10, "heads": 4})
    build_model("transformer", data, {**TINY, "width": 10, "heads": 4, "multi_head": "full"})  # full: any h
    with pytest.raises(ValueError, match="positions"):
        build_model("transformer", data, {"positions": "rotary"})
    with pytest.raises(ValueError, match="pooling"):
        build_model("transformer", data, {"pooling": "max"})
    with pytest.raises(ValueError, match="heads"):
        build_model("transformer", data, {"heads": 0})
