import numpy as np
import pandas as pd

from seqlab.plots import forecast_window


def _window():
    index = pd.date_range("2014-12-01", periods=144, freq="30min", name="time")
    series = pd.Series(4 + np.sin(np.arange(144) / 8), index, name="Demand")
    return series.iloc[:96], series.iloc[96:]


def test_history_actual_model_and_seasonal_naive_with_units():
    history, actual = _window()
    forecasts = {
        "model (LSTM)": actual * 1.01,
        "Seasonal naive (same time yesterday)": actual * 0.98,
        "Naive (last value)": actual * 0 + 4,
    }
    fig = forecast_window(history, actual, forecasts, unit="GW", hidden=("Naive (last value)",))
    assert [t.name for t in fig.data] == ["history (model input)", "actual", *forecasts]
    assert fig.layout.yaxis.title.text == "Demand (GW)"
    assert fig.layout.xaxis.title.text == "time"
    assert fig.data[-1].visible == "legendonly"
    assert fig.data[2].visible is True
    # The actual line starts at the last observed value, so history and future join.
    assert fig.data[1].x[0] == history.index[-1]
    assert len(fig.layout.shapes) == 1  # the forecast horizon is shaded


def test_marker_style_for_values_that_should_coincide():
    history, actual = _window()
    fig = forecast_window(
        history, actual, {"served": actual, "stored": actual}, styles={"stored": dict(color="#2ca02c", width=0)}
    )
    assert fig.data[-1].mode == "markers"
    assert fig.data[-2].mode == "lines"
