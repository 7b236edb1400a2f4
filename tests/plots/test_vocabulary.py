"""Vocabulary size against OOV rate and length: one line per tokeniser, percentages, log sizes."""

import pandas as pd
import pytest

from seqlab.plots import vocabulary_sweep_chart

SWEEP = pd.DataFrame({
    "tokenizer": ["char", "word", "word", "bpe", "bpe"],
    "vocab_size": [60, 100, 1000, 60, 500],
    "oov_rate": [0.001, 0.2, 0.05, 0.001, 0.001],
    "tokens_per_line": [40.0, 8.0, 8.0, 40.0, 12.0],
    "tokens_per_100_characters": [100.0, 20.0, 20.0, 100.0, 30.0],
})  # fmt: skip


def test_oov_chart_draws_percent_on_a_log_size_axis_with_the_dataset_marked():
    fig = vocabulary_sweep_chart(SWEEP, "oov_rate", marked=1000)
    assert [t.name for t in fig.data] == ["words", "BPE sub-words", "characters"]  # the single point on top
    assert list(fig.data[0].y) == pytest.approx([20.0, 5.0]) and fig.data[2].mode == "markers"
    assert "(%)" in fig.layout.yaxis.title.text and fig.layout.xaxis.type == "log"
    assert "vocabulary size" in fig.layout.xaxis.title.text and fig.layout.title.text
    assert list(fig.layout.xaxis.tickvals) == [50, 100, 200, 500, 1000] and fig.layout.xaxis.ticktext[-1] == "1,000"
    assert fig.layout.shapes[0].x0 == 1000 and "1,000" in fig.layout.annotations[0].text
    assert fig.layout.annotations[0].x == pytest.approx(3)  # log10(1000): where a log axis puts 1,000


def test_length_chart_keeps_tokens_and_refuses_an_unknown_measure():
    fig = vocabulary_sweep_chart(SWEEP, "tokens_per_line")
    assert list(fig.data[1].y) == [40.0, 12.0] and "tokens per line" in fig.layout.yaxis.title.text
    assert not fig.layout.shapes
    with pytest.raises(ValueError, match="measure must be one of"):
        vocabulary_sweep_chart(SWEEP, "perplexity")
