"""Generate page: samples coloured by probability, two runs compared, unknown prompts refused."""

import pytest

from tests.app.conftest import texts
from tests.app.test_text_classes_pages import copy_run


@pytest.fixture(scope="module")
def trained_language_runs(tmp_path_factory):
    from tests.language_run import train_language_run

    root = tmp_path_factory.mktemp("language_runs")
    return train_language_run(root, "lstm"), train_language_run(root, "gru")


@pytest.fixture
def language_runs(runs_dir, trained_language_runs):
    """The two runs, trained once for the module, copied into this test's run store."""
    for run in trained_language_runs:
        copy_run(runs_dir, run)
    return trained_language_runs


def spans(at) -> list[str]:
    return [h.proto.body for h in at.get("html") if 'title="p = ' in h.proto.body]


def test_without_language_runs_the_page_points_to_train(open_page):
    at = open_page("pages/generate.py")
    assert not at.exception and not at.error
    assert "pydoc" in texts(at.markdown) and "No language runs yet" in texts(at.markdown)


def test_generate_samples_and_compare_two_runs(open_page, language_runs):
    lstm, gru = language_runs
    at = open_page("pages/generate.py")
    assert not at.exception and not at.error
    at.selectbox(key="generate.run").set_value(lstm.run_id).run()
    assert "char tokeniser, vocabulary of" in texts(at.caption)
    at.text_area(key="generate.prompt").set_value("The <b>").run()
    at.number_input(key="generate.tokens").set_value(30).run()
    at.number_input(key="generate.temperature").set_value(1.0).run()
    at.number_input(key="generate.samples").set_value(2).run()
    at.button(key="generate.go").click().run()
    assert not at.exception and not at.error
    first, second = spans(at)
    assert first.count('title="p = ') == 30 and "background:" in first
    assert "&lt;b&gt;" in first and "<b>" not in first.split("title=")[0]  # the prompt is escaped
    assert first != second, "two seeds at temperature 1 draw different samples"
    assert any("probability of the chosen token" in h.proto.body for h in at.get("html")), "the legend"

    at.selectbox(key="generate.compare").set_value(gru.run_id).run()
    at.button(key="generate.go").click().run()
    assert not at.exception and not at.error
    assert len(spans(at)) == 4  # two samples from each run
    headers = [m for m in texts(at.markdown).split("\n") if m.startswith("##### ")]
    assert any(lstm.run_id in h for h in headers) and any(gru.run_id in h for h in headers)

    at.selectbox(key="generate.run").set_value(gru.run_id).run()  # the compared run becomes the main one
    assert not at.exception and gru.run_id not in at.selectbox(key="generate.compare").options


def test_temperature_zero_is_greedy_whatever_the_seed(open_page, language_runs):
    at = open_page("pages/generate.py")
    at.number_input(key="generate.temperature").set_value(0.0).run()
    at.number_input(key="generate.tokens").set_value(20).run()
    at.button(key="generate.go").click().run()
    assert not at.exception and not at.error
    first, second = spans(at)
    assert first == second


def test_a_prompt_of_unknown_characters_is_an_error_not_a_traceback(open_page, language_runs):
    at = open_page("pages/generate.py")
    at.text_area(key="generate.prompt").set_value("☃☃☃").run()
    at.button(key="generate.go").click().run()
    assert not at.exception
    assert "unknown" in texts(at.error) and not spans(at)


def test_a_deeply_nested_tokenizer_is_an_error_not_a_crash(open_page, runs_dir, tiny_language_run):
    copy_run(runs_dir, tiny_language_run)
    folder = runs_dir / tiny_language_run.run_id
    (folder / "manifest.json").unlink()  # written before manifests: listed, and nothing checks its hashes
    (folder / "tokenizer.json").write_text("[" * 100_000 + "]" * 100_000)
    at = open_page("pages/generate.py")
    assert not at.exception
    assert "Cannot read the tokeniser" in texts(at.error) and "nests arrays or objects" in texts(at.error)


def test_each_steps_alternatives_show_in_a_table_a_tap_opens(open_page, language_runs):
    at = open_page("pages/generate.py")
    at.number_input(key="generate.tokens").set_value(12).run()
    at.number_input(key="generate.samples").set_value(1).run()
    at.button(key="generate.go").click().run()
    assert not at.exception and not at.error
    assert [e.label for e in at.expander] == ["Each step's alternatives"]  # a title tooltip never shows on touch
    table = at.expander[0].dataframe[0].value
    assert list(table["step"]) == list(range(1, 13)) and table["p"].between(0, 1).all()
    first = table["most probable there"].iloc[0].split(" · ")
    assert len(first) == 5 and all(float(a.rsplit(" ", 1)[1]) >= 0 for a in first)
    assert f'title="p = {table["p"].iloc[0]:.3f}' in spans(at)[0]  # the table's figures are the tooltips'
