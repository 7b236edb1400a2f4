"""The recurrent lessons' claims: measured on a tiny trained run, worded by their figures both ways."""

import numpy as np
import pytest

from seqlab.inspect import trace
from seqlab.lessons import LESSONS
from seqlab.lessons.measures import run_data
from seqlab.lessons.recurrent import _carried, _gate_at_marks, _test_error, steady_stretch
from seqlab.runs import RunStore
from seqlab.training import ExperimentSpec, run_experiment


@pytest.fixture(scope="module")
def lstm_run(tmp_path_factory):
    spec = ExperimentSpec("adding", "lstm", data_options={"length_T": 12, "samples": 200},
                          model_options={"units": 4}, epochs=1, batch_size=32)
    return run_experiment(spec, store=RunStore(tmp_path_factory.mktemp("adding_runs")), savedmodel=False)


def test_the_carried_claim_reads_the_first_test_sequence_of_its_run(lstm_run):
    figures = _carried("lstm", "c").measure([lstm_run])
    x = np.asarray(run_data(lstm_run).splits["test"].x[0], dtype="float32")
    marked = list(np.flatnonzero(x[:, -1] > 0.5) + 1)
    assert figures["marks"] == marked[:2] and figures["units"] == 4
    c = trace(lstm_run.load_model(), x).cells[0].arrays["c"]
    first = marked[0] - 1
    moved = np.abs(c[first] - (c[first - 1] if first else 0))
    assert figures["at_marks"][0] == pytest.approx(moved.mean(), rel=1e-5)
    assert figures["write"] == pytest.approx(moved.max(), rel=1e-5)
    between = c[first : marked[1] - 1]
    ranges = between.max(axis=0) - between.min(axis=0)
    assert figures["ranges"] == pytest.approx(sorted(ranges, reverse=True)[:2], rel=1e-5)
    for unit, (start, end, change) in zip(figures["moving"], figures["stretches"]):
        assert marked[0] <= start <= end < marked[1] and change == pytest.approx(c[end - 1, unit] - c[start - 1, unit])
        steps = np.diff(c[start - 1 : end, unit])
        assert np.all(steps >= 0) or np.all(steps <= 0)  # one way all along


def test_the_steadiest_stretch_is_the_longest_one_way():
    assert steady_stretch(np.array([0.0, 0.1, 0.3, 0.2, 0.4, 0.5, 0.7, 0.9, 0.8])) == (3, 7)
    assert steady_stretch(np.array([1.0, 0.5, 0.2, 0.3])) == (0, 2)


CARRIED = {"marks": [1, 30], "units": 32, "at_marks": [0.15, 0.11], "between": 0.018, "moving": [12, 30],
           "write": 0.9}


def test_written_once_and_carried_is_said_only_when_no_unit_moves_as_much_as_half_the_write():
    claim = _carried("lstm", "c")
    still = {**CARRIED, "ranges": [0.1, 0.05], "stretches": [[2, 9, 0.1], [3, 5, 0.02]]}
    assert claim.holds(still) and claim.say(still).endswith("the value is written once and carried.")
    drifting = {**CARRIED, "ranges": [1.6, 0.98], "stretches": [[1, 18, 1.2], [12, 14, -0.3]]}
    said = claim.say(drifting)
    assert not claim.holds(drifting) and "written once and carried." not in said
    assert "not simply written once and carried" in said
    assert "unit 12 drifts steadily from step 1 to step 18 (by +1.2)" in said
    assert "unit 30 moves back and forth (by up to 0.98)" in said


def test_the_test_error_and_gate_claims_word_what_their_figures_show(lstm_run):
    error = _test_error("lstm")
    figures = error.measure([lstm_run])
    assert figures["mse"] == lstm_run.metrics["model"]["mse"] and figures["epochs"] == 1
    assert error.say({"epochs": 10, "mse": 0.0018, "mean": 0.183}).endswith("(always guessing the training mean: "
                                                                           "0.183).")
    assert "not learned the task yet" in error.say({"epochs": 1, "mse": 0.17, "mean": 0.183})
    gate = _gate_at_marks("lstm", "i", opens=True, sequences=3)
    measured = gate.measure([lstm_run])
    assert measured["sequences"] == 3 and 0 < measured["at_marks"] < 1 and 0 < measured["elsewhere"] < 1
    higher, lower = {"sequences": 20, "at_marks": 0.52, "elsewhere": 0.37}, {"sequences": 20, "at_marks": 0.3,
                                                                              "elsewhere": 0.37}
    assert gate.holds(higher) and "input gate is higher at the marks (mean 0.52)" in gate.say(higher)
    assert not gate.holds(lower) and "is lower at the marks (mean 0.30) than elsewhere (0.37): it does not" in gate.say(
        lower)
    update = _gate_at_marks("gru", "z", opens=False)
    assert update.holds(lower) and update.say(lower).endswith("lower at the marks (mean 0.30) than elsewhere (0.37): "
                                                              "it lets the candidate in where a value must be written.")


def test_the_lesson_writes_its_notice_from_its_runs_and_says_which_run_is_missing(lstm_run):
    lesson = LESSONS.get("lstm-gates")
    assert [m.claim for m in lesson.measured([lstm_run])] == [c.name for c in lesson.claims]
    notice = lesson.notice_from([lstm_run])
    assert notice.startswith("After 1 epoch the test MSE is") and "Over the first 20 test sequences" in notice
    assert lesson.notice_from([]).count("not measured, the lstm run did not finish") == len(lesson.claims)
