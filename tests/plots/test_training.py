from seqlab.plots import loss_curves
from seqlab.plots.training import loss_axis_title


def _events(epochs=2, steps=4):
    batches = [
        {"type": "batch", "epoch": e, "step": s, "loss": 1.0 / (e * s), "batch_loss": 1.1 / (e * s)}
        for e in range(1, epochs + 1)
        for s in range(1, steps + 1)
    ]
    per_epoch = [{"type": "epoch", "epoch": e, "loss": 0.5 / e, "val_loss": 0.6 / e} for e in range(1, epochs + 1)]
    return batches, per_epoch


def test_batches_thin_line_and_epoch_markers_in_epochs():
    batches, epochs = _events()
    fig = loss_curves(batches, epochs, steps_per_epoch=4, unit="GW")
    names = [t.name for t in fig.data]
    assert names == ["train, per batch", "train, epoch mean", "validation"]
    batch = fig.data[0]
    assert batch.line.width == 1
    assert batch.x[0] == 0.25 and batch.x[-1] == 2.0  # step s of epoch e sits at e - 1 + s / steps
    assert batch.y[0] == 1.1  # the batch's own loss, not the running mean
    assert list(fig.data[2].y) == [0.6, 0.3]
    assert fig.layout.yaxis.title.text == "MSE (GW²)"
    assert fig.layout.xaxis.title.text == "epoch"


def test_live_axis_spans_all_epochs_before_they_run():
    batches, epochs = _events(epochs=1)
    fig = loss_curves(batches, epochs, unit="", total_epochs=10)
    assert fig.layout.xaxis.range[1] >= 10
    assert fig.layout.yaxis.title.text == "MSE"


def test_empty_history_still_draws_axes():
    fig = loss_curves([], [], unit="GW", total_epochs=3)
    assert len(fig.data) == 0
    assert fig.layout.yaxis.title.text == "MSE (GW²)"


def test_axis_titles_per_loss():
    assert loss_axis_title("mse", "°C") == "MSE (°C²)"
    assert loss_axis_title("sparse_categorical_crossentropy") == "cross-entropy (nats)"


def test_log_axis_ticks_are_written_out():
    batches, epochs = _events()
    fig = loss_curves(batches, epochs, steps_per_epoch=4)
    assert fig.layout.yaxis.type == "log"
    assert "0.1" in fig.layout.yaxis.ticktext and "1" in fig.layout.yaxis.ticktext
