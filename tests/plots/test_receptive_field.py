"""The dilation diagram: one line per tap, the steps it reaches filled, a row per level."""

from seqlab.plots.receptive_field import receptive_field_diagram


def test_the_diagram_draws_every_tap_and_marks_what_it_reaches():
    levels = ["input", "conv (d = 1)", "conv (d = 2)"]
    taps = [[], [(1, 0), (1, 1), (3, 2), (3, 3)], [(3, 1), (3, 3)]]  # k = 2: output 3 reads 0..3
    fig = receptive_field_diagram(levels, taps, ["a", "b", "c", "d", "e"], 3, title="field")
    grid, edges, reached = fig.data
    assert len(grid.x) == 3 * 5
    assert [y for y in edges.y if y is not None] == [2, 1] * 2 + [1, 0] * 4  # each tap: its level, then below
    assert sorted(zip(reached.y, reached.x)) == [(0, 1), (0, 2), (0, 3), (0, 4), (1, 2), (1, 4), (2, 4)]
    assert list(fig.layout.yaxis.ticktext) == levels
