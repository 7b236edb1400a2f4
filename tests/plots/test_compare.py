import pytest

from seqlab.plots import validation_curves


def test_one_line_per_run_and_a_dashed_baseline():
    fig = validation_curves(
        {"Elman RNN": ([1, 2, 3], [0.18, 0.17, 0.17]), "LSTM": ([1, 2], [0.17, 0.01])},
        y_title="MSE", baseline=("baseline: mean (test)", 0.167), total_epochs=12,
    )
    names = [t.name for t in fig.data]
    assert names == ["Elman RNN", "LSTM", "baseline: mean (test)"]
    assert list(fig.data[1].y) == [0.17, 0.01]
    assert fig.layout.shapes[0].y0 == pytest.approx(0.167) and fig.layout.shapes[0].line.dash == "dash"
    assert fig.layout.yaxis.title.text == "MSE" and fig.layout.yaxis.type == "log"
    assert fig.layout.xaxis.title.text == "epoch" and list(fig.layout.xaxis.range) == [0.5, 12.5]
    assert list(fig.layout.yaxis.ticktext) == ["0.01", "0.02", "0.05", "0.1"]  # written out, inside the data


def test_without_baseline_no_line():
    fig = validation_curves({"GRU": ([1], [0.5])}, y_title="MSE (GW²)", log_y=False)
    assert len(fig.data) == 1 and not fig.layout.shapes and fig.layout.yaxis.type == "linear"
