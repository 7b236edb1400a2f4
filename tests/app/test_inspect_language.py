"""Inspect for language runs: text in, tokens on the time axis; an HMM's path, posteriors, A and B."""

import shutil

import numpy as np
import pytest

from tests.app.conftest import figure_array, figures, texts

PAGE = "pages/inspect.py"


@pytest.fixture(scope="module")
def language_runs(tmp_path_factory):
    """Tiny pydoc runs (char tokens, windows of 16): an LSTM, an HMM and a Markov chain, trained once."""
    from seqlab.runs import RunStore
    from seqlab.training import ExperimentSpec, run_experiment
    from tests.language_run import TINY_TEXT, train_language_run

    root = tmp_path_factory.mktemp("inspect_language_runs")
    store = RunStore(root)
    lstm = train_language_run(root, "lstm")
    hmm = run_experiment(ExperimentSpec("pydoc", "hmm", TINY_TEXT, {"states": 3, "iterations": 2}, epochs=1),
                         store=store, savedmodel=False)
    markov = run_experiment(ExperimentSpec("pydoc", "markov", TINY_TEXT, {"order": 2}, epochs=1), store=store,
                            savedmodel=False)
    return {"lstm": lstm, "hmm": hmm, "markov": markov}


def open_run(open_page, runs_dir, run, *others):
    runs_dir.mkdir(parents=True, exist_ok=True)
    for r in (run, *others):
        shutil.copytree(r.path, runs_dir / r.run_id)
    at = open_page(PAGE)
    at.selectbox(key="inspect.run").set_value(run.run_id).run()
    return at


def text_box(at, run):
    sample = at.session_state[f"inspect.sample.{run.run_id}"]
    return at.text_area(key=f"inspect.edit.{run.run_id}.{sample}")


def test_lstm_language_run_traces_text(open_page, runs_dir, language_runs):
    lstm = language_runs["lstm"]
    at = open_run(open_page, runs_dir, lstm, language_runs["hmm"])
    assert not at.exception and not at.error
    from seqlab.tasks.language.generate import run_tokenizer
    from seqlab.plots.generated import shown_token

    tokenizer = run_tokenizer(lstm)
    box = text_box(at, lstm)
    assert box.value and tokenizer.encode(box.value)  # a held-out window, decoded
    shown = figures(at)
    state = next(f for t, f in shown.items() if t.startswith("Hidden state hₜ of lstm_1"))
    ticks = state["layout"]["xaxis"]["ticktext"]
    assert len(ticks) == 16 and "".join(ticks).replace("␣", " ").replace("\\n", "\n") == box.value
    assert any(t.startswith("Gates of lstm_1") for t in shown)
    assert any(t.startswith("Gradient through time") for t in shown), "sparse cross-entropy differentiates"
    top = at.dataframe[0].value
    assert list(top.columns) == ["token", "p"] and len(top) == 5 and np.all(np.diff(top["p"]) <= 0)
    assert "The held-out text goes on with" in texts(at.caption)

    box.set_value("def f(x): return x").run()  # own text: 18 characters, the last 16 traced
    assert not at.exception and not at.error
    assert "tracing its last 16 tokens" in texts(at.warning)
    state = next(f for t, f in figures(at).items() if t.startswith("Hidden state"))
    own = [shown_token(tokenizer.vocab[i]) for i in tokenizer.encode("def f(x): return x")[-16:]]
    assert state["layout"]["xaxis"]["ticktext"] == own
    bptt = next(f for t, f in figures(at).items() if t.startswith("Gradient through time"))
    assert len(figure_array(bptt["data"][0]["y"])) == 15  # the text's own next tokens: the last one has none

    text_box(at, lstm).set_value("ab").run()
    assert not at.exception and not at.error
    assert "2 tokens traced" in texts(at.caption)

    text_box(at, lstm).set_value("☃☃☃").run()
    assert not at.exception and "unknown" in texts(at.error) and not at.get("plotly_chart")
    text_box(at, lstm).set_value(" \n ").run()
    assert not at.exception and "The text box is empty" in texts(at.info) and not at.get("plotly_chart")


def test_hmm_run_shows_path_posteriors_matrices_and_equations(open_page, runs_dir, language_runs):
    hmm = language_runs["hmm"]
    at = open_run(open_page, runs_dir, hmm)
    assert not at.exception and not at.error
    shown = figures(at)
    path = next(f for t, f in shown.items() if t.startswith("Viterbi state path"))
    gamma = next(f for t, f in shown.items() if t.startswith("Posterior state probabilities"))
    assert any(t.startswith("Transition matrix A (3 states)") for t in shown)
    emissions = next(f for t, f in shown.items() if t.startswith("Emission matrix B"))
    z = np.array(gamma["data"][0]["z"], dtype="float64") if isinstance(gamma["data"][0]["z"], list) else None
    if z is None:  # plotly's typed array: (K, T) float64
        z = figure_array(gamma["data"][0]["z"]).reshape(3, 16)
    np.testing.assert_allclose(z.sum(axis=0), np.ones(16), atol=1e-6)  # a distribution per token
    states = figure_array(path["data"][0]["y"])
    assert len(states) == 16 and set(states) <= {0.0, 1.0, 2.0}
    assert len(gamma["layout"]["xaxis"]["ticktext"]) == 16  # tokens label the time axis
    assert 5 <= len(emissions["data"][0]["x"]) <= 30  # B capped to the most probable tokens
    latex = "\n".join(element.value for element in at.latex)
    assert r"p(x_1, \dots, x_N, z_1, \dots, z_N)" in latex and r"\log \beta_n(j)" in latex
    assert "log p(x) of the text" in [m.label for m in at.metric]
    assert "Baum-Welch" in texts(at.caption) and len(at.dataframe) == 1  # next tokens, no gradient


def test_markov_chain_run_has_nothing_to_trace(open_page, runs_dir, language_runs):
    runs_dir.mkdir(parents=True, exist_ok=True)
    for r in (language_runs["markov"], language_runs["hmm"]):
        shutil.copytree(r.path, runs_dir / r.run_id)
    at = open_page(PAGE)
    assert at.selectbox(key="inspect.run").value == language_runs["hmm"].run_id
    assert len(at.selectbox(key="inspect.run").options) == 1  # only the traceable run is listed
    at.toggle(key="inspect.all").set_value(True).run()
    at.selectbox(key="inspect.run").set_value(language_runs["markov"].run_id).run()
    assert not at.exception and not at.error
    assert "Markov chain has no recurrent layer or hidden Markov model: nothing to trace" in texts(at.markdown)
    assert not at.get("plotly_chart")
