from seqlab.app.catalogue import AVAILABLE
from seqlab.models import list_architectures
from tests.app.broken_runs import add_broken_runs
from tests.app.conftest import texts


def test_home_explains_seqlab_and_marks_trainable_families(open_page):
    at = open_page()
    assert not at.exception
    assert at.title[0].value.startswith("seqlab")
    table = next(m.value for m in at.markdown if m.value.startswith("| Family"))
    available = {row.split("|")[1].strip(" *"): row.split("|")[3].strip() == AVAILABLE for row in table.splitlines()[2:]}
    assert available["LSTM"] and available["GRU"]  # registered architectures
    assert available["BERT"] and available["GPT"] and available["Positional encoding"]
    assert r"$z_t = \sigma(B z_{t-1} + V x_t)$" in table  # the equations render as LaTeX, not raw text
    assert ("Not built yet" in texts(at.markdown)) == (not all(available.values()))
    assert "How to start" in texts(at.header)


def test_every_registered_architecture_is_on_homes_family_list(open_page):
    at = open_page()
    table = next(m.value for m in at.markdown if m.value.startswith("| Family"))
    rows = {cells[1].strip(" *"): cells for cells in (row.split("|") for row in table.splitlines()[2:])}
    for arch in list_architectures():
        assert arch.family in rows, f"{arch.name}'s family {arch.family!r} is not on Home"
        assert arch.title in rows[arch.family][4], f"{arch.name} is not under {arch.family!r} on Home"
        assert arch.teaches in rows[arch.family][2]
    assert "Bag of words" in rows


def test_sidebar_shows_the_device_and_no_job(open_page):
    at = open_page()
    sidebar = texts(at.sidebar.markdown)
    assert "CPU" in sidebar or "GPU" in sidebar
    assert "None running." in sidebar


def test_broken_runs_are_a_warning_not_a_crash(open_page, runs_dir, trained_run):
    names = add_broken_runs(runs_dir, trained_run)
    at = open_page()
    assert not at.exception
    assert f"{len(names)} folder(s) in the run store are not readable runs" in texts(at.warning)
    assert next(m for m in at.metric if m.label == "Saved runs").value == "0"
