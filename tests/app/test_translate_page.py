"""A translation run end to end: trained through the library, on Models (its translations), on Translate (greedy,
beam, the attention map with local attention's p_t), refused by Inspect with a pointer, and from the CLI."""

import json
import shutil

import pytest

from tests.app.conftest import texts
from tests.test_cli import run_cli

OPTIONS = {"transform": "reverse", "samples": 200, "min_length": 2, "max_length": 5}


@pytest.fixture(scope="module")
def translation_run(tmp_path_factory):
    from seqlab.runs import RunStore
    from seqlab.training import ExperimentSpec, run_experiment

    spec = ExperimentSpec("toy_pairs", "seq2seq", OPTIONS, {"units": 8, "embedding_dim": 8, "attention": "local",
                                                            "predictive": True, "half_width": 1},
                          epochs=1, batch_size=32)  # fmt: skip
    return run_experiment(spec, store=RunStore(tmp_path_factory.mktemp("translation") / "runs"), savedmodel=False)


def copy_run(runs_dir, run):
    runs_dir.mkdir(parents=True, exist_ok=True)
    shutil.copytree(run.path, runs_dir / run.run_id)


def titles(at) -> list[str]:
    return [json.loads(chart.proto.spec)["layout"]["title"]["text"] for chart in at.get("plotly_chart")]


def test_a_run_keeps_its_scores_both_tokenizers_and_its_free_running_loss(translation_run):
    from seqlab.plots import loss_curves

    metrics = translation_run.metrics
    assert set(metrics["model"]) == {"exact_match", "token_accuracy", "bleu", "chrf"}
    assert set(metrics["baselines"]) == {"copy_source"}
    assert (translation_run.path / "target_tokenizer.json").is_file()
    [epoch] = translation_run.history["epoch"]
    assert epoch["val_free_running_loss"] > 0 and epoch["val_loss"] > 0  # teacher-forced and free-running
    figure = loss_curves([], translation_run.history["epoch"])
    assert [trace.name for trace in figure.data][-1] == "validation, free-running"


def test_translate_page_shows_outputs_the_attention_map_and_the_beam(open_page, runs_dir, translation_run):
    copy_run(runs_dir, translation_run)
    at = open_page("pages/translate.py")
    assert not at.exception and not at.error
    assert at.text_input[0].value  # a test source
    at.text_input[0].set_value("4321").run()
    assert not at.exception and not at.error
    assert [m.label for m in at.metric][:2] == ["Greedy translation", "Best of a beam of 4"]
    found = titles(at)
    assert "Attention: where each target token looked" in found and "Beam search: the hypotheses kept" in found
    chart = next(json.loads(c.proto.spec) for c in at.get("plotly_chart")
                 if json.loads(c.proto.spec)["layout"]["title"]["text"].startswith("Attention"))
    assert [trace.get("name") for trace in chart["data"][1:]] == ["p_t (predicted position)", "p_t − D", "p_t + D"]
    assert chart["data"][0]["x"] == ["1: 4", "2: 3", "3: 2", "4: 1"]
    at.text_input[0].set_value("4x2").run()  # "x" is no digit the run has seen
    assert "1 of the source's 3 tokens are unknown" in texts(at.warning)
    at.text_input[0].set_value("   ").run()
    assert "The source box is empty" in texts(at.info)


def test_models_lists_the_translations_and_inspect_points_elsewhere(open_page, runs_dir, translation_run):
    copy_run(runs_dir, translation_run)
    at = open_page("pages/models.py")
    assert not at.exception and not at.error
    assert "Test translations" in texts(at.markdown)
    at = open_page("pages/inspect.py")
    assert not at.exception and not at.error
    assert "No recurrent run to inspect" in texts(at.markdown)


def test_cli_translates_with_greedy_and_beam(capsys, runs_dir, translation_run):
    copy_run(runs_dir, translation_run)
    code, out, err = run_cli(capsys, "translate", translation_run.run_id, "--text", "123", "--text", "45",
                             "--beam", "3", "--json")  # fmt: skip
    assert code == 0, err
    rows = json.loads(out.splitlines()[-1])["translations"]
    assert [r["source"] for r in rows] == ["123", "45"] and all("translation" in r for r in rows)
    code, _, err = run_cli(capsys, "translate", translation_run.run_id, "--text", " ")
    assert code == 2 and "is empty" in err
    code, _, err = run_cli(capsys, "translate", translation_run.run_id, "--text", "1234512345123")
    assert code == 0 and "text 1 has 13 char tokens; the model read its first" in err
