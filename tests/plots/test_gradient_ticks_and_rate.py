"""The gradient figures' log axes carry the app's readable ticks; the learning-rate figure per batch."""

import numpy as np
import pytest

from seqlab.plots import grad_norm_per_batch, gradient_norms, learning_rate_per_batch
from seqlab.plots.training import nice_log_ticks


def test_gradient_through_time_has_at_least_three_labelled_ticks_within_one_decade():
    # 0.9 down to 0.35: inside one decade, where plotly alone labels one tick or none
    fig = gradient_norms({"lstm_1": 0.9 ** np.arange(10)[::-1], "dead": np.zeros(10)}, range(1, 11))
    ticks = list(fig.layout.yaxis.tickvals)
    assert ticks == nice_log_ticks(0.9**9, 1.0) and len(ticks) >= 3
    assert all(0.9**9 <= t <= 1.0 for t in ticks)
    assert list(fig.layout.yaxis.ticktext) == [f"{t:g}" for t in ticks]


def test_gradient_through_time_over_decades_gets_powers_of_ten():
    fig = gradient_norms({"rnn": 10.0 ** -np.arange(8)[::-1]}, range(1, 9))
    assert list(fig.layout.yaxis.tickvals) == [1e-7, 1e-6, 1e-5, 1e-4, 1e-3, 1e-2, 0.1, 1.0]


def test_live_gradient_norm_ticks_cover_the_clip_line():
    batches = [{"epoch": 1, "step": s, "grad_norm": g} for s, g in enumerate((0.3, 0.4, 0.5, 0.45), start=1)]
    fig = grad_norm_per_batch(batches, clip_norm=1.0)
    ticks = list(fig.layout.yaxis.tickvals)
    assert ticks == nice_log_ticks(0.3, 1.0) and len(ticks) >= 3 and ticks[-1] == 1.0
    assert fig.layout.yaxis.type == "log"


def test_learning_rate_per_batch_draws_the_schedule_in_epochs():
    rates = [0.0, 5e-4, 1e-3, 8e-4, 3e-4, 1e-4]
    batches = [{"epoch": 1 + i // 3, "step": 1 + i % 3, "learning_rate": r} for i, r in enumerate(rates)]
    fig = learning_rate_per_batch(batches + [{"epoch": 2, "step": 3}])  # an event without a rate is left out
    assert list(fig.data[0].y) == rates
    assert list(fig.data[0].x) == pytest.approx([1 / 3, 2 / 3, 1, 4 / 3, 5 / 3, 2])
    assert fig.layout.yaxis.title.text == "learning rate η" and fig.layout.xaxis.title.text == "epoch"
