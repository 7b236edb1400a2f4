"""A task kind plugs in through the Task object alone: inputs, preprocessor, prediction, assets."""

import dataclasses

import numpy as np
import pytest

from seqlab.data import load_dataset
from seqlab.tasks import TASK_KINDS, InputSpec, get_task, register_task
from seqlab.tasks.numeric import SCALER_FILE, load_scaler, save_scaler


def test_the_numeric_tasks_declare_one_float_window_and_save_the_scaler(tmp_path):
    data = load_dataset("sine", length=300, lookback=10, horizon=3)
    task = get_task("forecast")
    assert task.inputs(data) == (InputSpec("window", (10, 1), "float32"),)
    assert task.series and task.frame_window is not None and task.in_target_unit
    assert not get_task("classify").series and not get_task("classify").in_target_unit
    assert task.save_assets(tmp_path, data) == [SCALER_FILE]
    scaler = task.load_assets(tmp_path)["scaler"]
    np.testing.assert_allclose(scaler.mean, data.scaler.mean)
    np.testing.assert_allclose(scaler.std, data.scaler.std)
    assert load_scaler(tmp_path / "older-run") == {}  # a run saved before scalers were kept
    (tmp_path / SCALER_FILE).write_text("{")
    with pytest.raises(ValueError, match="damaged"):
        load_scaler(tmp_path)


def test_data_without_a_scaler_is_refused_by_a_numeric_task(tmp_path):
    data = dataclasses.replace(load_dataset("sine", length=300, lookback=10, horizon=3), scaler=None)
    with pytest.raises(ValueError, match="has no scaler"):
        save_scaler(tmp_path, data)


def test_build_task_model_asks_the_task_for_its_inputs_and_preprocessor(monkeypatch):
    import keras

    from seqlab.models import build_task_model

    data = load_dataset("sine", length=300, lookback=10, horizon=3)
    calls = []

    def doubled(data):  # a stand-in preprocessor: the model must use the task's, not its own
        calls.append("preprocessor")
        return keras.layers.Rescaling(2.0, name="doubled")

    custom = dataclasses.replace(
        get_task("forecast"),
        inputs=lambda data: (InputSpec("series", (None, 1), "float32"),),
        preprocessor=doubled,
    )
    monkeypatch.setitem(TASK_KINDS._entries, "forecast", custom)
    model = build_task_model(data, lambda x, seq: keras.layers.GlobalAveragePooling1D()(x), "probe")
    assert calls == ["preprocessor"]
    assert model.inputs[0].name == "series" and tuple(model.inputs[0].shape) == (None, None, 1)
    assert "doubled" in [layer.name for layer in model.layers]
    assert model.predict(np.ones((2, 7, 1), "float32"), verbose=0).shape == (2, 3)  # any length: shape None


def test_a_task_name_outside_tasks_is_refused():
    with pytest.raises(ValueError, match="task must be one of"):
        register_task(dataclasses.replace(get_task("regress"), name="dance"))
