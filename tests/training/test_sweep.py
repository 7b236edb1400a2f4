"""A sweep's grid: its points, their names, and the leaderboard's order."""

import pytest

from seqlab.training import ExperimentSpec
from seqlab.training.sweep import grid_specs, leaderboard, parse_grid


def test_every_point_of_the_grid_is_a_checked_spec_named_by_what_varies():
    grid = parse_grid(["units=16,32", "learning_rate=1e-3,3e-3", "layers=1"])
    assert grid == {"units": [16, 32], "learning_rate": [1e-3, 3e-3], "layers": [1]}
    points = grid_specs(ExperimentSpec("sine", "gru"), grid, {"epochs": 3})
    assert [name for _, name in points] == ["units=16, learning_rate=0.001", "units=16, learning_rate=0.003",
                                            "units=32, learning_rate=0.001", "units=32, learning_rate=0.003"]
    spec = points[3][0]
    assert (spec.model_options["units"], spec.learning_rate, spec.epochs) == (32, 3e-3, 3)
    assert spec.model_options["layers"] == 1


def test_a_bad_grid_is_refused_with_its_reason():
    with pytest.raises(ValueError, match="--grid expects KEY=V1,V2"):
        parse_grid(["units"])
    with pytest.raises(ValueError, match="given twice"):
        parse_grid(["units=16", "units=32"])
    with pytest.raises(ValueError, match="Unknown setting 'unit'"):
        grid_specs(ExperimentSpec("sine", "gru"), {"unit": [16]})
    with pytest.raises(ValueError, match="more than 64"):
        grid_specs(ExperimentSpec("sine", "gru"), {"units": list(range(1, 10)), "layers": list(range(1, 9))})


def test_the_leaderboard_puts_the_best_headline_metric_first_and_failures_last():
    errors = [{"name": "a", "metrics": {"mae": 0.5}}, {"name": "failed", "metrics": {}},
              {"name": "b", "metrics": {"mae": 0.2}}]
    assert [r["name"] for r in leaderboard(errors, "forecast")] == ["b", "a", "failed"]
    accuracies = [{"name": "a", "metrics": {"accuracy": 0.7}}, {"name": "b", "metrics": {"accuracy": 0.9}}]
    assert [r["name"] for r in leaderboard(accuracies, "classify")] == ["b", "a"]  # higher is better
