import math

import pytest

from seqlab.plots import loss_curves
from seqlab.tasks import get_task
from seqlab.tasks.loss_scale import loss_axis_title, plain_scale


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
    fig = loss_curves(batches, epochs, steps_per_epoch=4, scale=plain_scale("mse", "GW"))
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
    fig = loss_curves(batches, epochs, total_epochs=10)
    assert fig.layout.xaxis.range[1] >= 10
    assert fig.layout.yaxis.title.text == "MSE"


def test_empty_history_still_draws_axes():
    fig = loss_curves([], [], scale=plain_scale("mse", "GW"), total_epochs=3)
    assert len(fig.data) == 0
    assert fig.layout.yaxis.title.text == "MSE (GW²)"


def test_axis_titles_per_loss():
    assert loss_axis_title("mse", "°C") == "MSE (°C²)"
    assert loss_axis_title("sparse_categorical_crossentropy") == "cross-entropy (nats)"


def test_log_axis_ticks_are_written_out():
    batches, epochs = _events()
    fig = loss_curves(batches, epochs, steps_per_epoch=4)
    assert fig.layout.yaxis.type == "log"
    assert "0.2" in fig.layout.yaxis.ticktext and "1" in fig.layout.yaxis.ticktext  # written out, not bare digits


@pytest.mark.parametrize(
    "tokenizer, title, shown",
    [("char", "bits per character", 1.0 / math.log(2)), ("word", "perplexity (tokens)", math.e),
     ("bpe", "perplexity (tokens)", math.e)],
)
def test_language_curves_read_in_the_units_of_its_test_metrics(tokenizer, title, shown):
    scale = get_task("language").loss_scale("", {"tokenizer": tokenizer})
    batches = [{"epoch": 1, "step": 1, "loss": 1.0, "batch_loss": 1.0}]
    fig = loss_curves(batches, [{"epoch": 1, "loss": 1.0, "val_loss": 1.0}], scale=scale)
    assert fig.layout.yaxis.title.text == title
    assert all(math.isclose(trace.y[0], shown) for trace in fig.data)
    assert scale.values([None, 1e6])[0] is None and math.isfinite(scale.values([1e6])[0])  # a diverged loss draws


def test_other_tasks_read_their_loss_itself():
    assert get_task("forecast").loss_scale("GW").title == "MSE (GW²)"
    assert get_task("classify").loss_scale().title == "cross-entropy (nats)"


def test_cards_show_the_scaled_loss_with_its_short_unit():
    assert get_task("language").loss_scale("", {"tokenizer": "char"}).shown(math.log(2) * 3) == "3 bpc"
    assert get_task("forecast").loss_scale("GW").shown(0.5) == "0.5"


def test_a_log_axis_gets_at_least_three_labelled_ticks_however_narrow():
    from seqlab.plots.training import nice_log_ticks

    assert nice_log_ticks(0.26, 0.5) == [0.3, 0.4, 0.5]  # within one decade: finer steps
    assert nice_log_ticks(0.05, 3) == [0.05, 0.1, 0.2, 0.5, 1.0, 2.0]  # 1-2-5
    assert nice_log_ticks(0.001, 10) == [0.001, 0.01, 0.1, 1.0, 10.0]  # decades: powers of ten
    assert nice_log_ticks(0.31, 0.32) == [0.31, 0.315, 0.32]
