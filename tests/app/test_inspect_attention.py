"""Inspect on a Transformer run: layer and head selectors, heatmaps with tokens, equations, the masked scores."""

import json
import shutil

import numpy as np
import pytest

from tests.app.conftest import figure_array, figures, texts
from tests.data.test_textcsv import reviews

PAGE = "pages/inspect.py"


@pytest.fixture(scope="module")
def transformer_run(tmp_path_factory):
    """A tiny Transformer encoder classifier on a few reviews (2 blocks of 2 heads, width 8), trained once."""
    from seqlab.runs import RunStore
    from seqlab.training import ExperimentSpec, run_experiment

    folder = tmp_path_factory.mktemp("transformer_runs")
    options = {"path": str(reviews(folder)), "text": "review", "label": "stars", "max_tokens": 8}
    model = {"layers": 2, "heads": 2, "width": 8, "ff_units": 16, "dropout": 0.0}
    spec = ExperimentSpec("textcsv", "transformer", options, model, epochs=1, batch_size=8)
    return run_experiment(spec, store=RunStore(folder / "runs"), savedmodel=False)


def test_a_transformer_run_shows_heads_layers_equations_and_the_walkthrough(open_page, runs_dir, transformer_run):
    runs_dir.mkdir(parents=True, exist_ok=True)
    shutil.copytree(transformer_run.path, runs_dir / transformer_run.run_id)
    at = open_page(PAGE)
    assert not at.exception and not at.error
    run_id = transformer_run.run_id
    assert at.selectbox(key="inspect.run").value == run_id  # a Transformer run is inspectable
    at.text_area[0].set_value("a superb and clever film").run()
    assert not at.exception and not at.error
    shown = figures(at)
    title = "Self-attention of encoder_1: average over heads"
    assert title in shown, list(shown)
    heatmap = shown[title]
    ticks = heatmap["data"][0]["y"]
    assert ticks == ["1: [CLS]", "2: a", "3: superb", "4: and", "5: clever", "6: film"]  # the class token first
    assert heatmap["layout"]["xaxis"]["title"]["text"] == "key token"
    assert heatmap["layout"]["yaxis"]["title"]["text"] == "query token"
    z = figure_array(heatmap["data"][0]["z"]).reshape(6, 6)
    np.testing.assert_allclose(z.sum(axis=1), 1.0, atol=1e-5)  # every query's weights are a distribution
    assert any(t.startswith("All 2 heads of encoder_1") for t in shown)
    walk = next(f for t, f in shown.items() if t.startswith("Head 1 of encoder_1: a'_ij"))
    assert "−∞" not in json.dumps(walk)  # the encoder reads every real token
    latex = "\n".join(e.value for e in at.latex)
    assert r"\mathrm{MultiHead}" in latex  # the block's own equations

    at.selectbox(key=f"inspect.attention.layer.{run_id}").set_value("encoder_2").run()
    at.selectbox(key=f"inspect.attention.head.{run_id}").set_value("head 2").run()
    assert not at.exception and not at.error
    shown = figures(at)
    assert "Self-attention of encoder_2: head 2" in shown
    assert any(t.startswith("Head 2 of encoder_1") for t in shown)  # the walk-through stays on the first layer

    at.toggle(key=f"inspect.causal.{run_id}").set_value(True).run()
    walk = next(f for t, f in figures(at).items() if t.startswith("Head 2 of encoder_1"))
    scores = next(d for d in walk["data"] if d.get("text") and d["colorbar"]["title"]["text"] == "score a'_ij")
    assert scores["text"][0][1:] == ["−∞"] * 5 and "−∞" not in scores["text"][5]  # [CLS] reads only itself
    assert any("masked" in (d.get("name") or "") for d in walk["data"])


def test_the_positional_lesson_shows_the_encoding_and_the_word_order_demonstration(open_page, runs_dir,
                                                                                     transformer_run):
    runs_dir.mkdir(parents=True, exist_ok=True)
    shutil.copytree(transformer_run.path, runs_dir / transformer_run.run_id)
    at = open_page(PAGE)
    key = f"inspect.positional.{transformer_run.run_id}"
    assert not at.exception and not at.error
    shown = figures(at)
    assert "Sinusoidal positional encoding, base n = 10000, r = 64" in shown
    assert "Similarity of the positions' encodings (base n = 10000)" in shown
    table = at.dataframe[-1].value
    assert list(table["the two orders read"]) == ["the same (a bag of words)", "differently"]
    at.select_slider(key=f"{key}.base").set_value(100).run()
    assert not at.exception and "Similarity of the positions' encodings (base n = 100)" in figures(at)
    at.text_input(key=f"{key}.second").set_value("Work to Play").run()
    assert not at.exception and "same distinct words in another order" in texts(at.warning)
