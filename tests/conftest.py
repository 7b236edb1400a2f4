"""Shared fixtures: a temporary run store, seeding, and one small trained run."""

import os

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
# One thread per pool in every test process and the processes it starts: two workers, dashboards and CLIs share two
# cores, and pools of two threads each spin against one another (five heavy test files: 147 s before, 142 s after).
for _pool in ("TF_NUM_INTRAOP_THREADS", "TF_NUM_INTEROP_THREADS", "OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS"):
    os.environ.setdefault(_pool, "1")

import keras  # noqa: E402
import pytest  # noqa: E402

pytest_plugins = ["tests.scheduling"]  # the costliest test files first


@pytest.fixture(autouse=True)
def _seed():
    keras.utils.set_random_seed(0)


@pytest.fixture(scope="session", autouse=True)
def seqlab_home(tmp_path_factory):
    """A private $SEQLAB_HOME (the run-signing key) for the whole session, subprocesses included."""
    home = tmp_path_factory.mktemp("seqlab_home")
    os.environ["SEQLAB_HOME"] = str(home)
    return home


@pytest.fixture(scope="session", autouse=True)
def shared_folder(tmp_path_factory):
    """The folder both workers share, where runs trained once a session are kept (``tests.shared_store``)."""
    from tests.shared_store import share_session_folder

    share_session_folder(tmp_path_factory)


@pytest.fixture(scope="session", autouse=True)
def default_limits():
    """The classroom limits at their defaults: a SEQLAB_MAX_*, SEQLAB_CONFIG or SEQLAB_TEACHER_KEY of the shell must
    not leak in."""
    from seqlab.limits import CONFIG_ENV, ENV, TEACHER_KEY_ENV

    for name in (CONFIG_ENV, TEACHER_KEY_ENV, *ENV.values()):
        os.environ.pop(name, None)


@pytest.fixture
def runs_dir(tmp_path, monkeypatch):
    """An empty run store that the code under test finds through the environment."""
    root = tmp_path / "runs"
    monkeypatch.setenv("SEQLAB_RUNS_DIR", str(root))
    return root


@pytest.fixture(scope="session")
def trained_run(tmp_path_factory):
    """One tiny finished run (sine, MLP, 1 epoch), shared by read-only tests."""
    from seqlab.runs import RunStore
    from seqlab.training import ExperimentSpec, run_experiment

    store = RunStore(tmp_path_factory.mktemp("shared_runs"))
    spec = ExperimentSpec("sine", "mlp", model_options={"units": 8, "layers": 1}, epochs=1, batch_size=128)
    return run_experiment(spec, store=store)


@pytest.fixture(scope="session")
def lesson_runs():
    """``lesson_runs(name)``: lesson ``name``'s tiny runs, trained once for the whole session (``tests.lesson_runs``);
    its ``offline()`` is the data cache they were trained on."""
    from tests.lesson_runs import LessonRuns

    return LessonRuns("lessons")


@pytest.fixture(scope="session")
def tiny_language_run(tmp_path_factory):
    """One tiny finished language run (pydoc cut short, LSTM, 1 epoch): a run that keeps a ``tokenizer.json``."""
    from tests.language_run import train_language_run

    return train_language_run(tmp_path_factory.mktemp("shared_language_runs"))
