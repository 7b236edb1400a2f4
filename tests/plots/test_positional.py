"""The positional encoding's heatmap and the similarity of positions (seed 002: it falls with distance)."""

import numpy as np

from seqlab.plots.positional import cosine_similarity, encoding_heatmap, similarity_heatmap


def notes_encoding(length, depth, base):
    """PosEnc(t, 2i) = sin((t-1)/n^(2i/r)), PosEnc(t, 2i+1) = cos(...), written out here."""
    t = np.arange(length)[:, None]
    i = np.arange(depth // 2)[None, :]
    angle = t / base ** (2 * i / depth)
    out = np.empty((length, depth))
    out[:, 0::2], out[:, 1::2] = np.sin(angle), np.cos(angle)
    return out


def test_the_heatmap_has_positions_down_and_components_across():
    encoding = notes_encoding(20, 16, 10000.0)
    fig = encoding_heatmap(encoding, 10000.0)
    [heatmap] = fig.data
    assert list(heatmap.y) == list(range(1, 21)) and list(heatmap.x) == list(range(16))
    assert fig.layout.yaxis.title.text == "position t" and fig.layout.xaxis.title.text.startswith("component l")
    assert "n = 10000" in fig.layout.title.text and heatmap.zmin == -1 and heatmap.zmax == 1


def test_similarity_is_one_on_the_diagonal_and_falls_with_distance():
    encoding = notes_encoding(30, 64, 10000.0)
    similarity = cosine_similarity(encoding)
    np.testing.assert_allclose(np.diag(similarity), 1.0)
    # The same for every t: cos depends only on the distance t' - t (a sum of cos of angle differences).
    np.testing.assert_allclose(np.diag(similarity, 3), similarity[0, 3], atol=1e-12)
    by_distance = similarity[0]
    assert np.all(np.diff(by_distance[:5]) < 0), by_distance  # falls with the first steps apart
    assert by_distance[1] > by_distance[10] > by_distance[29]  # and near stays above far
    fig = similarity_heatmap(encoding, 10000.0)
    assert fig.layout.xaxis.title.text == "position t'" and fig.layout.yaxis.title.text == "position t"
    np.testing.assert_allclose(np.asarray(fig.data[0].z), similarity)


def test_a_smaller_base_makes_the_similarity_fall_faster():
    slow = cosine_similarity(notes_encoding(30, 64, 10000.0))[0, 5]
    fast = cosine_similarity(notes_encoding(30, 64, 10.0))[0, 5]
    assert fast < slow
