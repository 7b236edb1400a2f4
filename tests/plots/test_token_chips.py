"""Token chips: one escaped box per token, whitespace visible, unknown tokens red."""

from seqlab.plots import token_chips
from seqlab.plots.token_chips import UNKNOWN_STYLE


def test_one_chip_per_token_escaped_with_unknown_ones_marked():
    page = token_chips([("<b>", True), (" the", True), ("☃", False), ("\n", True)])
    assert page.count("<span") == 4 and "<b>" not in page and "&lt;b&gt;" in page
    assert "␣the" in page and "\\n" in page
    assert page.count(UNKNOWN_STYLE) == 1 and "unknown, encoded as [UNK]" in page
    assert token_chips([]).count("<span") == 0
