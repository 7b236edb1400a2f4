"""The encoder-decoder Transformer: it trains, its cached steps equal its teacher-forced call, greedy and beam search
run through the shared decoder protocol, the attention map is the last block's cross-attention over the real source
tokens, a saved model translates the same and its SavedModel serves strings in a fresh process without seqlab."""

import numpy as np
import pytest

from tests.compiled import compiled
from tests.fresh_process import without_seqlab

OPTIONS = {"transform": "reverse", "samples": 300, "min_length": 2, "max_length": 5}
SMALL = {"layers": 1, "heads": 2, "width": 16, "ff_units": 32}


@pytest.fixture(scope="module")
def data():
    from seqlab.data import load_dataset

    return load_dataset("toy_pairs", **OPTIONS)


def build(data, **options):
    from seqlab.models import build_model

    return build_model("transformer_seq2seq", data, {**SMALL, **options})


@pytest.fixture(scope="module")
def trained(data):
    """A model trained a few epochs, and its validation loss before and after."""
    import keras

    keras.utils.set_random_seed(0)
    model = build(data)
    compiled(model, keras.optimizers.Adam(0.01), "sparse_categorical_crossentropy")
    val = data.splits["val"]
    before = model.evaluate(val.inputs, val.y, verbose=0)
    model.fit(data.splits["train"].inputs, data.splits["train"].y, epochs=4, batch_size=32, verbose=0)
    return model, before, model.evaluate(val.inputs, val.y, verbose=0)


def test_it_trains_on_toy_pairs_and_gives_a_distribution_per_step(data, trained):
    model, before, after = trained
    assert after < before - 0.3
    probabilities = model.predict(data.splits["val"].inputs, verbose=0)
    assert probabilities.shape == (len(data.splits["val"]), data.horizon, data.target_tokenizer.vocab_size)
    np.testing.assert_allclose(probabilities.sum(axis=-1), 1.0, atol=1e-5)


@pytest.mark.parametrize("options", [
    {},
    {"norm": "pre", "positions": "learned", "layers": 2},
    {"multi_head": "full", "positions": "none"},
], ids=["post-sinusoidal", "pre-learned-2", "full-none"])
def test_cached_steps_equal_the_teacher_forced_call_at_every_position(data, options):
    import keras

    from seqlab.models.registry import steps_of

    keras.utils.set_random_seed(2)
    model = build(data, **options)
    val = data.splits["val"]
    x, target_in = val.x[:6], val.inputs[1][:6]
    full = model.predict([x, target_in], verbose=0)
    steps = steps_of(model)
    state = steps.start(x)
    for t in range(data.horizon):  # the true previous token at every step: teacher forcing, one token at a time
        p, state = steps.next(target_in[:, t], state, t)
        np.testing.assert_allclose(keras.ops.convert_to_numpy(p), full[:, t], atol=1e-5)


def test_greedy_is_the_argmax_of_the_full_call_fed_its_own_output(data, trained):
    from seqlab.data.text_pairs import EOS_ID, START_ID, shift_right
    from seqlab.tasks.translate.translation import greedy_targets

    model, _, _ = trained
    x = data.splits["val"].x
    greedy = greedy_targets(model, x, START_ID, EOS_ID, data.horizon)
    replayed = model.predict([x, shift_right(greedy)], verbose=0).argmax(axis=-1)
    written = (np.cumsum(greedy == EOS_ID, axis=1) - (greedy == EOS_ID) == 0) & (greedy != 0)
    assert written[:, 0].all() and (replayed[written] == greedy[written]).all()


def test_beam_width_1_is_greedy_and_the_attention_map_reads_the_real_source_tokens(data, trained):
    from seqlab.tasks.translate.translation import translate

    model, _, _ = trained
    texts = ["1234", "52", "98765"]
    greedy = translate(model, data.tokenizer, data.target_tokenizer, texts)
    beam1 = translate(model, data.tokenizer, data.target_tokenizer, texts, width=1, all_beams=True)
    assert [g.text for g in greedy] == [b[0].text for b in beam1]
    beams = translate(model, data.tokenizer, data.target_tokenizer, texts, width=3, all_beams=True)
    for found in beams:
        assert [b.score for b in found] == sorted((b.score for b in found), reverse=True)
    for g in greedy:  # the last block's cross-attention, averaged over heads: a distribution over the real tokens
        assert g.attention.shape == (len(g.probabilities), data.lookback) and g.positions is None
        np.testing.assert_allclose(g.attention.sum(axis=1), 1.0, atol=1e-5)
        assert (g.attention[:, len(g.source):] == 0).all() and (g.attention[:, : len(g.source)] > 0).all()
        assert np.log(g.probabilities).sum() == pytest.approx(g.log_prob, abs=1e-4)


