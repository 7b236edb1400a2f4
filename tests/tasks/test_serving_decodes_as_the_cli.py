"""A SavedModel's ``generate`` and ``translate`` run the CLI's compiled loop: the same tokens as
``python -m seqlab generate`` / ``translate``, also for a prompt longer than the model's window ``T`` (where the
SavedModel once slid a window of the last ``T`` tokens while the CLI carried the model's state)."""

import json

import pytest

from seqlab.cli import main
from seqlab.export import export_run
from seqlab.runs import RunStore
from tests.language_run import TINY_TEXT, train_language_run

T = TINY_TEXT["lookback"]
LONG = "def the_function(self, value): return self.value + value"  # 59 characters: far more than T = 16


@pytest.fixture(scope="module")
def lstm_run(tmp_path_factory):
    from seqlab.late_export import add_savedmodel

    run = train_language_run(tmp_path_factory.mktemp("lstm_runs"), "lstm")
    add_savedmodel(run)
    return run


@pytest.fixture(scope="module")
def gpt_run(tmp_path_factory):
    from seqlab.training import ExperimentSpec, run_experiment

    spec = ExperimentSpec("pydoc", "gpt", data_options=TINY_TEXT, model_options={"layers": 1, "heads": 2},
                          epochs=1, batch_size=8, steps=2)
    return run_experiment(spec, store=RunStore(tmp_path_factory.mktemp("gpt_runs")))


@pytest.fixture(scope="module")
def translation_run(tmp_path_factory):
    from seqlab.training import ExperimentSpec, run_experiment

    spec = ExperimentSpec("toy_pairs", "seq2seq", epochs=1, batch_size=32,
                          data_options={"transform": "reverse", "samples": 300, "min_length": 2, "max_length": 5},
                          model_options={"units": 8, "embedding_dim": 8})
    return run_experiment(spec, store=RunStore(tmp_path_factory.mktemp("translation_runs")))


def cli_json(capsys, *argv) -> dict:
    assert main([*argv, "--json"]) == 0
    return json.loads(capsys.readouterr().out.strip().splitlines()[-1])


@pytest.mark.parametrize("run_name", ["lstm_run", "gpt_run"])
def test_generate_gives_the_cli_tokens_for_a_prompt_longer_than_the_window(run_name, request, tmp_path, capsys):
    import tensorflow as tf

    run = request.getfixturevalue(run_name)
    served = tf.saved_model.load(str(export_run(run, "savedmodel", tmp_path / "served")))
    prompts, tokens = [LONG, "def "], 2 * T  # 2T new tokens: a GPT's cache fills and is rebuilt on the way
    texts = [t.decode() for t in served.generate(tf.constant(prompts), tf.constant(tokens)).numpy()]
    for prompt, text in zip(prompts, texts):  # one batch of two prompts of different lengths: each as alone
        cli = cli_json(capsys, "generate", run.run_id, "--runs-dir", str(run.path.parent), "--prompt", prompt,
                       "--tokens", str(tokens), "--temperature", "0")
        assert len(cli["tokens"]) == tokens and text == cli["text"]


@pytest.mark.parametrize("run_name", ["lstm_run", "gpt_run"])
def test_a_model_that_reads_far_back_generates_the_same_served_and_in_python(run_name, request, tmp_path):
    """Weights scaled up and shaken so every token depends on the whole history: a window of the last T tokens
    would choose others than the carried state."""
    import numpy as np
    import tensorflow as tf

    from seqlab.data import load_dataset
    from seqlab.tasks.language.generate import generate_text
    from seqlab.tasks.language.serving import export_with_text

    run = request.getfixturevalue(run_name)
    model, rng = run.load_model(), np.random.default_rng(0)
    model.set_weights([3 * w + rng.normal(0.0, 0.5, w.shape) if w.ndim > 1 else w for w in model.get_weights()])
    export_with_text(model, load_dataset("pydoc", **TINY_TEXT), tmp_path / "served")
    served = tf.saved_model.load(str(tmp_path / "served"))
    [text] = served.generate(tf.constant([LONG]), tf.constant(2 * T)).numpy()
    assert text.decode() == generate_text(run, LONG, 2 * T, temperature=0, model=model).text


@pytest.fixture(scope="module")
def served_translator(translation_run, tmp_path_factory):
    import tensorflow as tf

    served = tmp_path_factory.mktemp("served") / "savedmodel"
    return tf.saved_model.load(str(export_run(translation_run, "savedmodel", served)))


TEXTS = ["1234567890123", "42", "98765"]  # the first longer than the source window


def test_translate_gives_the_cli_translation_for_a_source_longer_than_the_window(translation_run, served_translator,
                                                                                  capsys):
    import tensorflow as tf

    run = translation_run
    assert len(TEXTS[0]) > run.meta.input_shape[0]
    mine = [t.decode() for t in served_translator.translate(tf.constant(TEXTS)).numpy()]
    cli = cli_json(capsys, "translate", run.run_id, "--runs-dir", str(run.path.parent),
                   *[arg for text in TEXTS for arg in ("--text", text)])
    assert mine == [t["translation"] for t in cli["translations"]]


@pytest.fixture(scope="module")
def shaken_translator(translation_run, tmp_path_factory):
    """The run's model with noise in its weights (trained one epoch, it writes only [EOS]; shaken, greedy and the beam
    write different texts) and its SavedModel."""
    import numpy as np
    import tensorflow as tf

    from seqlab.data import load_dataset
    from seqlab.tasks.translate.serving import export_translator

    model, rng = translation_run.load_model(), np.random.default_rng(0)
    model.set_weights([w + rng.normal(0.0, 1.0, w.shape) if w.ndim > 1 else w for w in model.get_weights()])
    path = tmp_path_factory.mktemp("shaken") / "savedmodel"
    export_translator(model, load_dataset("toy_pairs", **translation_run.spec["data_options"]), path)
    return model, tf.saved_model.load(str(path))


@pytest.mark.parametrize("alpha", [0.0, 0.6])
def test_translate_beam_gives_the_beam_translation_of_the_cli(translation_run, shaken_translator, alpha):
    import tensorflow as tf

    from seqlab.tasks.translate.serving import BEAM_WIDTH
    from seqlab.tasks.translate.translation import translate_run

    model, served = shaken_translator
    found = served.translate_beam(tf.constant(TEXTS), tf.constant(alpha))
    cli = translate_run(translation_run, TEXTS, width=BEAM_WIDTH, length_penalty=alpha, model=model)  # as --beam 4
    assert [t.decode() for t in found["texts"].numpy()] == [t.text for t in cli]
    assert found["scores"].numpy() == pytest.approx([t.score for t in cli], abs=1e-5)
