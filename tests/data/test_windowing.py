import numpy as np
import pandas as pd
import pytest

from seqlab.data.windowing import make_windows, split_points, window_forecast_frame


def frame(n=200):
    t = np.arange(n, dtype=float)
    return pd.DataFrame({"y": t, "x": -t})


def windowed(**overrides):
    args = dict(
        name="toy", frame=frame(), target="y", exogenous=("x",), units={"y": "u"},
        lookback=5, horizon=3, stride=1, val_fraction=0.2, test_fraction=0.2,
        seasons={}, options={},
    )
    args.update(overrides)
    return window_forecast_frame(**args)


def test_make_windows_aligns_inputs_before_targets():
    values = np.arange(20, dtype=float)[:, None]
    split = make_windows(values, values[:, 0], lookback=4, horizon=2, first_origin=0, last_origin=10)
    assert split.origin[0] == 4  # the first origin with a full lookback
    np.testing.assert_array_equal(split.x[0, :, 0], [0, 1, 2, 3])
    np.testing.assert_array_equal(split.y[0], [4, 5])
    np.testing.assert_array_equal(split.y[-1], [10, 11])


def test_splits_are_chronological_and_targets_stay_inside():
    data = windowed()
    val_start, test_start = split_points(200, 0.2, 0.2)
    train, val, test = data.splits["train"], data.splits["val"], data.splits["test"]
    assert train.y.max() < val_start <= val.y.min()
    assert val.y.max() < test_start <= test.y.min()
    assert test.y.max() == 199
    assert data.features == ("y", "x") and data.input_shape == (5, 2)


def test_scaler_is_fitted_on_train_rows_only():
    data = windowed()
    val_start, _ = split_points(200, 0.2, 0.2)
    assert data.scaler.mean[0] == pytest.approx(np.arange(val_start).mean())


def test_stride_thins_windows():
    assert len(windowed(stride=3).splits["train"]) == pytest.approx(len(windowed().splits["train"]) / 3, abs=1)


@pytest.mark.parametrize(
    "overrides, message",
    [
        ({"lookback": 100}, "longer than the shortest split"),
        ({"lookback": 0}, "lookback must be a positive integer"),
        ({"horizon": 2.5}, "horizon must be a positive integer"),
        ({"target": "nope"}, "not in the data"),
        ({"val_fraction": 0.7}, "val_fraction"),
        ({"stride": 41}, "stride = 41 steps is longer than the shortest split \\(40 of 200 rows\\)"),
    ],
)
def test_bad_options_name_the_problem(overrides, message):
    with pytest.raises(ValueError, match=message):
        windowed(**overrides)


def test_nan_rows_are_refused():
    bad = frame()
    bad.iloc[7, 0] = np.nan
    with pytest.raises(ValueError, match="NaN"):
        windowed(frame=bad)


def test_windows_beyond_the_data_limit_are_refused_before_they_are_cut(monkeypatch):
    monkeypatch.setenv("SEQLAB_MAX_DATA_MB", "1")
    big = pd.DataFrame({"y": np.zeros(20_000), "x": np.zeros(20_000)})
    assert len(windowed(frame=big, lookback=5, stride=1).splits["train"]) > 10_000  # 0.4 MB
    with pytest.raises(ValueError, match=r"would take \d+ MB, more than 1 MB .*larger stride"):
        windowed(frame=big, lookback=20, stride=1)  # 20,000 windows x 20 steps x 2 features: 3 MB
    assert windowed(frame=big, lookback=20, stride=10)  # a tenth of the windows fits
