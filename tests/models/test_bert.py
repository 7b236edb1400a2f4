"""BERT: segments from [SEP], both heads in one output, dynamic masking in training, fine-tuning from a run."""

import keras
import numpy as np
import pytest

from seqlab.data import load_dataset
from seqlab.data.bert_pretraining import CLS_ID, MASK_ID, SEP_ID
from seqlab.models import build_model
from seqlab.models.bert_layers import BertSentence, NextSentenceAtCLS, SegmentIds, chosen_positions
from seqlab.runs import RunStore
from seqlab.training import ExperimentSpec, run_experiment
from tests.bert_run import CONTEXT, TINY_BERT, bert_world, pretrained_run  # noqa: F401  the module's fixture
from tests.compiled import compiled


def test_segments_read_from_the_first_sep():
    ids = np.array([[CLS_ID, 7, SEP_ID, 8, 9, SEP_ID, 0], [CLS_ID, 7, 8, SEP_ID, 0, 0, 0]])
    assert keras.ops.convert_to_numpy(SegmentIds(SEP_ID)(ids)).tolist() == [[0, 0, 0, 1, 1, 1, 1],
                                                                              [0, 0, 0, 0, 1, 1, 1]]


def test_sentence_in_bert_form():
    layer = BertSentence(source_size=5, cls_id=2, sep_id=3)
    layer.build((None, 4))
    layer.id_map.assign(np.array([0, 1, 9, 8, 7], "int32"))
    out = keras.ops.convert_to_numpy(layer(np.array([[2, 3, 4, 0], [4, 0, 0, 0], [2, 3, 4, 1]])))
    assert out.tolist() == [[2, 9, 8, 7, 3, 0], [2, 7, 3, 0, 0, 0], [2, 9, 8, 7, 1, 3]]


def test_next_sentence_at_cls():
    mlm = np.full((2, 3, 4), 0.25, "float32")
    nsp = np.array([[0.3, 0.7], [0.9, 0.1]], "float32")
    out = keras.ops.convert_to_numpy(NextSentenceAtCLS()([mlm, nsp]))
    assert np.allclose(out[:, 0], [[0.3, 0.7, 0, 0], [0.9, 0.1, 0, 0]]) and np.allclose(out[:, 1:], 0.25)


def test_pretraining_run(bert_world):
    run = pretrained_run(bert_world)
    history = run.history
    assert {"mlm_loss", "nsp_loss", "val_mlm_loss"} <= set(history["epoch"][0]), history["epoch"][0].keys()
    scores = run.metrics["model"]
    assert set(scores) == {"mlm_accuracy", "mlm_top5_accuracy", "nsp_accuracy"}
    assert 0 <= scores["mlm_top5_accuracy"] <= 1 and "unigram_and_majority" in run.metrics["baselines"]
    model = run.load_model()  # the .keras file loads with its seqlab classes
    x = load_dataset("movie_reviews_mlm", max_tokens=CONTEXT).splits["test"].x[:4]
    p = np.asarray(model(x))
    assert p.shape[1:] == (CONTEXT, run.load_tokenizer().vocab_size)
    assert np.allclose(p[:, 0, :2].sum(axis=1), 1) and np.allclose(p[:, 0, 2:], 0), "NSP at [CLS]"
    assert np.allclose(p[:, 1:].sum(axis=-1), 1, atol=1e-4)


def test_training_pairs_and_masks_every_batch_anew(bert_world):
    data = load_dataset("movie_reviews_mlm", max_tokens=CONTEXT)
    model = build_model("bert", data, TINY_BERT)
    compiled(model, "adam", "sparse_categorical_crossentropy")
    before = keras.ops.convert_to_numpy(model.masking_seed.state).copy()
    train = data.splits["train"]
    assert MASK_ID not in train.x
    model.fit(train.x, train.y, batch_size=32, epochs=1, verbose=0)
    assert (keras.ops.convert_to_numpy(model.masking_seed.state) != before).any(), "a new draw per batch"
    batches = [[keras.ops.convert_to_numpy(t) for t in model.fresh_batch(train.x[:64], train.y[:64], None)[:2]]
               for _ in range(2)]
    labels = [y[:, 0] for _, y in batches]
    assert set(labels[0]) == {0, 1} and (labels[0] != labels[1]).any(), "next-sentence pairs drawn anew"
    assert all((x == MASK_ID).any() for x, _ in batches)


