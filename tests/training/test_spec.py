import json

import pytest

from seqlab.training import ExperimentSpec


def test_spec_round_trips_through_json():
    spec = ExperimentSpec("energy", "lstm", data_options={"lookback": 48}, clip_norm=1.0).resolved()
    again = ExperimentSpec.from_dict(json.loads(spec.to_json()))
    assert again == spec
    assert spec.data_options["horizon"] == 48 and spec.model_options["units"] == 64
    assert spec.task == "forecast"


def test_overrides_route_to_field_data_and_model_options():
    spec = ExperimentSpec("sine", "gru").with_overrides(
        {"epochs": "3", "lookback": "20", "units": "16", "clip_norm": "0.5", "optimizer": "sgd"}
    )
    assert spec.epochs == 3 and spec.clip_norm == 0.5 and spec.optimizer == "sgd"
    assert spec.data_options == {"lookback": 20} and spec.model_options == {"units": 16}


@pytest.mark.parametrize(
    "changes, message",
    [
        ({"epochs": -1}, "epochs must be an integer >= 1"),
        ({"batch_size": 0}, "batch_size"),
        ({"learning_rate": 0}, "learning_rate must be > 0"),
        ({"clip_norm": -2.0}, "clip_norm"),
        ({"clip_value": 0}, "clip_value must be > 0"),
        ({"clip_norm": 1.0, "clip_value": 0.5}, "not both"),
        ({"tbptt": [5]}, r"tbptt must be \[k1, k2\]"),
        ({"tbptt": [0, 5]}, "tbptt"),
        ({"tbptt": [5, 5], "dataset": "adding"}, "forecast datasets only"),
        ({"model_options": {"merge_mode": "max"}}, "merge_mode must be one of"),
        ({"optimizer": "adamax"}, "valid optimizers: adam"),
        ({"model": "nope"}, "valid models"),
        ({"dataset": "nope"}, "valid datasets"),
        ({"data_options": {"lookbak": 3}}, "valid options: .*lookback"),
        ({"model_options": {"unit": 3}}, "valid options: .*units"),
    ],
)
def test_bad_specs_are_refused_with_the_valid_choices(changes, message):
    values = {"dataset": "sine", "model": "lstm", **changes}
    with pytest.raises(ValueError, match=message):
        ExperimentSpec(**values).resolved()


def test_unknown_setting_lists_valid_settings():
    with pytest.raises(ValueError, match="valid settings: .*lookback.*units"):
        ExperimentSpec("sine", "lstm").with_overrides({"colour": "red"})


def test_new_training_fields_round_trip():
    spec = ExperimentSpec("sine", "gru", clip_value=0.5, tbptt=(10, 20)).resolved()
    assert spec.tbptt == [10, 20]
    assert ExperimentSpec.from_dict(json.loads(spec.to_json())) == spec
    parsed = ExperimentSpec("sine", "gru").with_overrides({"tbptt": "[4, 8]", "clip_value": "0.1"})
    assert parsed.tbptt == [4, 8] and parsed.clip_value == 0.1


def test_prefixes_name_a_data_or_model_option_that_shares_a_field_name():
    spec = ExperimentSpec("sine", "lstm").with_overrides({"seed": "3", "data.seed": "7", "model.units": "5"})
    assert spec.seed == 3 and spec.data_options == {"seed": 7} and spec.model_options == {"units": 5}
    with pytest.raises(ValueError, match="Unknown setting 'data.units'"):
        ExperimentSpec("sine", "lstm").with_overrides({"data.units": "5"})


@pytest.mark.parametrize(
    "overrides, message",
    [
        ({"learning_rate": "null"}, "learning_rate must be > 0"),
        ({"lookback": "null"}, "lookback must be an integer for dataset 'sine', got None"),
        ({"lookback": "abc"}, "lookback must be an integer"),
        ({"val_fraction": "abc"}, "val_fraction must be a number"),
        ({"units": "many"}, "units must be an integer for model 'lstm'"),
        ({"bidirectional": "3"}, "bidirectional must be true or false"),
    ],
)
def test_values_of_the_wrong_type_are_refused_by_name(overrides, message):
    with pytest.raises(ValueError, match=message):
        ExperimentSpec("sine", "lstm").with_overrides(overrides).resolved()
