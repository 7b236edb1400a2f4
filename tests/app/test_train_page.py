"""Train page: a tiny job end to end, Cancel, a page switch during training, a bad setting."""

from streamlit.testing.v1 import AppTest

from seqlab.checks import RANGES, option_range
from seqlab.data import get_dataset
from seqlab.models import get_architecture
from tests.app.conftest import all_done, jobs, run_until, texts


def _choose(at, dataset="sine", model="gru", epochs=1, units=8):
    at.selectbox(key="train.dataset").set_value(dataset).run()
    at.selectbox(key="train.model.forecast").set_value(model).run()
    at.number_input(key=f"train.arch.{model}.units").set_value(units).run()
    at.number_input(key="train.fit.epochs").set_value(epochs).run()
    return at


def test_train_sine_then_see_result_and_models_entry(open_page):
    at = _choose(open_page("pages/train.py"))
    at.button(key="train.submit").click().run()
    assert not at.exception
    assert len(jobs(at)) == 1

    # Switch pages while it trains: the job goes on, the sidebar follows it.
    at.switch_page("pages/data.py").run()
    run_until(at, all_done).run()
    job = jobs(at)[0]
    assert job.status == "completed", job.error

    at.switch_page("pages/train.py").run()
    assert not at.exception and not at.error
    assert "Saved as run" in texts(at.success)
    assert at.get("plotly_chart"), "the forecast-versus-actual figure"
    metrics = at.dataframe[0].value
    # sine has no unit, and crosses zero: no MAPE
    assert list(metrics.columns) == ["MAE", "RMSE", "sMAPE (%)", "MASE"]
    assert any("Error by horizon step" in chart.proto.spec for chart in at.get("plotly_chart"))
    assert any(label.startswith("Seasonal naive") for label in metrics.index)
    assert "Test MAE" in [m.label for m in at.metric]

    at.switch_page("pages/models.py").run()
    assert not at.exception
    assert at.selectbox(key="models.run").value == job.run.run_id  # newest first
    assert job.run.run_id in at.dataframe[0].value["run"].tolist()


def test_cancel_stops_a_running_job(open_page):
    at = _choose(open_page("pages/train.py"), epochs=200)
    at.button(key="train.submit").click().run()
    job = jobs(at)[0]
    run_until(at, lambda _: any(e["type"] == "batch" for e in job.events_since(0)))
    at.run()
    # Live, beside the loss: the gradient norm of every batch.
    assert any("Gradient norm while training" in chart.proto.spec for chart in at.get("plotly_chart"))
    at.button(key=f"live.cancel.{job.job_id}").click().run()
    run_until(at, all_done).run()
    assert job.status == "cancelled"
    assert job.run is not None and job.run.meta.epochs_run < 200
    at.run()
    assert not at.exception
    assert "Cancelled after" in texts(at.warning)


def test_bad_setting_is_an_error_not_a_traceback(open_page):
    at = _choose(open_page("pages/train.py"))
    at.number_input(key="train.data.sine.lookback").set_value(1500).run()  # within bounds, longer than a split
    assert not at.exception
    assert "cannot be trained" in texts(at.error)
    assert at.button(key="train.submit").disabled


def test_a_store_no_run_could_be_written_to_is_said_before_training(open_page, runs_dir, monkeypatch):
    (runs_dir.parent / "a_file").write_text("not a folder")
    monkeypatch.setenv("SEQLAB_RUNS_DIR", str(runs_dir.parent / "a_file" / "runs"))
    at = _choose(open_page("pages/train.py"))
    assert not at.exception
    assert "cannot be made below" in texts(at.error) and "a_file" in texts(at.error)
    assert at.button(key="train.submit").disabled


def test_second_job_queues_behind_the_first(open_page):
    at = _choose(open_page("pages/train.py"), epochs=200)
    at.button(key="train.submit").click().run()
    assert at.button(key="train.submit").label == "Queue training"
    at.button(key="train.submit").click().run()
    first, second = jobs(at)
    assert second.status == "queued"
    assert "Queued (1)" in texts(at.markdown)
    at.button(key=f"live.remove.{second.job_id}").click().run()
    run_until(at, lambda _: first.status == "running")
    at.button(key=f"live.cancel.{first.job_id}").click().run()
    run_until(at, all_done).run()
    assert (first.status, second.status) == ("cancelled", "cancelled")
    assert second.run is None  # removed from the queue before it started
    assert not at.exception


def test_the_lecture_example_opens_the_page(open_page):
    at = open_page("pages/train.py")
    assert at.selectbox(key="train.dataset").value == "energy"
    assert at.selectbox(key="train.model.forecast").value == "lstm"
    assert at.selectbox(key="train.model.forecast").options[0].startswith("Elman RNN")  # lecture order


