import numpy as np
import pandas as pd
import pytest

from seqlab.plots import dataset_preview


def _frame():
    index = pd.date_range("2014-01-01", periods=200, freq="30min", name="time")
    rng = np.random.default_rng(0)
    return pd.DataFrame(
        {
            "Demand": 4 + rng.standard_normal(200),
            "Temperature": 20 + rng.standard_normal(200),
            "WorkDay": (np.arange(200) // 48 % 7 < 5).astype(float),
        },
        index=index,
    )


def test_every_column_on_its_own_axis_with_units():
    fig = dataset_preview(_frame(), "Demand", {"Demand": "GW", "Temperature": "°C", "WorkDay": "0/1"})
    assert [t.name for t in fig.data] == ["Demand (GW)", "Temperature (°C)", "WorkDay (0/1)"]
    assert [t.yaxis for t in fig.data] == ["y", "y2", "y3"]
    assert fig.layout.yaxis.title.text == "Demand (GW)"
    assert fig.layout.yaxis2.title.text == "Temperature (°C)"
    assert fig.layout.yaxis3.title.text == "WorkDay (0/1)"
    assert fig.layout.yaxis3.tickvals == (0, 1)  # a 0/1 flag reads as a flag
    assert fig.layout.xaxis3.title.text == "time"
    assert fig.layout.title.text


def test_range_slider_shows_the_target_and_axes_zoom_together():
    fig = dataset_preview(_frame(), "Demand", {"Demand": "GW"})
    assert fig.layout.xaxis.rangeslider.visible
    assert fig.data[0].xaxis == "x"  # the target is the trace on the slider's axis
    assert fig.layout.xaxis2.matches == "x" and fig.layout.xaxis3.matches == "x"
    assert fig.layout.xaxis.rangeselector.buttons  # 1 week / 1 month / all on a time axis


def test_splits_are_shaded_and_labelled():
    frame = _frame()
    fig = dataset_preview(frame, "Demand", splits={"train": (0, 140), "validation": (140, 170), "test": (170, 200)})
    assert len(fig.layout.shapes) == 3 * 3  # each split on each of the three axes
    assert {a.text for a in fig.layout.annotations} == {"<b>train</b>", "<b>validation</b>", "<b>test</b>"}
    assert fig.layout.shapes[0].x0 == frame.index[0]


def test_step_index_and_single_column():
    frame = pd.DataFrame({"y": np.sin(np.arange(100))}, index=pd.RangeIndex(100, name="t"))
    fig = dataset_preview(frame, "y", {"y": ""})
    assert len(fig.data) == 1
    assert fig.layout.yaxis.title.text == "y"
    assert fig.layout.xaxis.title.text == "t"


def test_unknown_target_is_refused():
    with pytest.raises(ValueError, match="target 'nope'"):
        dataset_preview(_frame(), "nope")
