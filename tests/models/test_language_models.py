"""The Markov chain and the neural language model as language architectures: train, score, generate, reload."""

import numpy as np
import pytest

from seqlab.data import load_dataset
from seqlab.tasks.language.generate import generate_text
from seqlab.models import list_architectures
from seqlab.runs import RunStore
from seqlab.tasks.language import MARKOV_ALPHA
from tests.language_run import TINY_TEXT


def train(root, model, **options):
    from seqlab.training import ExperimentSpec, run_experiment

    spec = ExperimentSpec("pydoc", model, data_options=TINY_TEXT, model_options=options, epochs=1, batch_size=32)
    return run_experiment(spec, store=RunStore(root))


@pytest.fixture(scope="module")
def data():
    return load_dataset("pydoc", **TINY_TEXT)


@pytest.fixture(scope="module")
def markov_run(tmp_path_factory):
    return train(tmp_path_factory.mktemp("runs"), "markov", order=2)


@pytest.fixture(scope="module")
def neural_run(tmp_path_factory):
    return train(tmp_path_factory.mktemp("runs"), "neural_lm", context=4, units=8)


@pytest.fixture(scope="module")
def hmm_run(tmp_path_factory):
    return train(tmp_path_factory.mktemp("runs"), "hmm", states=3, iterations=3)


def test_all_are_offered_for_language():
    names = {a.name for a in list_architectures("language")}
    assert {"markov", "hmm", "neural_lm"} <= names


def test_markov_counts_beats_the_unigram_and_matches_the_chain(markov_run, data):
    from seqlab.data.text_windows import split_ids
    from seqlab.layers.markov import MarkovChain

    model, baselines = markov_run.metrics["model"], markov_run.metrics["baselines"]
    assert model["cross_entropy"] <= baselines["unigram"]["cross_entropy"]
    best = min(v["cross_entropy"] for k, v in baselines.items() if k.startswith("markov"))
    assert model["cross_entropy"] >= best - 1e-6  # the baseline is the best order: never worse than order 2
    # The reloaded .keras is the chain counted on the whole training text.
    chain = MarkovChain(2, data.tokenizer.vocab_size, alpha=MARKOV_ALPHA).fit(split_ids(data, "train"))
    x = data.splits["test"].x
    reloaded = markov_run.load_model().predict(x, verbose=0)
    np.testing.assert_allclose(reloaded, np.exp(np.asarray(chain(x))), rtol=1e-5, atol=1e-7)


@pytest.mark.parametrize("run_name", ["markov_run", "neural_run", "hmm_run"])
def test_generates_text_from_a_prompt(run_name, request):
    run = request.getfixturevalue(run_name)
    out = generate_text(run, "The ", 12, temperature=0.0)
    assert len(out.tokens) == 12 and out.text == "".join(out.tokens)
    again = generate_text(run, "The ", 12, temperature=0.0)
    assert again.text == out.text  # greedy: the same continuation
    sampled = generate_text(run, "The ", 12, temperature=1.0, seed=3)
    assert len(sampled.generated.tokens) == 12 and all(0 < c.prob <= 1 for c in sampled.generated.choices)


@pytest.mark.parametrize("run_name", ["markov_run", "neural_run", "hmm_run"])
def test_savedmodel_generates_the_greedy_continuation(run_name, request):
    import tensorflow as tf

    run = request.getfixturevalue(run_name)
    served = tf.saved_model.load(str(run.savedmodel_path))
    [text] = served.generate(tf.constant(["The "]), tf.constant(8)).numpy()
    assert text.decode() == generate_text(run, "The ", 8, temperature=0.0).text  # 4 + 8 tokens fit in T = 16


def test_neural_lm_trains_reloads_and_reads_only_the_past(neural_run, data):
    model = neural_run.metrics["model"]
    assert np.isfinite(model["cross_entropy"]) and model["bits_per_character"] > 0
    assert neural_run.meta.epochs_run == 1
    reloaded = neural_run.load_model()
    x = data.splits["test"].x[:4]
    stored = np.load(neural_run.path / "predictions.npz")["p_true"][:4]
    p = reloaded.predict(x, verbose=0)
    y = data.splits["test"].y[:4]
    np.testing.assert_allclose(np.take_along_axis(p, y[..., None].astype("int64"), -1)[..., 0], stored, rtol=1e-4)
    # Position t reads ids up to t only: changing the last id leaves every earlier position alone.
    changed = x.copy()
    changed[:, -1] = (changed[:, -1] + 1) % data.tokenizer.vocab_size
    q = reloaded.predict(changed, verbose=0)
    np.testing.assert_allclose(q[:, :-1], p[:, :-1], rtol=1e-5)
    assert not np.allclose(q[:, -1], p[:, -1])


def test_hmm_predicts_from_its_forward_state_and_reloads(hmm_run, data):
    from seqlab.layers.markov import HMM

    model = hmm_run.metrics["model"]
    assert model["cross_entropy"] < np.log(data.tokenizer.vocab_size)  # EM learned more than uniform
    reloaded = hmm_run.load_model()
    hmm = reloaded.get_layer("hmm_next_token").hmm
    x = data.splits["test"].x[:3]
    p = reloaded.predict(x, verbose=0)
    np.testing.assert_allclose(p.sum(-1), 1.0, rtol=1e-5)
    # The last position's distribution is the HMM's own next-token step over the whole window.
    log_probs, _ = hmm.next_fn()(x, None)
    np.testing.assert_allclose(p[:, -1], np.exp(log_probs), rtol=1e-4, atol=1e-7)
    # The log-likelihood of a window is the sum of its next-token log-probabilities (x_1 from the prior).
    fresh = HMM(hmm.states, hmm.vocab_size)
    fresh.set_parameters(hmm.pi, hmm.A, hmm.B)
    y = data.splits["test"].y[:3].astype("int64")
    chained = np.log(np.take_along_axis(p, y[..., None], -1)[..., 0]).sum(-1)
    whole = np.asarray(fresh(np.concatenate([x[:, :1], y], axis=1)))
    first = np.log(fresh.pi @ fresh.B[:, x[:, 0]])
    np.testing.assert_allclose(chained, whole - first, rtol=1e-4)


def test_cli_train_says_when_the_vocabulary_is_capped_at_what_the_text_holds(runs_dir, capsys):
    from seqlab.cli import main

    argv = ["train", "--dataset", "pydoc", "--model", "markov", "--set", "tokenizer=word", "--set", "vocab_size=5000",
            "--set", "characters=3000", "--set", "lookback=16", "--set", "order=1"]
    assert main(argv) == 0
    assert "note: vocab_size 5,000 asked, but the training text has only" in capsys.readouterr().err
