"""Option labels: an architecture's own, where it means something else by a shared option name."""

from seqlab.app.widgets import label
from seqlab.models import get_architecture


def test_an_architecture_labels_its_own_meaning_of_a_shared_option():
    tcn = get_architecture("tcn").labels
    assert label("filters") == label("filters", get_architecture("cnn").labels)  # the CNN's: filters per width
    assert label("filters", tcn) == tcn["filters"] != label("filters")
    assert label("dropout", tcn) == label("dropout")  # not its own: the shared label
