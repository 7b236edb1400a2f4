"""Skill over a baseline follows each metric's declared direction: a run that beats its baseline shows a gain on
every metric any task reports, in the dashboard's tables and the CLI's ``runs`` alike; accuracies in %."""

import subprocess
import sys

import pytest

from seqlab.app.format import best_baseline, metric_value, skill
from seqlab.tasks import METRICS, get_metric, list_tasks
from tests.cli_store import copy_run

# Written out here, not read from the metrics: a metric added to a task must be added here, with its direction.
HIGHER_IS_BETTER = {"accuracy", "macro_f1", "exact_match", "token_accuracy", "bleu", "chrf", "mlm_accuracy",
                    "mlm_top5_accuracy", "nsp_accuracy"}
LOWER_IS_BETTER = {"mae", "rmse", "mse", "mape", "smape", "mase", "cross_entropy", "perplexity", "bits_per_character"}
REPORTED = sorted({m.key for task in list_tasks() for m in task.test_metrics} | set(METRICS))


def test_every_reported_metric_has_its_direction_written_here():
    assert set(REPORTED) == HIGHER_IS_BETTER | LOWER_IS_BETTER and not HIGHER_IS_BETTER & LOWER_IS_BETTER


@pytest.mark.parametrize("key", REPORTED)
def test_beating_the_baseline_is_a_positive_skill_on_every_metric(key):
    worse, better = (0.4, 0.6) if key in HIGHER_IS_BETTER else (0.6, 0.4)
    won = {"model": {key: better}, "baselines": {"weak": {key: worse / 2 if key in HIGHER_IS_BETTER else worse * 2},
                                                 "strong": {key: worse}}}
    assert best_baseline(won, key) == ("strong", {key: worse})  # the best baseline is the one hardest to beat
    assert skill(won, key) > 0
    lost = {"model": {key: worse}, "baselines": {"strong": {key: better}}}
    assert skill(lost, key) < 0


@pytest.mark.parametrize("key", sorted(k for k in REPORTED if "accuracy" in k or k in {"macro_f1", "exact_match"}))
def test_accuracies_read_as_percentages_and_their_skill_as_points(key):
    metrics = {"model": {key: 0.095}, "baselines": {"unigram": {key: 0.058}}}
    assert get_metric(key).unit == "%" and metric_value(key, 0.095) == pytest.approx(9.5)
    assert skill(metrics, key) == pytest.approx(3.7)


def test_a_fresh_process_reads_a_tasks_own_metric_with_its_direction():
    # No task asked about yet: the masked-LM task's metrics are registered only once its module loads.
    script = ("from seqlab.tasks import get_metric; m = get_metric('mlm_accuracy'); "
              "print(m.higher_is_better, round(m.display(0.095), 1))")
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.split() == ["True", "9.5"]  # not an unknown key's lower-is-better 0.095


def test_bert_against_the_unigram_is_a_gain_in_the_runs_table_and_the_cli(trained_run, tmp_path):
    from seqlab.app.run_table import runs_table
    from seqlab.cli import skill_text

    bert = copy_run(tmp_path, trained_run, "bert", meta={"task": "masked_lm"}, metrics={
        "model": {"mlm_accuracy": 0.095, "mlm_top5_accuracy": 0.2, "nsp_accuracy": 0.6},
        "baselines": {"unigram_and_majority": {"mlm_accuracy": 0.058, "mlm_top5_accuracy": 0.15, "nsp_accuracy": 0.5}}})
    row = runs_table([bert]).iloc[0]
    assert row["metric"] == "masked-LM accuracy (%)" and (row["test"], row["best baseline"]) == pytest.approx((9.5, 5.8))
    assert row["skill"] == pytest.approx(3.7)
    assert skill_text(bert) == "  skill +3.7 points over unigram_and_majority"
    mae = copy_run(tmp_path, trained_run, "mae", metrics={"model": {"mae": 0.2}, "baselines": {"naive": {"mae": 0.25}}})
    assert skill_text(mae) == "  skill +20.0 % over naive"
