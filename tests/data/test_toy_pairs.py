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


@pytest.fixture
def no_drawing(monkeypatch):
    """Any string drawn fails the test: a refusal must come before."""

    def never(*args, **kwargs):
        raise AssertionError("strings were drawn before the check")

    monkeypatch.setattr("seqlab.data.toy_pairs.np.random.default_rng", never)


def test_pairs_too_large_for_memory_are_refused_before_any_is_drawn(monkeypatch, no_drawing):
    monkeypatch.setenv("SEQLAB_MAX_DATA_MB", "1")
    with pytest.raises(ValueError, match=r"^The pairs \(1,000 of up to 200 characters\) would take 2 MB, more than "
                                         r"1 MB .*SEQLAB_MAX_DATA_MB.*; use fewer samples or shorter strings"):
        load_dataset("toy_pairs", samples=1000, min_length=1, max_length=200)


def test_pairs_too_long_to_draw_are_refused_before_any_is(monkeypatch, no_drawing):
    monkeypatch.setenv("SEQLAB_MAX_WORK_SECONDS", "1")
    with pytest.raises(ValueError, match=r"^Drawing and tokenising 20,000 pairs of up to 100 characters would take "
                                         r"about 2 s, more than 1 s .*SEQLAB_MAX_WORK_SECONDS"):
        load_dataset("toy_pairs", samples=20_000, min_length=100, max_length=100)