def test_the_training_loss_reads_the_chosen_positions_only_and_equals_the_full_one(bert_world):
    data = load_dataset("movie_reviews_mlm", max_tokens=CONTEXT)
    model = build_model("bert", data, {**TINY_BERT, "dropout": 0.0})
    train = data.splits["train"]
    x, y, _ = model.fresh_batch(train.x[:32], train.y[:32], None)
    h, nsp = model(x, training=True)  # training stops before the vocabulary's softmax
    assert tuple(h.shape) == (32, CONTEXT, TINY_BERT["width"]) and tuple(nsp.shape) == (32, 2)
    sparse = float(model.compute_loss(x, y, (h, nsp)))
    dense = float(model.compute_loss(x, y, model(x, training=False)))
    assert np.isclose(sparse, dense, rtol=1e-5), (sparse, dense)


def test_chosen_positions_come_first_within_the_budget():
    h = np.arange(2 * 10 * 3, dtype="float32").reshape(2, 10, 3)
    y = np.arange(20, dtype="int32").reshape(2, 10)
    chosen = np.zeros((2, 10), bool)
    chosen[0, 4] = chosen[1, 7] = True
    words, targets, weights = (keras.ops.convert_to_numpy(t) for t in chosen_positions(h, y, chosen))
    assert len(targets) == 4, "one position in 5 of the batch"
    assert sorted(targets[weights == 1].tolist()) == [4, 17] and weights.sum() == 2
    assert np.array_equal(words[weights == 1][np.argsort(targets[weights == 1])], [h[0, 4], h[1, 7]])
    weights = keras.ops.convert_to_numpy(chosen_positions(h, y, np.ones((2, 10), bool))[2])
    assert weights.tolist() == [1, 1, 1, 1], "more chosen than the budget: the loss reads the first 4"


def test_fine_tuning_starts_from_the_pretrained_encoder(bert_world):
    run = pretrained_run(bert_world)
    data = load_dataset("movie_sentiment", max_tokens=CONTEXT - 2)
    store = RunStore(run.path.parent)
    model = build_model("bert", data, {"pretrained": run.run_id, "layers": 3, "width": 8}, runs=store)
    trained = run.load_model()
    for name in ("embedding", "segment_embedding", "positions", "embedding_norm", "encoder_1", "pooler"):
        for ours, theirs in zip(model.get_layer(name).get_weights(), trained.get_layer(name).get_weights()):
            np.testing.assert_array_equal(ours, theirs)
    assert "encoder_2" not in [layer.name for layer in model.layers], "the sizes are the pre-trained run's"
    mapping = keras.ops.convert_to_numpy(model.get_layer("sentence").id_map)
    pre_vocab, own_vocab = run.load_tokenizer().vocab, data.tokenizer.vocab
    assert all(pre_vocab[mapping[i]] == word for i, word in enumerate(own_vocab) if word in pre_vocab[5:])
    probabilities = np.asarray(model(data.splits["test"].x[:3]))
    assert probabilities.shape == (3, 2)

    with pytest.raises(ValueError, match="set its max_tokens to 14 or fewer"):
        build_model("bert", load_dataset("movie_sentiment", max_tokens=CONTEXT), {"pretrained": run.run_id}, runs=store)
    with pytest.raises(ValueError, match="set the dataset's tokenizer"):
        build_model("bert", load_dataset("movie_sentiment", max_tokens=8, tokenizer="char"),
                    {"pretrained": run.run_id}, runs=store)


