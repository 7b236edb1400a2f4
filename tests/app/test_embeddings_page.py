"""Embeddings page: a run's token embeddings in 2-D and 3-D, the point cap, cosine neighbours; advice otherwise."""

import json
import shutil
from pathlib import Path

import numpy as np
import pytest
from streamlit.testing.v1 import AppTest

from seqlab.inspect import pca
from tests.app.conftest import figure_array, texts


@pytest.fixture(scope="module")
def language_runs(tmp_path_factory):
    """A tiny LSTM (keras Embedding), a neural LM (its own) and a Markov chain (none) on pydoc, trained once."""
    from seqlab.runs import RunStore
    from seqlab.training import ExperimentSpec, run_experiment
    from tests.language_run import TINY_TEXT, train_language_run

    root = tmp_path_factory.mktemp("embedding_runs")
    lstm = train_language_run(root, "lstm")
    markov = run_experiment(ExperimentSpec("pydoc", "markov", data_options=TINY_TEXT, model_options={"order": 2}),
                            store=RunStore(root), savedmodel=False)  # fmt: skip
    neural = run_experiment(ExperimentSpec("pydoc", "neural_lm", data_options=TINY_TEXT,
                                           model_options={"context": 3,
                                                          "units": 8}), store=RunStore(root), savedmodel=False)
    return root, lstm, markov, neural


@pytest.fixture
def open_embeddings(open_page, monkeypatch):
    """The Embeddings page over the run store ``root``."""

    def _open(root: Path) -> AppTest:
        monkeypatch.setenv("SEQLAB_RUNS_DIR", str(root))
        return open_page("pages/embeddings.py")

    return _open


def figure(at: AppTest) -> dict:
    [chart] = at.get("plotly_chart")
    return json.loads(chart.proto.spec)


def test_without_an_embedding_the_page_says_which_runs_have_one(tmp_path, open_embeddings, language_runs):
    markov = language_runs[2]
    at = open_embeddings(tmp_path / "empty")
    assert not at.exception and not at.error
    assert "No run with an embedding" in texts(at.markdown) and "--dataset pydoc --model lstm" in texts(at.markdown)

    only_markov = tmp_path / "markov_only"
    shutil.copytree(markov.path, only_markov / markov.run_id)
    at = open_embeddings(only_markov)
    assert not at.exception and not at.error
    assert "None of the 1 saved run(s) has an embedding layer (models: Markov chain" in texts(at.markdown)


def test_projection_neighbours_and_cap(open_embeddings, language_runs):
    root, lstm, markov, neural = language_runs
    at = open_embeddings(root)
    assert not at.exception and not at.error
    assert len(at.selectbox(key="embeddings.run").options) == 2  # the Markov chain has no embedding
    at.selectbox(key="embeddings.run").set_value(lstm.run_id).run()
    assert "1 other run(s) have no embedding (Markov chain" in texts(at.caption)

    matrix = lstm.load_model().get_layer("embedding").get_weights()[0]  # (V, r): row i is token i's a_i
    fig = figure(at)
    traces = {t["name"]: t for t in fig["data"]}
    assert set(traces) == {"tokens", "nearest by cosine", "chosen token"}
    assert sum(len(figure_array(t["x"])) for t in fig["data"]) == len(matrix)  # the char vocabulary is under the cap
    assert fig["layout"]["xaxis"]["title"]["text"].startswith("PC1 (")
    assert "% of variance" in fig["layout"]["yaxis"]["title"]["text"]
    assert {t["type"] for t in fig["data"]} == {"scatter"}

    # The neighbours table: the token itself first with cosine 1, then falling cosines; k + 1 rows.
    chosen = int(at.selectbox(key=f"embeddings.token.{lstm.run_id}").value)
    table = at.dataframe[0].value
    assert len(table) == 11 and table["id"].iloc[0] == chosen and table["count"].iloc[0] > 0
    assert table["cosine"].iloc[0] == 1.0 and table["cosine"].is_monotonic_decreasing
    unit = matrix / np.linalg.norm(matrix, axis=1, keepdims=True)
    np.testing.assert_allclose(table["cosine"], unit[table["id"]] @ unit[chosen], rtol=1e-5)
    assert len(figure_array(traces["nearest by cosine"]["x"])) == 10
    point = pca(matrix, components=3).points[chosen, :2]  # the chosen token where the PCA of all rows puts it
    drawn = [figure_array(traces["chosen token"][axis])[0] for axis in "xy"]
    np.testing.assert_allclose(drawn, point, rtol=1e-4)
    assert any(r"\cos(\mathbf{a}_i, \mathbf{a}_j)" in e.value for e in at.get("latex"))

    # A cap of 5: the 5 most frequent tokens, plus the neighbours of the chosen token beyond them.
    at.number_input(key=f"embeddings.cap.{lstm.run_id}").set_value(5).run()
    assert not at.exception and not at.error
    plotted = sum(len(figure_array(t["x"])) for t in figure(at)["data"])
    assert 5 < plotted <= 5 + 11 and "beyond the cap are added" in texts(at.caption)

    at.number_input(key="embeddings.k").set_value(3).run()
    at.radio(key="embeddings.dims").set_value(3).run()
    assert not at.exception and not at.error
    fig = figure(at)
    assert {t["type"] for t in fig["data"]} == {"scatter3d"}
    assert fig["layout"]["scene"]["zaxis"]["title"]["text"].startswith("PC3 (")
    assert len(at.dataframe[0].value) == 4


def test_the_neural_language_models_own_embedding(open_embeddings, language_runs):
    root, neural = language_runs[0], language_runs[3]
    at = open_embeddings(root)
    at.selectbox(key="embeddings.run").set_value(neural.run_id).run()
    assert not at.exception and not at.error
    assert "`NeuralLanguageModel`" in texts(at.markdown)
    layer = neural.load_model().get_layer("next_token").layer
    unit = layer.embedding_matrix / np.linalg.norm(layer.embedding_matrix, axis=1, keepdims=True)
    table = at.dataframe[0].value
    np.testing.assert_allclose(table["cosine"], unit[table["id"]] @ unit[table["id"].iloc[0]], rtol=1e-5)


def test_a_translation_runs_decoder_embedding_reads_the_target_tokens(tmp_path, open_embeddings):
    from seqlab.runs import RunStore
    from seqlab.training import ExperimentSpec, run_experiment

    spec = ExperimentSpec("toy_pairs", "transformer_seq2seq", data_options={"samples": 60, "max_length": 4},
                          model_options={"layers": 1, "heads": 2, "width": 8, "ff_units": 8}, epochs=1)
    run = run_experiment(spec, store=RunStore(tmp_path), savedmodel=False)
    at = open_embeddings(tmp_path)
    assert not at.exception and not at.error
    layer = at.selectbox(key=f"embeddings.layer.{run.run_id}")
    assert [name.rsplit(" / ", 1)[-1] for name in layer.options] == ["source_embedding", "target_embedding"]
    assert "[EOS]" not in " ".join(at.selectbox(key=f"embeddings.token.{run.run_id}").options)  # the source's
    layer.set_value(layer.options[1]).run()
    assert not at.exception and not at.error
    # The decoder's rows are the target tokeniser's ids: [START] and [EOS] among them, counted in the targets.
    assert "[EOS]" in " ".join(at.selectbox(key=f"embeddings.token.{run.run_id}").options)
    assert "Most frequent tokens of the training target sentences first." in texts(at.caption)
