"""The embedding projection: 2-D or 3-D, highlighted token and neighbours, escaped labels, a cap on labels."""

import numpy as np
import pytest

from seqlab.plots import embedding_projection

TOKENS = ["[PAD]", "[UNK]", " ", "<br>", "\n", "a", "b", "c"]


def _figure(dims=2, **options):
    points = np.arange(len(TOKENS) * dims, dtype="float64").reshape(len(TOKENS), dims)
    return embedding_projection(points, list(range(len(TOKENS))), TOKENS, [0.5, 0.3, 0.1][:dims], **options)


def test_groups_axes_and_escaped_labels():
    fig = _figure(chosen=5, neighbours=[5, 6, 3], counts=list(range(8)))
    groups = {t.name: t for t in fig.data}
    assert list(groups) == ["tokens", "nearest by cosine", "chosen token"]
    assert list(groups["chosen token"].text) == ["a"]
    assert list(groups["nearest by cosine"].text) == ["&lt;br&gt;", "b"]  # plotly reads HTML: no line break
    assert "␣" in groups["tokens"].text and "\\n" in groups["tokens"].text
    assert "7 times in the training text" in groups["tokens"].customdata[-1]
    assert fig.layout.xaxis.title.text == "PC1 (50 % of variance)"
    assert fig.layout.yaxis.title.text == "PC2 (30 % of variance)"


def test_three_dimensions_and_the_label_cap():
    fig = _figure(dims=3, chosen=7, neighbours=[7, 6], labelled=2)
    assert {t.type for t in fig.data} == {"scatter3d"}
    assert fig.layout.scene.zaxis.title.text == "PC3 (10 % of variance)"
    tokens = {t.name: t for t in fig.data}["tokens"]
    assert list(tokens.text) == ["[PAD]", "[UNK]", "", "", "", ""]  # beyond the first 2: hover only
    assert [t.text[0] for t in fig.data[1:]] == ["b", "c"]  # highlighted points are always written


def test_bad_shapes_are_clear_errors():
    with pytest.raises(ValueError, match="2 or 3 columns"):
        embedding_projection(np.zeros((3, 4)), [0, 1, 2], ["a", "b", "c"], [0.1] * 4)
    with pytest.raises(ValueError, match="one entry per point"):
        embedding_projection(np.zeros((3, 2)), [0, 1], ["a", "b", "c"], [0.1, 0.1])