def test_fine_tuning_reads_the_pretrained_run_from_the_store_it_trains_into(bert_world, tmp_path):
    patch, run = bert_world
    patch.setenv("SEQLAB_RUNS_DIR", str(tmp_path / "elsewhere"))  # the default store holds no such run
    spec = ExperimentSpec("movie_sentiment", "bert", {"max_tokens": CONTEXT - 2}, {"pretrained": run.run_id},
                          epochs=1, batch_size=64)
    tuned = run_experiment(spec, store=RunStore(run.path.parent), savedmodel=False)
    embedding = run.load_model().get_layer("embedding").get_weights()[0]
    assert tuned.spec["model_options"]["pretrained"] == run.run_id
    assert tuned.load_model().get_layer("embedding").get_weights()[0].shape == embedding.shape
    with pytest.raises(ValueError, match="no run store was given"):
        build_model("bert", load_dataset("movie_sentiment", max_tokens=CONTEXT - 2), {"pretrained": run.run_id})


def test_from_scratch_classifier_trains_and_reloads(bert_world):
    store = RunStore(pretrained_run(bert_world).path.parent)
    spec = ExperimentSpec("movie_sentiment", "bert", {"max_tokens": 12}, TINY_BERT, epochs=1, batch_size=32)
    run = run_experiment(spec, store=store, savedmodel=False)
    x = load_dataset("movie_sentiment", max_tokens=12).splits["test"].x[:3]
    assert np.allclose(np.asarray(run.load_model()(x)).sum(axis=1), 1)
    assert 0 <= run.metrics["model"]["accuracy"] <= 1


def padding_is_ignored(model, x: np.ndarray) -> bool:
    """Whether ``model(x)`` stays the same when the [PAD] embedding changes (masked attention never reads it)."""
    before = np.asarray(model(x, training=False))
    table = model.get_layer("embedding").embeddings
    changed = keras.ops.convert_to_numpy(table).copy()
    changed[0] = np.random.default_rng(0).normal(0, 5, changed.shape[1])
    table.assign(changed)
    after = np.asarray(model(x, training=False))
    if before.ndim == 3:  # the masked LM: a distribution per position; the padding's own are not read
        before, after = before[x != 0], after[x != 0]
    return np.allclose(before, after, atol=1e-5)


def test_the_encoder_never_reads_the_padding(bert_world):
    data = load_dataset("movie_sentiment", max_tokens=CONTEXT - 2)
    x = data.splits["test"].x[:4]
    assert (x == 0).any(axis=1).all(), "every test sentence here is padded"
    for pooling in ("cls", "mean"):
        model = build_model("bert", data, {**TINY_BERT, "pooling": pooling, "dropout": 0.0})
        assert padding_is_ignored(model, x), pooling
    pretraining = pretrained_run(bert_world).load_model()
    pairs = load_dataset("movie_reviews_mlm", max_tokens=CONTEXT).splits["test"].x[:4]
    assert padding_is_ignored(pretraining, pairs)


def test_mean_pooling_reads_the_pretrained_encoder_without_its_pooler(bert_world):
    run = pretrained_run(bert_world)
    data = load_dataset("movie_sentiment", max_tokens=CONTEXT - 2)
    model = build_model("bert", data, {"pretrained": run.run_id, "pooling": "mean"},
                        runs=RunStore(run.path.parent))
    names = [layer.name for layer in model.layers]
    assert "mean_over_tokens" in names and "pooler" not in names
    trained = run.load_model().get_layer("encoder_1").get_weights()
    for ours, theirs in zip(model.get_layer("encoder_1").get_weights(), trained):
        np.testing.assert_array_equal(ours, theirs)
    with pytest.raises(ValueError, match="leave it at cls"):
        build_model("bert", load_dataset("movie_reviews_mlm", max_tokens=CONTEXT), {"pooling": "mean"})
    with pytest.raises(ValueError, match="pooling"):
        build_model("bert", data, {"pooling": "max"})
