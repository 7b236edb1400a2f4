import pytest

from seqlab.data import get_dataset, load_dataset
from seqlab.data.toy_pairs import toy_pairs_frame


@pytest.mark.parametrize("transform, expected", [("copy", "b3a1"), ("reverse", "1a3b"), ("sort", "13ab")])
def test_each_transform(transform, expected):
    frame = toy_pairs_frame(transform, samples=30, min_length=2, max_length=5, symbols=12, seed=0)
    assert frame["source"].str.len().between(2, 5).all() and set("".join(frame["source"])) <= set("0123456789ab")
    rule = {"copy": lambda s: s, "reverse": lambda s: s[::-1], "sort": lambda s: "".join(sorted(s))}[transform]
    assert [rule(s) for s in frame["source"]] == frame["target"].tolist()
    assert rule("b3a1") == expected


def test_loaded_with_options():
    data = load_dataset("toy_pairs", transform="reverse", samples=50, max_length=6, seed=1)
    assert data.lookback == 6 and data.horizon == 7 and data.options["transform"] == "reverse"
    assert len(data.frame) == 50
    with pytest.raises(ValueError, match="transform"):
        load_dataset("toy_pairs", transform="shuffle")
    with pytest.raises(ValueError, match="max_length .* is below min_length"):
        load_dataset("toy_pairs", min_length=5, max_length=3)
    assert "reverse" in get_dataset("toy_pairs").description
