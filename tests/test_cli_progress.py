import io

from seqlab.cli_progress import ProgressBar


def batch(step, global_step, loss=0.5):
    return {"type": "batch", "epoch": 1, "step": step, "global_step": global_step, "loss": loss, "elapsed": float(global_step)}


def test_bar_draws_the_latest_batch_once_per_update_and_ends_epochs_on_their_own_line():
    stream = io.StringIO()
    bar = ProgressBar(stream)
    seen = bar.update([{"type": "start", "epochs": 2, "steps_per_epoch": 4, "device": "CPU (2 cores)"}], 0)
    seen = bar.update([batch(1, 1), batch(2, 2, loss=0.25)], seen)
    assert seen == 3
    out = stream.getvalue()
    assert "training on CPU (2 cores)" in out
    assert out.count("\r[") == 1 and "25.0%" in out and "loss 0.25" in out  # only the newest batch drawn
    bar.update([{"type": "epoch", "epoch": 1, "loss": 0.3, "val_loss": 0.2}], seen)
    bar.close()
    assert "\nepoch 1/2  loss 0.3  val_loss 0.2\n" in stream.getvalue()


def test_the_evaluation_draws_its_own_bar_and_a_phase_without_progress_its_seconds():
    stream = io.StringIO()
    bar = ProgressBar(stream, clock=lambda: 107.0)
    evaluating = {"type": "status", "phase": "evaluate", "message": "evaluating on the test split", "at": 100.0}
    seen = bar.update([evaluating], 0)
    assert stream.getvalue().endswith("\revaluating on the test split… 7 s")  # redrawn while nothing else comes
    predicting = {"type": "progress", "phase": "evaluate", "message": "predicting the test split", "unit": "sequences",
                  "total": 1562, "elapsed": 2.0}
    seen = bar.update([{**predicting, "done": 0, "eta": None}, {**predicting, "done": 512, "eta": 4.1}], seen)
    out = stream.getvalue()
    assert "evaluating on the test split… 7 s\n" in out  # the phase's line stays, the bar goes below it
    assert out.count("predicting the test split") == 1  # the newest report drawn, once per update
    assert "32.8%  predicting the test split  512/1,562 sequences  ETA    4 s" in out
    bar.update([{"type": "status", "phase": "export", "message": "exporting the TensorFlow SavedModel", "at": 106.0}],
               seen)
    bar.close()
    assert stream.getvalue().endswith("sequences  ETA    4 s\n\rexporting the TensorFlow SavedModel… 1 s\n")


def test_the_first_batch_says_it_compiles_the_training_step_once_it_takes_a_second():
    stream, now = io.StringIO(), [50.0]
    bar = ProgressBar(stream, clock=lambda: now[0])
    bar.update([{"type": "start", "epochs": 1, "steps_per_epoch": 4, "device": "CPU"}], 0)
    assert stream.getvalue() == "training on CPU\n"  # under a second: no line (an error right away stays one line)
    now[0] = 52.0
    bar.update([], 1)
    assert stream.getvalue() == "training on CPU\n\rthe first batch (it also compiles the training step, this once)… 2 s"
