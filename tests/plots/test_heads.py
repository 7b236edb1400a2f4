"""Attention heatmaps per head and the score walk-through: labelled axes, token ticks, masked cells."""

import numpy as np
import pytest

from seqlab.plots.heads import (
    KEY_TITLE,
    MINUS_INF,
    QUERY_TITLE,
    WEIGHT_TITLE,
    head_heatmap,
    heads_grid,
    score_walkthrough,
    softmax_rows,
)

TOKENS = ["Hello", "how", "are"]
# Seed 001's scaled score matrix for "Hello how are", before the mask.
NOTES_SCORES = np.array([[1.5, 1.4, 1.9], [1.8, 1.3, 2.0], [2.4, 2.0, 2.5]])


def causal(scores):
    return np.where(np.tril(np.ones_like(scores, dtype=bool)), scores, -np.inf)


def test_one_head_has_token_ticks_titled_axes_and_a_weight_colour_bar():
    weights = softmax_rows(NOTES_SCORES)
    fig = head_heatmap(weights, TOKENS, title="head 1")
    [heatmap] = fig.data
    assert list(heatmap.y) == ["1: Hello", "2: how", "3: are"] and list(heatmap.x) == list(heatmap.y)
    assert fig.layout.xaxis.title.text == KEY_TITLE == "key token"
    assert fig.layout.yaxis.title.text == QUERY_TITLE == "query token"
    assert heatmap.colorbar.title.text == WEIGHT_TITLE == "attention weight a_ij"
    assert fig.layout.xaxis.tickfont.size >= 16 and fig.layout.yaxis.autorange == "reversed"
    np.testing.assert_allclose(np.asarray(heatmap.z), weights)
    with pytest.raises(ValueError, match="one label per query row"):
        head_heatmap(weights, TOKENS[:2])


def test_the_grid_has_one_panel_per_head_on_one_scale():
    weights = np.stack([softmax_rows(NOTES_SCORES), softmax_rows(causal(NOTES_SCORES))])
    fig = heads_grid(weights, TOKENS)
    assert [a.text for a in fig.layout.annotations] == ["head 1", "head 2"]
    assert len(fig.data) == 2 and all(h.zmin == 0 and h.zmax == 1 for h in fig.data)
    assert sum(bool(h.showscale) for h in fig.data) == 1  # one colour bar for the grid
    assert fig.layout.yaxis.title.text == "query token" and fig.layout.xaxis.title.text == "key token"
    assert fig.layout.xaxis.tickangle == 0, "three short labels fit a panel"
    patches = ["[CLS]", "(1,1)", "(1,2)", "(2,1)", "(2,2)"]
    assert heads_grid(np.full((4, 5, 5), 0.2), patches).layout.xaxis.tickangle == -45, "five longer ones do not"
    with pytest.raises(ValueError, match=r"\(h, T_q, T_k\)"):
        heads_grid(weights[0], TOKENS)


def test_the_walkthrough_shows_minus_infinity_then_zero_where_the_causal_mask_forbids():
    fig = score_walkthrough(causal(NOTES_SCORES), TOKENS)
    scores = next(t for t in fig.data if t.type == "heatmap" and t.colorbar.title.text == "score a'_ij")
    weights = next(t for t in fig.data if t.type == "heatmap" and t.colorbar.title.text == WEIGHT_TITLE)
    assert list(scores.text[0]) == ["1.50", MINUS_INF, MINUS_INF] and list(scores.text[2]) == ["2.40", "2.00", "2.50"]
    expected = softmax_rows(causal(NOTES_SCORES))
    assert expected[0].tolist() == [1.0, 0.0, 0.0]  # "Hello" may read only itself
    np.testing.assert_allclose(expected.sum(axis=1), 1.0)
    assert list(weights.text[1]) == [f"{expected[1, 0]:.2f}", f"{expected[1, 1]:.2f}", "0.00"]
    legend = [t for t in fig.data if t.type == "scatter"]
    assert len(legend) == 1 and "masked" in legend[0].name and "−∞" in legend[0].name
    assert fig.layout.xaxis.title.text == "key token" and fig.layout.yaxis.title.text == "query token"
    unmasked = score_walkthrough(NOTES_SCORES, TOKENS)
    assert not [t for t in unmasked.data if t.type == "scatter"]  # nothing masked, no legend entry


def test_softmax_rows_gives_zero_to_masked_and_survives_an_all_masked_row():
    rows = softmax_rows(np.array([[0.0, -np.inf], [-np.inf, -np.inf]]))
    np.testing.assert_array_equal(rows, [[1.0, 0.0], [0.0, 0.0]])
