"""Train page: a tiny job end to end, Cancel, a page switch during training, a bad setting."""

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
    run_until(at, all_done)
    job = jobs(at)[0]
    assert job.status == "completed", job.error

    at.switch_page("pages/train.py").run()
    assert not at.exception and not at.error
    assert "Saved as run" in texts(at.success)
    assert at.get("plotly_chart"), "the forecast-versus-actual figure"
    metrics = at.dataframe[0].value
    assert list(metrics.columns) == ["MAE", "RMSE", "MAPE (%)"]  # sine has no unit
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
    at.button(key=f"live.cancel.{job.job_id}").click().run()
    run_until(at, all_done)
    assert job.status == "cancelled"
    assert job.run is not None and job.run.meta["epochs_run"] < 200
    at.run()
    assert not at.exception
    assert "Cancelled after" in texts(at.warning)


def test_bad_setting_is_an_error_not_a_traceback(open_page):
    at = _choose(open_page("pages/train.py"))
    at.number_input(key="train.data.sine.lookback").set_value(5000).run()
    assert not at.exception
    assert "cannot be trained" in texts(at.error)
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
    run_until(at, all_done)
    assert (first.status, second.status) == ("cancelled", "cancelled")
    assert second.run is None  # removed from the queue before it started
    assert not at.exception


def test_the_lecture_example_opens_the_page(open_page):
    at = open_page("pages/train.py")
    assert at.selectbox(key="train.dataset").value == "energy"
    assert at.selectbox(key="train.model.forecast").value == "lstm"
    assert at.selectbox(key="train.model.forecast").options[0].startswith("Elman RNN")  # lecture order
