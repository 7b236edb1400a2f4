import pytest

from seqlab.plots import batch_loss_curves, validation_curves
from seqlab.tasks.loss_scale import plain_scale


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


def test_each_runs_batches_and_validations_in_its_colour_and_a_run_without_events_draws_nothing():
    def batch(epoch, step, loss):
        return {"epoch": epoch, "step": step, "loss": loss + 1, "batch_loss": loss}

    fig = batch_loss_curves(
        {"MLP (job 1)": ([batch(1, 1, 0.4), batch(1, 2, 0.3), batch(2, 1, 0.2)], [{"epoch": 1, "val_loss": 0.35}], 2),
         "GRU (job 2)": ([], [], None)},
        plain_scale("mse"), total_epochs=10,
    )
    assert [t.name for t in fig.data] == ["MLP (job 1), per batch", "MLP (job 1), validation"]
    assert list(fig.data[0].x) == [0.5, 1.0, 1.5] and list(fig.data[0].y) == [0.4, 0.3, 0.2]  # each batch's own
    assert fig.data[0].line.color == fig.data[1].line.color
    assert list(fig.data[1].x) == [1] and list(fig.layout.xaxis.range) == pytest.approx([0, 10.2])