def _expected_bounds(key: str) -> tuple:
    """The library's bounds for the widget with this key (``train.data.NAME.option``, ``train.arch.NAME.option``,
    ``train.fit.option``)."""
    owner, name = key.split(".")[1:-1], key.rsplit(".", 1)[1]
    if owner[0] == "data":
        return option_range(name, get_dataset(owner[1]).ranges).bounds()
    if owner[0] == "arch":
        return option_range(name, get_architecture(owner[1]).ranges).bounds()
    if name in ("clip_norm", "clip_value"):
        return 0.0, RANGES[name].bounds()[1]  # 0 = off
    return RANGES["tbptt" if name.startswith("tbptt_") else name].bounds()


def _every_option():
    """Every dataset's and every architecture's options as the Train page draws them, and the training inputs."""
    from seqlab.app.widgets import option_grid, tbptt_inputs, training_inputs
    from seqlab.data import list_datasets
    from seqlab.models import list_architectures

    for info in list_datasets():
        option_grid(info.defaults, f"train.data.{info.name}", choices=info.choices, ranges=info.ranges)
    for arch in list_architectures():
        option_grid(arch.defaults, f"train.arch.{arch.name}", choices=arch.choices, ranges=arch.ranges)
    training_inputs("train.fit")
    tbptt_inputs("train.fit", 50)


def _server_limits(monkeypatch):
    monkeypatch.setenv("SEQLAB_MAX_EPOCHS", "30")
    monkeypatch.setenv("SEQLAB_MAX_SEQUENCE_LENGTH", "100")


def test_every_number_input_has_the_library_bounds(monkeypatch):
    _server_limits(monkeypatch)
    at = AppTest.from_function(_every_option, default_timeout=60)
    at.session_state["train.fit.tbptt"] = True
    at.run()
    assert not at.exception
    seen = {}
    for widget in at.number_input:
        assert (widget.min, widget.max) == _expected_bounds(widget.key), widget.key
        seen[widget.key.rsplit(".", 1)[1]] = widget.max
    assert seen["epochs"] == 30 and seen["lookback"] == 100 and seen["length_T"] == 100  # the server's limits
    assert seen["tbptt_k2"] == 100 and seen["units"] in (1024, 2000) and seen["spectral_radius"] == 10.0
    assert {"batch_size", "learning_rate", "clip_norm", "seed", "stride", "samples", "dropout", "ridge"} <= set(seen)


def test_the_train_page_draws_its_options_with_those_widgets(open_page, monkeypatch):
    _server_limits(monkeypatch)
    monkeypatch.setattr("seqlab.app.cache.parameters", lambda *args: 1)  # bounds only: no model built
    at = open_page("pages/train.py")
    at.toggle(key="train.fit.tbptt").set_value(True).run()
    for dataset, task, model in (("energy", "forecast", "lstm"), ("movie_sentiment", "classify", "transformer")):
        at.selectbox(key="train.dataset").set_value(dataset).run()
        at.selectbox(key=f"train.model.{task}").set_value(model).run()
        assert not at.exception
        keys = {w.key for w in at.number_input}
        assert any(k.startswith(f"train.data.{dataset}.") for k in keys)
        assert any(k.startswith(f"train.arch.{model}.") for k in keys)
        for widget in at.number_input:
            assert (widget.min, widget.max) == _expected_bounds(widget.key), widget.key
    assert at.number_input(key="train.fit.epochs").max == 30


TRAIN = "pages/train.py"


def _home(at):
    """The Home page with the sidebar (AppTest's switch_page runs a page without the entry script's sidebar)."""
    return at.switch_page("streamlit_app.py").run()


def test_two_sessions_keep_their_own_jobs_and_share_the_slots(open_page, monkeypatch):
    monkeypatch.setenv("SEQLAB_MAX_JOBS", "1")
    alice = _choose(open_page("pages/train.py"), epochs=200)
    bob = _choose(open_page("pages/train.py"), model="lstm", epochs=1)
    alice.button(key="train.submit").click().run()
    first = jobs(alice)[0]
    run_until(alice, lambda _: any(e["type"] == "batch" for e in first.events_since(0)))

    # Bob's job waits for the one training slot, visibly, and can leave the queue.
    bob.button(key="train.submit").click().run()
    waiting = jobs(bob)[0]
    run_until(bob, lambda _: waiting.position == 1)
    bar = "waiting for a free training slot: number 1 in line"
    assert bar in "".join(p.text for p in _home(bob).sidebar.get("progress"))
    bob.switch_page(TRAIN).run()
    assert bar in "".join(p.text for p in bob.main.get("progress"))
    assert bob.button(key=f"live.cancel.{waiting.job_id}").label == "Cancel waiting"
    bob.button(key=f"live.cancel.{waiting.job_id}").click().run()
    run_until(bob, all_done).run()
    assert waiting.status == "cancelled" and waiting.run is None
    assert "cancelled before it started" in texts(bob.warning)

    bob.button(key="train.submit").click().run()
    second = jobs(bob)[1]
    run_until(bob, lambda _: second.status == "waiting")
    # Each session sees only its own jobs, in the sidebar and on the page.
    alice.run()
    assert f"Job {second.job_id}:" not in texts(alice.main.subheader)
    assert f"Job {first.job_id}:" not in texts(bob.main.subheader)
    assert f"Job {first.job_id}:" in texts(_home(alice).sidebar.markdown)
    assert f"Job {second.job_id}:" not in texts(alice.sidebar.markdown)
    assert f"Job {second.job_id}:" in texts(_home(bob).sidebar.markdown)
    assert f"Job {first.job_id}:" not in texts(bob.sidebar.markdown)
    assert [j.job_id for j in jobs(alice)] == [first.job_id]
    alice.switch_page(TRAIN).run()
    bob.switch_page(TRAIN).run()

    alice.button(key=f"live.cancel.{first.job_id}").click().run()
    run_until(bob, all_done).run()
    run_until(alice, all_done).run()
    assert (first.status, second.status) == ("cancelled", "completed")
    alice.run()
    bob.run()
    assert not alice.exception and not bob.exception
    assert "Cancelled after" in texts(alice.warning) and not alice.success
    assert f"Saved as run `{second.run.run_id}`" in texts(bob.success)
    assert second.run.run_id not in texts(alice.markdown) + texts(alice.success) + texts(alice.warning)


