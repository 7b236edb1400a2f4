import json

import pytest

from seqlab.training import run_experiment
from seqlab.lessons import all_presets, get_preset
from seqlab.training.presets import PRESETS


def test_every_preset_resolves_and_serialises():
    assert {"adding-elman-vs-gates", "esn-mackey-glass"} <= set(PRESETS)
    for preset in PRESETS.values():
        assert preset.title and preset.description and preset.specs
        for spec in preset.specs:
            spec.resolved()
        json.dumps(preset.as_dict())
    with pytest.raises(ValueError, match="valid presets: adding-elman-vs-gates"):
        get_preset("nope")


def test_a_presets_runs_are_named_by_the_preset_and_what_sets_each_apart():
    from seqlab.run_name import check_name

    assert get_preset("positional-encoding").run_names() == [
        "positional-encoding · positions=none", "positional-encoding · positions=sinusoidal"]
    # Only the model differs (the model's title tells them apart): the preset's name alone.
    assert get_preset("adding-elman-vs-gates").run_names() == ["adding-elman-vs-gates"] * 3
    # Options are compared within one model: the GRU beside two ARX runs is named by the preset only.
    assert get_preset("energy-day-ahead").run_names() == [
        "energy-day-ahead · known_future=True", "energy-day-ahead · known_future=False", "energy-day-ahead"]
    for preset in all_presets().values():
        names = preset.run_names()
        assert len(names) == len(preset.specs) and all(check_name(n) == n for n in names)
        runs = [(spec.model, name) for spec, name in zip(preset.specs, names)]
        assert len(set(runs)) == len(runs), f"{preset.name}: two runs of one model with one name"


def test_the_tuned_echo_state_network_forecasts_mackey_glass(runs_dir):
    run = run_experiment(get_preset("esn-mackey-glass").specs[0], savedmodel=False)
    assert run.metrics["model"]["rmse"] < 0.01 * run.metrics["baselines"]["naive"]["rmse"]


@pytest.mark.slow  # three runs of 12 epochs: about 30 s on 2 cores
def test_the_elman_rnn_fails_the_adding_problem_where_lstm_and_gru_succeed(runs_dir):
    mse = {}
    for spec in get_preset("adding-elman-vs-gates").specs:
        run = run_experiment(spec, savedmodel=False)
        mse[spec.model] = run.metrics["model"]["mse"] / run.metrics["baselines"]["mean"]["mse"]
    assert mse["simple_rnn"] > 0.8  # no better than predicting the mean
    assert mse["lstm"] < 0.05 and mse["gru"] < 0.05


def test_the_gpt_preset_is_nanogpts_cpu_network_at_twice_its_rate():
    [spec] = get_preset("gpt-shakespeare").specs
    spec = spec.resolved()
    assert spec.model_options["layers"] == spec.model_options["heads"] == 4 and spec.model_options["width"] == 128
    assert spec.data_options["lookback"] == 64 and spec.data_options["embedding_dim"] == 128
    assert (spec.batch_size, spec.steps, spec.learning_rate, spec.optimizer) == (12, 1500, 2e-3, "adamw")
    assert spec.schedule == "cosine" and spec.warmup_steps == 100 and spec.model_options["dropout"] == 0.0
