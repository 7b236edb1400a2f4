"""Run names on the dashboard: named on Train, shown in the tables and choosers, renamed on Models."""

import shutil

from tests.app.conftest import all_done, jobs, run_until, texts


def _tiny_sine_mlp(at):
    at.selectbox(key="train.dataset").set_value("sine").run()
    at.selectbox(key="train.model.forecast").set_value("mlp").run()
    at.number_input(key="train.arch.mlp.units").set_value(4).run()
    at.number_input(key="train.fit.epochs").set_value(1).run()
    return at


def test_a_run_named_on_train_carries_its_name_to_models(open_page):
    at = _tiny_sine_mlp(open_page("pages/train.py"))
    at.text_input(key="train.name").input("tiny mlp, lr 1e-3").run()
    at.button(key="train.submit").click().run()
    run_until(at, all_done).run()
    job = jobs(at)[0]
    assert job.status == "completed", job.error
    assert job.run.name == "tiny mlp, lr 1e-3"
    assert "“tiny mlp, lr 1e-3”" in texts(at.subheader)  # the result's title names it

    at.switch_page("pages/models.py").run()
    assert not at.exception
    assert at.dataframe[0].value.loc[0, "name"] == "tiny mlp, lr 1e-3"
    chooser = at.selectbox(key="models.run")
    assert chooser.format_func(chooser.value).startswith("tiny mlp, lr 1e-3  ·  ")


def test_a_bad_name_is_an_error_and_nothing_trains(open_page):
    at = _tiny_sine_mlp(open_page("pages/train.py"))
    at.text_input(key="train.name").input("two\nlines").run()
    at.button(key="train.submit").click().run()
    assert not at.exception
    assert "control characters" in texts(at.error)
    assert not jobs(at)


def test_rename_on_models(open_page, runs_dir, trained_run):
    runs_dir.mkdir(parents=True, exist_ok=True)
    shutil.copytree(trained_run.path, runs_dir / trained_run.run_id)
    run_id = trained_run.run_id
    at = open_page("pages/models.py")
    assert at.dataframe[0].value.loc[0, "name"] == ""  # a run without a name
    at.text_input(key=f"models.name.{run_id}").input("baseline mlp")
    at.button(key=f"models.rename_go.{run_id}").click().run()
    assert not at.exception and not at.error
    assert at.dataframe[0].value.loc[0, "name"] == "baseline mlp"
    assert (runs_dir / run_id / "name.json").is_file()

    at.text_input(key=f"models.name.{run_id}").input("red\x1b[31m")  # the box itself keeps a name short
    at.button(key=f"models.rename_go.{run_id}").click().run()
    assert "control characters" in texts(at.error)
    assert at.dataframe[0].value.loc[0, "name"] == "baseline mlp"  # unchanged

    shutil.copytree(trained_run.path, runs_dir / "another")  # Compare needs two runs
    at.switch_page("pages/compare.py").run()
    assert not at.exception
    chooser = next(m for m in at.multiselect if m.label == "Runs")
    assert chooser.format_func(run_id).startswith("baseline mlp  ·  ")
    assert "baseline mlp" in at.dataframe[0].value["name"].tolist()


def test_a_name_shows_as_typed_inside_markdown():
    from seqlab.app.format import literal

    assert literal("*lr* 1e-3 [x](y) :red[z] $a$ <b>") == r"\*lr\* 1e-3 \[x\](y) \:red\[z\] \$a\$ \<b\>"