def test_free_running_loss_equals_decoding_by_full_calls_without_a_cache(data, trained):
    from seqlab.data.text_pairs import START_ID
    from seqlab.tasks.translate.translation import free_running_loss

    model, _, _ = trained
    x, y = data.splits["val"].x[:40], data.splits["val"].y[:40]
    target_in = np.zeros_like(y)
    target_in[:, 0] = START_ID
    for t in range(data.horizon):  # the whole prefix again at every step; later slots are never read (causal)
        p = model.predict([x, target_in], verbose=0)
        if t + 1 < data.horizon:
            target_in[:, t + 1] = p[:, t].argmax(axis=-1)
    real = y != 0
    expected = -np.log(np.take_along_axis(p, y[..., None], axis=-1)[..., 0][real]).mean()
    assert free_running_loss(model, x, y, START_ID) == pytest.approx(expected, rel=1e-4)


def test_a_saved_model_translates_the_same_and_its_savedmodel_serves_strings_without_seqlab(data, trained,
                                                                                            tmp_path):
    import keras

    from seqlab.models.registry import built_as
    from seqlab.tasks.translate.serving import BEAM_WIDTH, export_translator
    from seqlab.tasks.translate.translation import translate

    model, _, _ = trained
    texts = ["123", "98765", "4", "5521"]
    mine = [t.text for t in translate(model, data.tokenizer, data.target_tokenizer, texts)]
    beam = translate(model, data.tokenizer, data.target_tokenizer, texts, width=BEAM_WIDTH, length_penalty=0.6)
    model.save(tmp_path / "model.keras")
    loaded = built_as(keras.models.load_model(tmp_path / "model.keras"), "transformer_seq2seq")  # as a run loads it
    assert [t.text for t in translate(loaded, data.tokenizer, data.target_tokenizer, texts)] == mine
    export_translator(model, data, tmp_path / "served")
    served = without_seqlab(f"""
import json
import tensorflow as tf
served = tf.saved_model.load({str(tmp_path / "served")!r})
texts = [t.decode() for t in served.translate(tf.constant({texts!r})).numpy()]
state = served.encode(tf.constant([[1, 2, 0, 0, 0]], tf.int32))  # values, source_mask and the empty caches
carried = {{k: v for k, v in state.items() if k.startswith(("key_", "value_"))}}
step = served.decode_step(tf.constant([2], tf.int32), state["values"], state["source_mask"], tf.constant(0),
                          *[carried[k] for k in ("key_0", "value_0")])
beam = served.translate_beam(tf.constant({texts!r}), tf.constant(0.6))["texts"]
print(json.dumps({{"texts": texts, "p": float(tf.reduce_sum(step["probabilities"])),
                  "written": float(tf.reduce_sum(tf.abs(step["key_0"][:, :, 0]))),
                  "empty": float(tf.reduce_sum(tf.abs(step["key_0"][:, :, 1:]))),
                  "beam": [t.decode() for t in beam.numpy()]}}))
""", tmp_path)
    assert served["texts"] == mine and not served["seqlab"]
    assert served["beam"] == [t.text for t in beam]  # the caches' rows reordered with the beams, in the graph
    assert served["p"] == pytest.approx(1.0, abs=1e-5)
    assert served["written"] > 0 and served["empty"] == 0  # step 0's keys went into cache slot 0 only


def test_an_image_captioner_reads_rows_of_numbers(tmp_path):
    import keras

    from seqlab.data import load_dataset
    from seqlab.tasks.translate.translation import translate_sources

    keras.utils.set_random_seed(0)
    captions = load_dataset("digit_names")
    model = build(captions)
    images = captions.splits["test"].x[:2]
    found = translate_sources(model, captions.target_tokenizer, images, [[f"row{k}" for k in range(1, 9)]] * 2)
    for caption in found:  # every image row is a real step
        assert caption.attention.shape == (len(caption.probabilities), 8)
        np.testing.assert_allclose(caption.attention.sum(axis=1), 1.0, atol=1e-5)


def test_decoding_refuses_a_model_of_no_architecture():
    import keras

    from seqlab.tasks.translate.translation import decode_ids

    model = keras.Sequential([keras.Input((3,)), keras.layers.Dense(2, name="decoder")], name="plain")
    with pytest.raises(ValueError, match="was not built by a seqlab architecture"):
        decode_ids(model, np.zeros((1, 3)), start_id=1, eos_id=2, max_tokens=3)


def test_split_heads_must_divide_the_width(data):
    with pytest.raises(ValueError, match="does not split into 3 heads"):
        build(data, heads=3, width=16)
