"""The beam tree keeps its top row's labels whole: room above the first hypothesis, and labels not clipped."""

from seqlab.plots.attention import beam_tree


def test_the_first_rows_labels_have_room_and_are_not_clipped():
    fig = beam_tree([(["ein", "Haus"], -0.4), (["ein", "Hund"], -1.2)])
    axis = fig.layout.yaxis
    # autorange "reversed" would fit the markers alone and drop the room kept above the top row
    assert axis.autorange is False and axis.range[0] > axis.range[1] and axis.range[1] <= -1
    labelled = [t for t in fig.data if t.mode and "text" in t.mode]
    assert len(labelled) == 2 and all(t.cliponaxis is False for t in labelled)
    assert list(labelled[0].text) == ["[START]", "ein", "Haus", "Hund"]
