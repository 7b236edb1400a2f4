import pandas as pd
import pytest

from seqlab.plots import error_by_step, regular_step


def test_error_by_step_in_hours_with_units_and_the_model_first():
    index = pd.date_range("2024-01-01", periods=10, freq="30min")
    errors = {"model (GRU)": [0.1, 0.2, 0.3, 0.4, 0.4, 0.5], "Seasonal naive (same time yesterday)": [0.3] * 6}
    fig = error_by_step(errors, unit="GW", step=regular_step(index))
    assert [t.name for t in fig.data] == list(errors)
    assert list(fig.data[0].x) == [0.5, 1.0, 1.5, 2.0, 2.5, 3.0]  # 3 hours: in hours
    assert fig.layout.xaxis.title.text == "hours ahead"
    assert fig.layout.yaxis.title.text == "test MAE (GW)"
    assert "horizon step" in fig.layout.title.text


def test_error_by_step_without_a_time_index_counts_steps():
    assert regular_step(pd.RangeIndex(10)) is None
    assert regular_step(pd.date_range("2000-01-01", periods=5, freq="MS")) is None  # months vary in length
    fig = error_by_step({"model": [1.0, 2.0, 3.0]})
    assert list(fig.data[0].x) == [1, 2, 3] and fig.layout.xaxis.title.text == "steps ahead"
    assert regular_step(pd.date_range("2000-01-01", periods=5, freq="D")) == pd.Timedelta(days=1)
    assert error_by_step({"model": [1.0] * 2}, step=pd.Timedelta(minutes=30)).layout.xaxis.title.text == "minutes ahead"
    assert error_by_step({"model": [1.0] * 7}, step=pd.Timedelta(days=1)).layout.xaxis.title.text == "days ahead"


def test_error_by_step_refuses_ragged_input():
    with pytest.raises(ValueError, match="one value per horizon step"):
        error_by_step({"model": [1.0, 2.0], "naive": [1.0]})
    with pytest.raises(ValueError, match="at least one"):
        error_by_step({})