def test_a_diverged_run_is_shown_with_advice(open_page):
    at = _choose(open_page("pages/train.py"), epochs=50)
    at.selectbox(key="train.fit.optimizer").set_value("sgd").run()
    at.number_input(key="train.fit.learning_rate").set_value(10.0).run()
    at.number_input(key="train.fit.batch_size").set_value(8).run()
    at.button(key="train.submit").click().run()
    run_until(at, all_done).run()
    job = jobs(at)[0]
    assert job.status == "diverged", job.error
    at.run()
    assert not at.exception and not at.error
    warning = texts(at.warning)
    assert "Training diverged in epoch" in warning and "Lower the learning rate (now 10" in warning
    assert "clip gradients" in warning and not at.success


def test_a_limit_below_a_default_lowers_the_input(open_page, monkeypatch):
    monkeypatch.setenv("SEQLAB_MAX_SEQUENCE_LENGTH", "64")
    at = open_page("pages/train.py")  # energy: its default lookback is 96
    assert not at.exception and not at.error
    lookback = at.number_input(key="train.data.energy.lookback")
    assert (lookback.value, lookback.max) == (64, 64)
    assert not at.button(key="train.submit").disabled


def test_weights_and_time_are_told_before_training_and_a_changed_form_hides_the_old_result(open_page):
    at = _choose(open_page("pages/train.py"))
    captions = texts(at.caption)
    assert "weights**" in captions and "no time estimate yet" in captions
    at.button(key="train.submit").click().run()
    run_until(at, all_done).run()
    job = jobs(at)[0]
    at.run()
    assert "Saved as run" in texts(at.success)
    # The same setting again: the time is estimated at the finished run's rate.
    assert f"at the rate of run `{job.run.run_id}`" in texts(at.caption)
    # Another setting: the finished result is only named, the estimate is gone.
    at.number_input(key="train.arch.gru.units").set_value(9).run()
    assert not at.exception
    assert "Saved as run" not in texts(at.success)
    assert "was trained with other settings" in texts(at.info)
    assert "no time estimate yet" in texts(at.caption)
    at.number_input(key="train.arch.gru.units").set_value(8).run()
    assert "Saved as run" in texts(at.success)


def test_merge_mode_is_shown_only_for_a_bidirectional_model(open_page):
    at = _choose(open_page("pages/train.py"))
    keys = [w.key for w in at.selectbox]
    assert "train.arch.gru.merge_mode" not in keys
    at.toggle(key="train.arch.gru.bidirectional").set_value(True).run()
    assert "train.arch.gru.merge_mode" in [w.key for w in at.selectbox]


def test_a_link_opens_the_same_settings(runs_dir):
    """The settings are bound to the URL's query parameters (the browser writes them): a shared link opens them."""
    from tests.app.conftest import APP

    shared = AppTest.from_file(str(APP), default_timeout=120)
    shared.run()
    shared.switch_page("pages/train.py")
    sine = get_dataset("sine")
    # A select box's parameter is the option as shown (the browser writes what it shows).
    shared.query_params.update({"train.dataset": f"sine: {sine.title}", "train.model.forecast": "GRU",
                                "train.arch.gru.units": "12", "train.fit.epochs": "3", "train.tab": "Model"})
    shared.run()
    assert not shared.exception
    assert shared.selectbox(key="train.dataset").value == "sine"
    assert shared.selectbox(key="train.model.forecast").value == "gru"
    assert shared.number_input(key="train.arch.gru.units").value == 12
    assert shared.number_input(key="train.fit.epochs").value == 3


def test_a_dataset_past_the_servers_work_limit_is_said_before_training(open_page, monkeypatch):
    monkeypatch.setenv("SEQLAB_MAX_WORK_SECONDS", "1")  # numbers_en_de's 10,000 numbers: about 3 s to write out
    at = open_page("pages/train.py")
    at.selectbox(key="train.dataset").set_value("numbers_en_de").run()
    assert not at.exception
    assert "cannot be trained: Writing out 10,000 numbers" in texts(at.error)
    assert "SEQLAB_MAX_WORK_SECONDS" in texts(at.error)
    assert at.button(key="train.submit").disabled
