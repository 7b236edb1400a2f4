"""Classify and label on text: token ids in, the padding masked, the tokeniser kept with the run."""

import numpy as np
import pandas as pd
import pytest

from seqlab.data.sequence_data import SequenceData, Split
from seqlab.models import build_model
from seqlab.tasks import get_task
from seqlab.tasks.text_inputs import TOKENIZER_FILE, load_sequence_assets, save_sequence_assets
from seqlab.text import WordTokenizer

GOOD = ["a fine warm film", "great fun", "a moving story", "fine acting and great fun"]
BAD = ["a dull film", "boring", "a weak plot and dull acting", "weak"]
T = 6


def text_data(task: str = "classify") -> SequenceData:
    texts = GOOD + BAD
    tokenizer = WordTokenizer(vocab_size=100).fit(texts)
    ids, mask = tokenizer.pad_and_mask([tokenizer.encode(t) for t in texts], T)
    if task == "classify":
        y = np.array([1] * len(GOOD) + [0] * len(BAD))
    else:  # a tag per token: 1 on the words of a good sentence, padding 0
        y = (np.array([1] * len(GOOD) + [0] * len(BAD))[:, None] * mask).astype("int64")
    split = Split(ids, y, np.arange(len(texts)), mask=mask)
    frame = pd.DataFrame({"text": texts, "label": y if task == "classify" else 0})
    return SequenceData(
        name="tiny_text", task=task, frame=frame, features=("text",), target="label", units={}, lookback=T,
        horizon=1 if task == "classify" else T, splits={"train": split, "val": split, "test": split},
        options={"embedding_dim": 4}, classes=("negative", "positive"), tokenizer=tokenizer,
    )


@pytest.mark.parametrize("arch, options", [("gru", {"units": 3}), ("lstm", {"units": 3, "bidirectional": True})])
def test_a_text_classifier_reads_token_ids_and_ignores_padding(arch, options):
    data = text_data()
    model = build_model(arch, data, options)
    assert model.inputs[0].dtype == "int32" and tuple(model.inputs[0].shape) == (None, T)
    assert model.get_layer("embedding").mask_zero
    short = data.tokenizer.pad_and_mask([data.tokenizer.encode("great fun")], T)[0]  # 2 words, 4 [PAD]
    before = model.predict(short, verbose=0)
    # Change what [PAD] embeds to: a masked model's prediction does not move.
    embedding = model.get_layer("embedding")
    weights = embedding.get_weights()[0]
    weights[0] += 5.0
    embedding.set_weights([weights])
    np.testing.assert_allclose(model.predict(short, verbose=0), before, atol=1e-6)


def test_a_text_tagger_reads_token_ids_and_outputs_a_tag_per_token():
    data = text_data("label")
    model = build_model("gru", data, {"units": 3, "bidirectional": True})
    assert model.predict(data.splits["test"].x[:3], verbose=0).shape == (3, T, 2)


def test_text_runs_keep_the_tokeniser_and_numeric_runs_the_scaler(tmp_path):
    data = text_data()
    assert save_sequence_assets(tmp_path, data) == [TOKENIZER_FILE]
    assert load_sequence_assets(tmp_path)["tokenizer"].vocab == data.tokenizer.vocab
    assert get_task("classify").inputs(data)[0].dtype == "int32"


def test_the_savedmodel_classifies_raw_strings_without_seqlab(tmp_path):
    from seqlab.tasks.text_serving import export_sequence
    from tests.fresh_process import without_seqlab

    data = text_data()
    model = build_model("gru", data, {"units": 3})
    export_sequence(model, data, tmp_path / "savedmodel")
    texts = ["Great fun!", "a dull, weak film", "words it never saw"]
    ids = data.tokenizer.pad_and_mask([data.tokenizer.encode(t) for t in texts], T)[0]
    expected = model.predict(ids, verbose=0)
    result = without_seqlab(f"""
import json
import tensorflow as tf
served = tf.saved_model.load({str(tmp_path / "savedmodel")!r})
print(json.dumps({{"out": served.serve_text(tf.constant({texts!r})).numpy().tolist()}}))
""", tmp_path)
    assert result["seqlab"] is False
    np.testing.assert_allclose(result["out"], expected, atol=1e-5)


def test_the_tagging_baselines_count_real_tokens_only():
    from seqlab.tasks.label import evaluate_labelling

    data = text_data("label")  # tags: 1 on the words of good sentences, 0 on bad ones and on padding
    test = data.splits["test"]
    words = test.mask.sum()
    good_words = int((test.y * test.mask).sum())
    assert good_words / words > 0.5  # most real tokens are tagged 1, most steps (with padding) 0
    flat = np.full((*test.y.shape, 2), 0.5)
    metrics = evaluate_labelling(data, flat).metrics
    assert metrics["baselines"]["majority"]["accuracy"] == pytest.approx(good_words / words)
