"""No phase of a job is silent: loading, building, training, evaluating (with its own progress) and exporting each
say so in the events; the test split is predicted in chunks that each report, joined as one call would return."""

import threading

import numpy as np

from seqlab.progress import listening, report
from seqlab.tasks.task import EVAL_BATCH_SIZE
from seqlab.training import ExperimentSpec, run_experiment
from seqlab.training.chunked_predictions import PREDICTING, next_chunk, predicted_in_chunks

TINY = dict(model_options={"units": 4}, data_options={"length": 400, "lookback": 12, "horizon": 4}, batch_size=32)


def test_a_run_reports_every_phase_in_order_and_the_evaluations_progress(runs_dir):
    events = []
    run_experiment(ExperimentSpec("sine", "mlp", epochs=1, **TINY), on_event=events.append)
    kinds = [e["type"] for e in events]
    phases = [e["phase"] for e in events if e["type"] == "status"]
    assert phases == ["load", "build", "evaluate", "export", "export"]  # saving the run, then the SavedModel
    built = next(i for i, e in enumerate(events) if e.get("phase") == "build")
    evaluating = next(i for i, e in enumerate(events) if e.get("phase") == "evaluate")
    exporting = next(i for i, e in enumerate(events) if e.get("phase") == "export")
    assert built < kinds.index("start") < kinds.index("batch") and kinds[-1] == "end"
    assert max(i for i, kind in enumerate(kinds) if kind == "epoch") < evaluating < exporting
    progress = [e for e in events[evaluating:exporting] if e["type"] == "progress"]
    assert progress and {e["phase"] for e in progress} == {"evaluate"}
    predicting = [e for e in progress if e["message"] == PREDICTING]
    total = predicting[0]["total"]
    assert [e["done"] for e in predicting][0] == 0 and predicting[-1]["done"] == total > 0
    assert predicting[0]["eta"] is None and predicting[-1]["eta"] == 0.0
    assert all("at" in e for e in events if e["type"] in ("status", "progress"))


def test_the_test_split_predicted_in_chunks_is_what_one_call_returns_and_each_chunk_reports():
    rows = 3 * EVAL_BATCH_SIZE + 17
    inputs = [np.arange(rows * 2, dtype="float32").reshape(rows, 2), np.ones((rows, 3), dtype="float32")]

    shapes = []

    def predict(model, x):  # a task's predict: several inputs in, a dict of outputs out
        shapes.append(len(x[0]))
        return {"sum": x[0].sum(axis=1) + x[1].sum(axis=1), "first": x[0][:, :1] * model}

    reports = []
    with listening(lambda *args: reports.append(args)):
        chunked = predicted_in_chunks(predict, 2.0, inputs)
    assert all(rows % EVAL_BATCH_SIZE == 0 for rows in shapes)  # the last padded: one shape, compiled once
    whole = predict(2.0, inputs)
    assert chunked.keys() == whole.keys()
    for key in whole:
        np.testing.assert_array_equal(chunked[key], whole[key])
    done = [r[1] for r in reports]
    assert reports[0] == (PREDICTING, 0, rows, "sequences") and done[-1] == rows
    assert all(a < b for a, b in zip(done, done[1:]))  # one report after every chunk
    assert all(d % EVAL_BATCH_SIZE == 0 for d in done[:-1]) and done[-1] % EVAL_BATCH_SIZE  # padding not counted


def test_a_chunk_lasts_about_a_second_at_the_rate_of_the_chunk_before():
    assert next_chunk(EVAL_BATCH_SIZE, 10.0) == EVAL_BATCH_SIZE  # slow (the first compiles): one batch
    assert next_chunk(EVAL_BATCH_SIZE, 0.001) == 4 * EVAL_BATCH_SIZE  # fast: at most four times larger
    assert next_chunk(8 * EVAL_BATCH_SIZE, 2.0) == 4 * EVAL_BATCH_SIZE  # 1,024 rows a second


def test_reports_go_to_the_listener_of_their_own_thread_only():
    heard, other = [], []
    report("nobody listens", 1, 2, "steps")  # no listener: nothing happens
    with listening(lambda *args: heard.append(args)):
        thread = threading.Thread(target=lambda: report("another job", 1, 1, "steps"))
        thread.start()
        thread.join()
        with listening(lambda *args: other.append(args)):
            report("inner", 1, 3, "steps")
        report("outer", 2, 3, "steps")
    report("after", 3, 3, "steps")
    assert heard == [("outer", 2, 3, "steps")] and other == [("inner", 1, 3, "steps")]
