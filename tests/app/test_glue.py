"""The glue's helpers: labels and metric tables, the families table, the clear_session guard."""

import gc
import threading

import keras
import numpy as np
import pandas as pd

from seqlab.app import guard
from seqlab.app.catalogue import AS_FEATURE, AS_OPTION, families_table
from seqlab.models import list_architectures
from seqlab.app.format import (
    baseline_label,
    best_baseline,
    duration,
    metrics_table,
    primary_metric,
    skill,
    steps_as_time,
    style_best,
)

FORECAST = {
    "model": {"mae": 0.3, "mape": 7.0, "rmse": 0.4},
    "baselines": {
        "naive": {"mae": 0.6, "mape": 15.0, "rmse": 0.8},
        "seasonal_naive_day": {"mae": 0.33, "mape": 7.4, "rmse": 0.48},
    },
}
CLASSIFY = {"model": {"accuracy": 0.9, "cross_entropy": 0.3}, "baselines": {"majority": {"accuracy": 0.1, "cross_entropy": 2.3}}}


def test_metrics_table_units_order_and_best():
    table = metrics_table(FORECAST, "GW", model_label="Model: LSTM", task="forecast")
    assert list(table.columns) == ["MAE (GW)", "RMSE (GW)", "MAPE (%)"]
    assert list(table.index) == ["Model: LSTM", "Naive (last value)", "Seasonal naive (same time yesterday)"]
    html = style_best(table).to_html()
    assert html.count("background-color: #c8ecd0") >= 1


def test_accuracy_in_percent_and_higher_is_better():
    table = metrics_table(CLASSIFY, "", task="classify")
    assert list(table.columns) == ["accuracy (%)", "cross-entropy (nats)"]
    assert table.iloc[0, 0] == 90.0
    assert table.attrs["higher_is_better"]["accuracy (%)"] is True
    assert best_baseline(CLASSIFY)[0] == "majority"
    assert skill(CLASSIFY) == 80.0  # percentage points


def test_primary_metric_and_skill_per_task():
    assert primary_metric(FORECAST, "forecast") == "mae"
    assert primary_metric({"model": {"mae": 1, "mse": 1, "rmse": 1}}, "regress") == "mse"
    assert best_baseline(FORECAST)[0] == "seasonal_naive_day"
    assert np.isclose(skill(FORECAST), (1 - 0.3 / 0.33) * 100)


def test_readable_labels():
    assert baseline_label("seasonal_naive_week") == "Seasonal naive (same time last week)"
    assert baseline_label("seasonal_naive_period") == "Seasonal naive (one period back)"
    assert baseline_label("holt_winters") == "Holt-Winters (damped trend)"
    assert duration(75) == "1 min 15 s" and duration(None) == "–"
    half_hours = pd.date_range("2014-01-01", periods=3, freq="30min")
    assert steps_as_time(half_hours, 96) == "2 days"
    assert steps_as_time(half_hours, 3) == "1.5 hours"
    assert steps_as_time(pd.RangeIndex(3), 10) == ""


def test_families_follow_the_registry():
    table = families_table()
    families = {arch.family for arch in list_architectures()}
    assert set(table["Family"]) == families | set(AS_OPTION) | set(AS_FEATURE)
    assert table.set_index("Family").loc["Bag of words", "Train it as"] == "Mean of embeddings"
    row = table.set_index("Family").loc["LSTM"]
    assert row["Available"] and "LSTM" in row["Train it as"]
    assert table.set_index("Family").loc["GPT", "Train it as"] == "GPT (decoder-only Transformer)"
    rows = table.set_index("Family")
    assert rows.loc["Bidirectional RNN", "Available"]
    assert rows.loc["Bidirectional RNN", "Train it as"] == (
        "the bidirectional option of Elman RNN, LSTM, GRU, Encoder-decoder (RNN, attention)")
    assert "identity_init" in rows.loc["Gradient problems", "Train it as"]
    for family in ("Encoder-decoder", "Bahdanau attention", "Luong attention", "Task shapes"):
        assert rows.loc[family, "Available"], family
    assert "one-to-many" in rows.loc["Task shapes", "Train it as"]


def _no_training_thread() -> None:
    for earlier in threading.enumerate():  # an idle worker of an earlier test ends within a second
        if earlier.name.startswith(guard.WORKER_THREAD_NAME):
            earlier.join(timeout=10)


def test_guard_skips_clear_session_only_while_training(monkeypatch):
    _no_training_thread()
    calls = []
    monkeypatch.setattr(keras.backend, "clear_session", lambda *a, **k: calls.append(1))
    guard.install()
    keras.backend.clear_session()
    assert calls == [1]  # no training thread: the real cleanup runs

    stop = threading.Event()
    worker = threading.Thread(target=stop.wait, name=guard.WORKER_THREAD_NAME)
    worker.start()
    try:
        keras.backend.clear_session()
        assert calls == [1]  # skipped while a job trains
    finally:
        stop.set()
        worker.join()
    keras.backend.clear_session()
    assert calls == [1, 1]


def test_the_cleanup_after_every_rerun_runs_no_full_garbage_collection(monkeypatch):
    """A full gc.collect of a process holding TensorFlow took ~0.8 s: Streamlit would pay it at every rerun."""
    _no_training_thread()
    collections = []
    monkeypatch.setattr(gc, "collect", lambda *a: collections.append(a) or 0)
    guard.install()
    keras.backend.clear_session()  # as Streamlit calls it
    assert collections == []
    keras.backend.clear_session(free_memory=True)  # asked for by name, it still collects
    assert len(collections) == 1
