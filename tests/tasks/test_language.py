import json
import math

import numpy as np
import pytest

from seqlab.data import load_dataset
from seqlab.manifest import inconsistency
from seqlab.models import build_model
from seqlab.tasks import get_task
from seqlab.tasks.language import unigram
from seqlab.tasks.text_inputs import TOKENIZER_FILE
from seqlab.text import Tokenizer
from tests.language_run import TINY_TEXT, train_language_run


@pytest.fixture(scope="module")
def tiny():
    return load_dataset("pydoc", **TINY_TEXT)


def test_metrics_and_the_unigram_baseline_on_known_probabilities(tiny):
    task = get_task("language")
    test, vocab = tiny.splits["test"], tiny.tokenizer.vocab_size
    p = np.full((*test.y.shape, vocab), 0.5 / (vocab - 1))
    np.put_along_axis(p, test.y[..., None].astype(int), 0.5, axis=-1)  # the true token at 0.5
    metrics = task.evaluate(tiny, p).metrics
    model = metrics["model"]
    assert model["cross_entropy"] == pytest.approx(math.log(2))
    assert model["perplexity"] == pytest.approx(2.0) and model["bits_per_character"] == pytest.approx(1.0)
    prior = unigram(tiny.splits["train"].y, vocab)
    assert prior.sum() == pytest.approx(1.0) and prior.min() > 0  # add-one: no token impossible
    expected = -np.mean(np.log(prior[test.y]))
    assert metrics["baselines"]["unigram"]["cross_entropy"] == pytest.approx(expected)
    assert [m.key for m in task.test_metrics][:3] == ["bits_per_character", "cross_entropy", "perplexity"]


def test_bits_per_character_only_for_character_tokens():
    word = load_dataset("pydoc", **{**TINY_TEXT, "tokenizer": "word", "vocab_size": 60, "lookback": 4, "stride": 4})
    p = np.full((*word.splits["test"].y.shape, word.tokenizer.vocab_size), 1 / word.tokenizer.vocab_size)
    model = get_task("language").evaluate(word, p).metrics["model"]
    assert "bits_per_character" not in model and model["perplexity"] == pytest.approx(word.tokenizer.vocab_size)


def test_model_reads_ids_and_predicts_every_position(tiny):
    model = build_model("gru", tiny, {"units": 8})
    assert model.inputs[0].dtype == "int32" and tuple(model.inputs[0].shape) == (None, 16)
    assert tuple(model.outputs[0].shape) == (None, 16, tiny.tokenizer.vocab_size)
    assert model.get_layer("embedding").output_dim == 8
    with pytest.raises(ValueError, match="cannot be bidirectional"):
        build_model("lstm", tiny, {"units": 8, "bidirectional": True})


def test_a_run_keeps_its_tokeniser_signed_and_restorable(tmp_path, tiny):
    run = train_language_run(tmp_path)
    assert run.meta.assets == [TOKENIZER_FILE] and run.meta.inputs[0]["dtype"] == "int32"
    saved = json.loads((run.path / TOKENIZER_FILE).read_text())
    assert saved["kind"] == "char" and saved["vocab"] == tiny.tokenizer.vocab  # plain, readable JSON
    restored = get_task("language").load_assets(run.path)["tokenizer"]
    assert isinstance(restored, Tokenizer) and restored.encode("def f") == tiny.tokenizer.encode("def f")
    assert {"bits_per_character", "perplexity"} <= set(run.metrics["model"]) and "unigram" in run.metrics["baselines"]
    assert inconsistency(run.path) is None
    (run.path / TOKENIZER_FILE).write_text(json.dumps({**saved, "vocab": saved["vocab"][::-1]}))
    assert inconsistency(run.path) is not None  # an edited tokeniser breaks the signature


def test_the_best_markov_chain_reads_the_context_the_unigram_cannot():
    from seqlab.data.corpora import Corpus
    from seqlab.data.text_windows import TEXT_DEFAULTS, text_data

    data = text_data("toy", Corpus("abcd" * 300, "toy", "test", "public domain"),
                     **{**TEXT_DEFAULTS, "lookback": 8, "stride": 8})
    test = data.splits["test"]
    evaluation = get_task("language").evaluate(data, np.full((*test.y.shape, 6), 1 / 6))
    baselines = evaluation.metrics["baselines"]
    markov = next(name for name in baselines if name.startswith("markov_order_"))
    assert baselines[markov]["accuracy"] == 1.0 and baselines[markov]["cross_entropy"] < 0.05
    assert baselines["unigram"]["cross_entropy"] == pytest.approx(math.log(4), abs=0.01)
    assert evaluation.predictions[f"baseline_{markov}"].shape == test.y.shape


def test_the_markov_baseline_scores_fewer_windows_at_once_for_a_large_vocabulary():
    """(b, T, V) log-probabilities at once stay near MARKOV_CELLS: with V = 10**6, one window at a time."""
    from seqlab.tasks.language import MARKOV_CELLS, markov_predictions

    class Chain:  # answers like a MarkovChain of a large vocabulary, keeping only 4 tokens' columns
        vocab_size = 10**6
        rows = []

        def __call__(self, x):
            self.rows.append(len(x))
            return np.log(np.full((len(x), x.shape[1], 4), 0.25))

    x = y = np.zeros((5, 16), dtype="int64")
    p_true, choices = markov_predictions(Chain(), x, y)
    assert Chain.rows == [1] * 5 and MARKOV_CELLS // (16 * 10**6) == 0
    np.testing.assert_allclose(p_true, 0.25)
    assert choices.shape == (5, 16)
