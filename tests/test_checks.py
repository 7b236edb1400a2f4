"""Ranges of numeric options: declared once for every option, enforced with messages that name it."""

import dataclasses

import pytest

from seqlab.checks import RANGES, Range, option_range, resolve_against_defaults, shown
from seqlab.data import list_datasets, load_dataset
from seqlab.models import list_architectures
from seqlab.training import ExperimentSpec

SPEC_NUMBERS = ("epochs", "batch_size", "learning_rate", "clip_norm", "clip_value", "early_stopping", "seed")


def _numeric(defaults: dict) -> list[str]:
    return [k for k, v in defaults.items() if isinstance(v, (int, float)) and not isinstance(v, bool)]


def test_every_numeric_option_has_a_range_that_holds_its_default():
    owners = [(d.name, d.defaults, d.ranges) for d in list_datasets()]
    owners += [(a.name, a.defaults, a.ranges) for a in list_architectures()]
    for owner, defaults, ranges in owners:
        for name in _numeric(defaults):
            found = option_range(name, ranges)
            assert found is not None, f"{owner}: option {name!r} has no range"
            low, high = found.bounds()
            assert low <= defaults[name] <= high, f"{owner}: default {name}={defaults[name]} outside {low, high}"
            assert type(found.low) is type(found.high) is type(defaults[name]), f"{owner}: {name} bounds' type"


def test_every_numeric_spec_field_has_a_range():
    fields = {f.name: f.default for f in dataclasses.fields(ExperimentSpec)}
    for name in SPEC_NUMBERS:
        low, high = RANGES[name].bounds()
        assert low <= (fields[name] if fields[name] is not None else low) <= high


def test_an_owner_range_overrides_the_shared_one():
    esn = next(a for a in list_architectures() if a.name == "esn")
    assert option_range("units", esn.ranges).high == 2000
    assert option_range("units").high == 1024


@pytest.mark.parametrize(
    "value, message",
    [
        (0, r"units must lie in \[1, 64\] for model 'x', got 0"),
        (65, r"units must lie in \[1, 64\]"),
        (float("nan"), "units must be a finite number for model 'x', got nan"),
        (float("-inf"), "units must be a finite number"),
        (10**400, r"got 10000000000.*\.\.\.\."),
        ("8", "units must be a number for model 'x', got '8'"),
        (True, "must be a number"),
    ],
)
def test_range_refuses_with_the_bounds(value, message):
    with pytest.raises(ValueError, match=message):
        Range(1, 64).check("units", value, "model 'x'")


def test_a_server_limit_lowers_the_bound_and_is_named(monkeypatch):
    monkeypatch.setenv("SEQLAB_MAX_EPOCHS", "30")
    assert RANGES["epochs"].bounds() == (1, 30)
    message = r"epochs must be at most 30 \(the server's limit: SEQLAB_MAX_EPOCHS or max_epochs in the SEQLAB_CONFIG file\)"
    with pytest.raises(ValueError, match=message + ", got 31"):
        RANGES["epochs"].check("epochs", 31)
    monkeypatch.setenv("SEQLAB_MAX_EPOCHS", str(10**9))  # a limit above the range leaves the range
    assert RANGES["epochs"].bounds() == (1, 100_000)


@pytest.mark.parametrize(
    "options, message",
    [
        ([1, 2], "options of model 'x' must be a mapping"),
        ("units=3", "options of model 'x' must be a mapping"),
        ({"units": [3]}, "units must be an integer for model 'x', got \\[3\\]"),
        ({"units": {"a": 1}}, "units must be an integer"),
        ({"name": ["lstm"]}, "name must be text"),
        ({"rate": {}}, "rate must be a number"),
        ({"on": [True]}, "on must be true or false"),
        ({1: 3}, r"Unknown option\(s\) \['1'\]"),
    ],
)
def test_structured_values_are_refused(options, message):
    defaults = {"units": 8, "name": "a", "rate": 0.5, "on": False}
    with pytest.raises(ValueError, match=message):
        resolve_against_defaults("model 'x'", defaults, options, {"rate": Range(0.0, 1.0)})


def test_a_default_beyond_a_server_limit_is_refused(monkeypatch):
    monkeypatch.setenv("SEQLAB_MAX_SEQUENCE_LENGTH", "64")
    with pytest.raises(ValueError, match="lookback must be at most 64"):
        load_dataset("energy")  # its default lookback is 96


def test_registry_listings_carry_the_ranges():
    sine = next(d for d in list_datasets() if d.name == "sine").as_dict()
    assert sine["ranges"]["lookback"] == [1, 2000] and sine["ranges"]["length"] == [10, 1_000_000]
    lstm = next(a for a in list_architectures() if a.name == "lstm").as_dict()
    assert lstm["ranges"] == {"units": [1, 1024], "layers": [1, 8], "dropout": [0.0, 0.9]}


def test_shown_cuts_long_values():
    assert shown("x" * 100).endswith("...") and len(shown("x" * 100)) == 60
    assert shown([1]) == "[1]"
