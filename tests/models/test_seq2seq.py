"""The encoder-decoder: every attention trains, the decoder's step agrees with its teacher-forced call, beam width 1
is greedy, scheduled sampling feeds the model's own tokens in training only, a saved model translates the same,
and its SavedModel translates strings in a fresh process without seqlab."""

import numpy as np
import pytest

from tests.compiled import compiled
from tests.fresh_process import without_seqlab

OPTIONS = {"transform": "reverse", "samples": 300, "min_length": 2, "max_length": 5}
SMALL = {"units": 8, "embedding_dim": 8}


@pytest.fixture(scope="module")
def data():
    from seqlab.data import load_dataset

    return load_dataset("toy_pairs", **OPTIONS)


def build(data, **options):
    from seqlab.models import build_model

    return build_model("seq2seq", data, {**SMALL, **options})


def test_the_listing_names_are_the_decoders():
    from seqlab.layers import decoder
    from seqlab.models import seq2seq

    assert seq2seq.CELLS == tuple(decoder.CELLS) and seq2seq.ATTENTIONS == decoder.ATTENTIONS
    assert seq2seq.SCORES == decoder.SCORES


@pytest.mark.parametrize("options", [
    {"attention": "none", "cell": "simple_rnn"},
    {"attention": "bahdanau", "cell": "gru", "bidirectional": True},
    {"attention": "luong", "score": "dot", "cell": "lstm", "layers": 2},
    {"attention": "luong", "score": "concat", "input_feeding": False},
    {"attention": "local", "predictive": True, "half_width": 1},
], ids=lambda o: "-".join(str(v) for v in o.values()))
def test_every_attention_trains_and_its_step_agrees_with_the_teacher_forced_call(data, options):
    import keras

    from seqlab.data.text_pairs import EOS_ID, START_ID, shift_right
    from seqlab.tasks.translate.translation import greedy_targets

    keras.utils.set_random_seed(0)
    model = build(data, **options)
    compiled(model, keras.optimizers.Adam(0.02), "sparse_categorical_crossentropy")
    train, val = data.splits["train"], data.splits["val"]
    before = model.evaluate(val.inputs, val.y, verbose=0)
    model.fit(train.inputs, train.y, epochs=2, batch_size=32, verbose=0)
    assert model.evaluate(val.inputs, val.y, verbose=0) < before
    probabilities = model.predict(val.inputs, verbose=0)
    assert probabilities.shape == (len(val), data.horizon, data.target_tokenizer.vocab_size)
    np.testing.assert_allclose(probabilities.sum(axis=-1), 1.0, atol=1e-5)
    # Greedy decoding runs the decoder's step; fed its own output, the teacher-forced call gives the same choices.
    greedy = greedy_targets(model, val.x, START_ID, EOS_ID, data.horizon)
    replayed = model.predict([val.x, shift_right(greedy)], verbose=0).argmax(axis=-1)
    written = np.cumsum(greedy == EOS_ID, axis=1) - (greedy == EOS_ID) == 0  # up to the first [EOS], included
    written &= (greedy != 0)
    assert (replayed[written] == greedy[written]).all()


def test_beam_width_1_is_greedy_and_a_beam_keeps_its_best_first(data):
    from seqlab.tasks.translate.translation import translate

    model = build(data, attention="bahdanau")
    texts = ["1234", "52"]
    greedy = translate(model, data.tokenizer, data.target_tokenizer, texts)
    beam1 = translate(model, data.tokenizer, data.target_tokenizer, texts, width=1, all_beams=True)
    assert [g.text for g in greedy] == [b[0].text for b in beam1]
    beams = translate(model, data.tokenizer, data.target_tokenizer, texts, width=3, all_beams=True)
    for found in beams:
        assert 1 <= len(found) <= 3 and [b.score for b in found] == sorted((b.score for b in found), reverse=True)
    assert all(g.attention.shape == (len(g.probabilities), data.lookback) for g in greedy)
    for g in greedy:  # every step's weights: a distribution over the real source tokens only
        np.testing.assert_allclose(g.attention.sum(axis=1), 1.0, atol=1e-5)
        assert (g.attention[:, len(g.source):] == 0).all()
        assert np.log(g.probabilities).sum() == pytest.approx(g.log_prob, abs=1e-4)
    with pytest.raises(ValueError, match="source text is empty"):
        translate(model, data.tokenizer, data.target_tokenizer, ["  "])
    with pytest.raises(ValueError, match="beam width must be 1 to 16"):
        translate(model, data.tokenizer, data.target_tokenizer, ["12"], width=0)


