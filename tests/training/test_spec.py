import dataclasses
import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from seqlab.data import list_datasets
from seqlab.models import list_architectures
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
        ({"epochs": -1}, r"epochs must lie in \[1, 1000\], got -1"),
        ({"epochs": 2.0}, "epochs must be an integer, got 2.0"),
        ({"batch_size": 0}, "batch_size"),
        ({"learning_rate": 0}, r"learning_rate must lie in \[1e-08, 100\]"),
        ({"learning_rate": float("nan")}, "learning_rate must be a finite number, got nan"),
        ({"learning_rate": float("inf")}, "learning_rate must be a finite number"),
        ({"clip_norm": -2.0}, "clip_norm"),
        ({"clip_value": 0}, "clip_value must lie in"),
        ({"seed": 2**32}, r"seed must lie in \[0, 4294967295\]"),
        ({"seed": 10**5000}, "seed must lie in .*got an integer of about 5000 digits"),
        ({"early_stopping": -1}, "early_stopping"),
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
        ({"learning_rate": "null"}, "learning_rate must be a number, got None"),
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


@pytest.mark.parametrize(
    "changes, message",
    [
        ({"dataset": ["sine"]}, r"dataset must be a name \(text\), got \['sine'\]"),
        ({"model": {}}, r"model must be a name \(text\), got \{\}"),
        ({"optimizer": [1]}, r"optimizer must be a name \(text\), got \[1\]"),
        ({"optimizer": {}}, "optimizer must be a name"),
        ({"data_options": [1, 2]}, "data_options must be a mapping"),
        ({"model_options": "units=3"}, "model_options must be a mapping"),
        ({"tbptt": {"k1": 1}}, r"tbptt must be \[k1, k2\]"),
        ({"data_options": {"lookback": [12]}}, "lookback must be an integer for dataset 'sine', got \\[12\\]"),
        ({"model_options": {"variant": ["full"]}}, "variant must be text"),
    ],
)
def test_structured_values_where_a_name_or_number_belongs_are_refused(changes, message):
    with pytest.raises(ValueError, match=message):
        ExperimentSpec(**{"dataset": "sine", "model": "lstm", **changes}).resolved()


@pytest.mark.parametrize(
    "overrides, message",
    [
        ({"units": "1e400"}, "units must be an integer"),  # JSON's 1e400 is infinity
        ({"learning_rate": "Infinity"}, "learning_rate must be a finite number"),
        ({"dropout": "NaN"}, "dropout must be a finite number"),
        ({"units": "100000"}, r"units must lie in \[1, 1024\]"),
        ({"layers": "64"}, r"layers must lie in \[1, 8\]"),
        ({"batch_size": "1000000"}, r"batch_size must lie in \[1, 8192\]"),
        ({"stride": "0"}, r"stride must lie in \[1, 100000\]"),
        ({"length": "100000000"}, r"length must lie in \[10, 1000000\]"),
        ({"data.seed": "-1"}, r"seed must lie in \[0, 4294967295\]"),
        ({"epochs": "9" * 5000}, "epochs must be an integer, got '9999"),  # too long for Python's int()
        ({"tbptt": "[1, 100000]"}, "tbptt k2 must be at most 2,000"),
    ],
)
def test_numbers_out_of_range_are_refused_by_name(overrides, message):
    with pytest.raises(ValueError, match=message):
        ExperimentSpec("sine", "lstm").with_overrides(overrides).resolved()


def test_server_limits_bound_epochs_and_sequence_length(monkeypatch):
    monkeypatch.setenv("SEQLAB_MAX_EPOCHS", "5")
    monkeypatch.setenv("SEQLAB_MAX_SEQUENCE_LENGTH", "40")
    assert ExperimentSpec("sine", "lstm", epochs=5, data_options={"lookback": 40}).resolved()
    with pytest.raises(ValueError, match=r"epochs must be at most 5 \(the server's limit: SEQLAB_MAX_EPOCHS"):
        ExperimentSpec("sine", "lstm", epochs=6, data_options={"lookback": 40}).resolved()
    with pytest.raises(ValueError, match="lookback must be at most 40 for dataset 'sine'.*SEQLAB_MAX_SEQUENCE_LENGTH"):
        ExperimentSpec("sine", "lstm", epochs=5).resolved()  # the default lookback, 50
    with pytest.raises(ValueError, match="length_T must be at most 40"):
        ExperimentSpec("adding", "lstm", epochs=5).resolved()  # T = 50


def test_from_dict_refuses_what_is_not_a_spec():
    for value in ([], "spec", None, {"model": "lstm"}, {1: 2}):
        with pytest.raises(ValueError, match="spec"):
            ExperimentSpec.from_dict(value)


FIELDS = [f.name for f in dataclasses.fields(ExperimentSpec)]
OPTION_NAMES = sorted(
    {k for d in list_datasets() for k in d.defaults} | {k for a in list_architectures() for k in a.defaults}
)
json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=8)
    | st.sampled_from(["sine", "lstm", "adam", "energy", "esn", "copy"]),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=6) | st.sampled_from(OPTION_NAMES),
                                                                inner, max_size=3),
    max_leaves=6,
)


@settings(max_examples=300, deadline=None)
@given(st.dictionaries(st.sampled_from(FIELDS), json_values, max_size=4))
def test_any_json_value_in_any_field_is_a_spec_or_a_value_error(changes):
    spec = ExperimentSpec(**{"dataset": "sine", "model": "lstm", **changes})
    try:
        spec.resolved()
    except ValueError:
        pass


@settings(max_examples=300, deadline=None)
@given(st.dictionaries(
    st.sampled_from(FIELDS + OPTION_NAMES) | st.text(max_size=10), json_values | st.text(), max_size=4
))
def test_any_override_is_a_spec_or_a_value_error(overrides):
    try:
        ExperimentSpec("sine", "gru").with_overrides(overrides).resolved()
    except ValueError:
        pass


@settings(max_examples=200, deadline=None)
@given(json_values)
def test_any_json_is_a_spec_or_a_value_error(value):
    try:
        ExperimentSpec.from_dict(value).with_overrides({}).resolved()
    except ValueError:
        pass


def test_whole_numbers_for_rates_become_floats():
    spec = ExperimentSpec("sine", "lstm").with_overrides({"learning_rate": "1", "clip_norm": "2", "dropout": "0"})
    resolved = spec.resolved()
    assert type(resolved.learning_rate) is float and type(resolved.clip_norm) is float
    assert type(resolved.model_options["dropout"]) is float


def test_two_names_for_one_option_must_agree():
    # --set val_fraction=0.2 --set data.val_fraction=0.3 (or " units" beside "units") once kept the last silently.
    with pytest.raises(ValueError, match="val_fraction=0.2 and data.val_fraction=0.3 set the same option"):
        ExperimentSpec("sine", "lstm").with_overrides({"val_fraction": "0.2", "data.val_fraction": "0.3"})
    spec = ExperimentSpec("sine", "lstm").with_overrides({"units": "5", "model.units": 5})  # agreeing: fine
    assert spec.model_options == {"units": 5}
