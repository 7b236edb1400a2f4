"""The HMM architecture's Baum-Welch is refused from its options when it would pass the server's limits."""

import pytest

from seqlab.data import load_dataset
from seqlab.models import build_model
from tests.language_run import TINY_TEXT


@pytest.fixture
def nothing_built(monkeypatch):
    """Any HMM layer made fails the test: a refusal must come before."""

    def never(*args, **kwargs):
        raise AssertionError("the HMM was built before the check")

    monkeypatch.setattr("seqlab.models.hmm_next_token.HMMNextToken", never)


@pytest.fixture(scope="module")
def tiny():
    return load_dataset("pydoc", **TINY_TEXT)  # 2,700 training tokens in windows of 16


def test_the_largest_hmm_is_refused_for_its_time_before_it_is_built(tiny, nothing_built):
    with pytest.raises(ValueError, match=r"^500 iterations of Baum-Welch with 256 states over 2,\d{3} tokens "
                                         r"would take about [\d,]+ s, more than 60 s .*SEQLAB_MAX_WORK_SECONDS"):
        build_model("hmm", tiny, {"states": 256, "iterations": 500})


def test_an_e_step_too_large_for_memory_is_refused_before_it_is_built(tiny, nothing_built, monkeypatch):
    monkeypatch.setenv("SEQLAB_MAX_DATA_MB", "1")
    with pytest.raises(ValueError, match=r"^Baum-Welch's E-step over \d+ windows of 16 tokens with 32 states would "
                                         r"take \d+ MB, more than 1 MB .*SEQLAB_MAX_DATA_MB"):
        build_model("hmm", tiny, {"states": 32, "iterations": 1})


def test_a_small_hmm_within_the_limits_builds(tiny):
    assert build_model("hmm", tiny, {"states": 3, "iterations": 2}).count_params() > 0
