"""The 1-D CNN and the mean-of-embeddings baseline: padding masked, so a padded sentence is predicted as the unpadded one."""

import keras
import numpy as np
import pandas as pd
import pytest

from seqlab.data.sequence_data import SequenceData, Split
from seqlab.models import build_model, list_architectures
from seqlab.text import WordTokenizer
from tests.compiled import compiled

TEXTS = ["a fine warm film", "great fun", "a moving story", "a dull film", "boring", "a weak plot and dull acting"]
SENTIMENT = np.array([1, 1, 1, 0, 0, 0])


def text_data(task: str, T: int) -> SequenceData:
    tokenizer = WordTokenizer(vocab_size=100).fit(TEXTS)
    ids, mask = tokenizer.pad_and_mask([tokenizer.encode(t) for t in TEXTS], T)
    y = SENTIMENT if task == "classify" else (SENTIMENT[:, None] * mask).astype("int64")  # a tag per word
    split = Split(ids, y, np.arange(len(TEXTS)), mask=mask)
    return SequenceData(
        name="tiny_text", task=task, frame=pd.DataFrame({"text": TEXTS, "label": SENTIMENT}), features=("text",),
        target="label", units={}, lookback=T, horizon=1 if task == "classify" else T,
        splits={"train": split, "val": split, "test": split}, options={"embedding_dim": 4},
        classes=("negative", "positive"), tokenizer=tokenizer,
    )


CASES = [
    ("cnn", "classify", {"filters": 3, "min_width": 2, "max_width": 4}),
    ("cnn", "label", {"filters": 3, "min_width": 1, "max_width": 3}),
    ("mean_embedding", "classify", {"units": 3}),
]


@pytest.mark.parametrize("arch, task, options", CASES)
def test_a_padded_sentence_is_predicted_as_the_unpadded_one(arch, task, options):
    sentence = "a weak plot and dull acting"  # 6 words
    padded_model = build_model(arch, text_data(task, T=10), options)
    unpadded_model = build_model(arch, text_data(task, T=6), options)
    unpadded_model.set_weights(padded_model.get_weights())  # no weight depends on T
    tokenizer = text_data(task, T=6).tokenizer
    padded = tokenizer.pad_and_mask([tokenizer.encode(sentence)], 10)[0]
    unpadded = tokenizer.pad_and_mask([tokenizer.encode(sentence)], 6)[0]
    assert (padded[0, 6:] == 0).all() and (unpadded != 0).all()
    seen = padded_model.predict(padded, verbose=0)
    alone = unpadded_model.predict(unpadded, verbose=0)
    np.testing.assert_allclose(seen if task == "classify" else seen[:, :6], alone, rtol=1e-5, atol=1e-6)

    # Whatever the [PAD] row of the embedding holds, the prediction does not move.
    embedding = padded_model.get_layer("embedding")
    table = embedding.get_weights()[0]
    table[0] += 5.0
    embedding.set_weights([table])
    np.testing.assert_allclose(padded_model.predict(padded, verbose=0), seen, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("arch, task, options", CASES)
def test_it_trains_on_text_and_its_output_keeps_the_mask_for_a_tag_per_step(arch, task, options):
    data = text_data(task, T=8)
    model = build_model(arch, data, options)
    compiled(model, "adam", "sparse_categorical_crossentropy")
    train = data.splits["train"]
    history = model.fit(train.x, train.y, epochs=2, batch_size=3, verbose=0)
    assert np.all(np.isfinite(history.history["loss"]))
    assert model.predict(train.x, verbose=0).shape == ((6, 2) if task == "classify" else (6, 8, 2))
    out = model(keras.ops.convert_to_tensor(train.x))
    # The label loss skips the padding only if the mask reaches the head's output.
    assert (getattr(out, "_keras_mask", None) is not None) == (task == "label")


def test_an_empty_sentence_gets_a_finite_prediction():
    data = text_data("classify", T=5)
    for arch in ("cnn", "mean_embedding"):
        p = build_model(arch, data).predict(np.zeros((1, 5), "int32"), verbose=0)
        assert np.all(np.isfinite(p)) and p.sum() == pytest.approx(1.0, abs=1e-5)


def test_numeric_sequences_work_too(tiny):
    for arch in ("cnn", "mean_embedding"):
        data = tiny["classify"]
        model = build_model(arch, data, {"dropout": 0.1})
        assert model.predict(data.splits["test"].x[:3], verbose=0).shape == (3, len(data.classes))


def test_registered_for_classify_and_label_and_bad_widths_refused():
    assert {"cnn", "mean_embedding"} <= {a.name for a in list_architectures("classify")}
    assert "cnn" in {a.name for a in list_architectures("label")}
    assert "mean_embedding" not in {a.name for a in list_architectures("label")}
    with pytest.raises(ValueError, match="min_width .* max_width"):
        build_model("cnn", text_data("classify", T=5), {"min_width": 4, "max_width": 3})
    with pytest.raises(ValueError, match="filters"):
        build_model("cnn", text_data("classify", T=5), {"filters": 0})