def test_local_attention_returns_its_positions_and_local_m_reads_position_t(data):
    from seqlab.tasks.translate.translation import translate

    [found] = translate(build(data, attention="local", half_width=1), data.tokenizer, data.target_tokenizer,
                        ["12345"])
    np.testing.assert_array_equal(found.positions, np.arange(len(found.probabilities)))
    for t, row in enumerate(found.attention):  # zero outside [t - D, t + D]
        outside = np.abs(np.arange(len(row)) - t) > 1
        assert (row[outside] == 0).all()


def test_scheduled_sampling_feeds_its_own_tokens_in_training_only(data):
    import keras

    keras.utils.set_random_seed(1)
    forced, sampled = build(data, teacher_forcing=1.0), build(data, teacher_forcing=0.0)
    sampled.set_weights(forced.get_weights())
    batch = data.splits["train"].inputs_of(slice(0, 16))
    np.testing.assert_allclose(sampled(batch, training=False), forced(batch, training=False), atol=1e-6)
    assert not np.allclose(sampled(batch, training=True), forced(batch, training=True), atol=1e-4)


def test_a_saved_model_translates_the_same_and_its_savedmodel_serves_strings_without_seqlab(data, tmp_path):
    import keras

    from seqlab.models.registry import built_as
    from seqlab.tasks.translate.serving import BEAM_WIDTH, export_translator
    from seqlab.tasks.translate.translation import translate

    model = build(data, attention="luong", score="general", cell="lstm")
    path = tmp_path / "model.keras"
    model.save(path)
    texts = ["123", "98765", "4"]
    mine = [t.text for t in translate(model, data.tokenizer, data.target_tokenizer, texts)]
    beam = translate(model, data.tokenizer, data.target_tokenizer, texts, width=BEAM_WIDTH, length_penalty=0.6)
    loaded = built_as(keras.models.load_model(path), "seq2seq")  # as a run loads it
    assert [t.text for t in translate(loaded, data.tokenizer, data.target_tokenizer, texts)] == mine
    export_translator(model, data, tmp_path / "served")
    served = without_seqlab(f"""
import json
import tensorflow as tf
served = tf.saved_model.load({str(tmp_path / "served")!r})
texts = [t.decode() for t in served.translate(tf.constant({texts!r})).numpy()]
beam = served.translate_beam(tf.constant({texts!r}), tf.constant(0.6))
step = served.decode_step(tf.constant([2], tf.int32), served.encode(tf.zeros((1, {data.lookback}), tf.int32))["values"],
                          tf.ones((1, {data.lookback}), tf.bool), tf.constant(0), tf.zeros((1, 8)),
                          tf.zeros((1, 8)), tf.zeros((1, 8)))
print(json.dumps({{"texts": texts, "p": float(tf.reduce_sum(step["probabilities"])),
                  "beam": [t.decode() for t in beam["texts"].numpy()], "scores": beam["scores"].numpy().tolist()}}))
""", tmp_path)
    assert served["texts"] == mine and not served["seqlab"]
    assert served["beam"] == [t.text for t in beam]
    assert served["scores"] == pytest.approx([t.score for t in beam], abs=1e-5)
    assert served["p"] == pytest.approx(1.0, abs=1e-5)


def test_an_image_captioner_attends_over_rows_and_its_savedmodel_captions_images_without_seqlab(tmp_path):
    import keras

    from seqlab.data import load_dataset
    from seqlab.tasks.translate.serving import BEAM_WIDTH, export_translator
    from seqlab.tasks.translate.translation import translate_sources

    keras.utils.set_random_seed(0)
    captions = load_dataset("digit_names")
    model = build(captions, attention="bahdanau")
    images = captions.splits["test"].x[:3]
    rows = [[f"row{k}" for k in range(1, 9)]] * 3
    found = translate_sources(model, captions.target_tokenizer, images, rows)
    beam = translate_sources(model, captions.target_tokenizer, images, rows, width=BEAM_WIDTH)
    for caption in found:  # one weight per image row at every letter
        assert caption.attention.shape == (len(caption.probabilities), 8)
        np.testing.assert_allclose(caption.attention.sum(axis=1), 1.0, atol=1e-5)
    export_translator(model, captions, tmp_path / "served")
    np.save(tmp_path / "images.npy", images)
    served = without_seqlab(f"""
import json
import numpy as np
import tensorflow as tf
served = tf.saved_model.load({str(tmp_path / "served")!r})
images = tf.constant(np.load("images.npy"))
print(json.dumps({{"texts": [t.decode() for t in served.translate(images).numpy()],
                  "beam": [t.decode() for t in served.translate_beam(images, tf.constant(0.0))["texts"].numpy()]}}))
""", tmp_path)
    assert served["texts"] == [c.text for c in found] and not served["seqlab"]
    assert served["beam"] == [c.text for c in beam]
