import json
import subprocess
import sys

import numpy as np
import pytest

from seqlab.cli import main
from seqlab.export import export_run
from seqlab.tasks.language.generate import generate_text, language_next, run_tokenizer
from seqlab.models.registry import steps_of
from seqlab.text import PAD_ID
from tests.language_run import train_language_run


@pytest.fixture(scope="module")
def language_run(tmp_path_factory):
    return train_language_run(tmp_path_factory.mktemp("language_runs"), "lstm", layers=2)


@pytest.mark.parametrize("model", ["gru", "simple_rnn"])
def test_stateful_steps_equal_the_whole_window(tmp_path, model):
    _check_steps(train_language_run(tmp_path, model))


def test_stateful_steps_of_a_two_layer_lstm_equal_the_whole_window(language_run):
    _check_steps(language_run)


def _check_steps(run):
    model = run.load_model()
    x = np.random.default_rng(0).integers(2, 30, (3, 16))
    full = model.predict(x, verbose=0)  # (3, 16, V): the window read at once
    next_fn = language_next(steps_of(model))
    log_probs, state = next_fn(x[:, :10], None)  # the prompt once
    for t in range(10, 13):  # then one id a step, the state carried
        without_pad = full[:, t - 1, 1:] / full[:, t - 1, 1:].sum(-1, keepdims=True)  # PAD is never generated
        np.testing.assert_allclose(np.exp(log_probs[:, 1:]), without_pad, atol=1e-5)
        assert np.all(log_probs[:, PAD_ID] == -np.inf)
        log_probs, state = next_fn(x[:, t : t + 1], state)


def test_generate_repeats_with_a_seed_and_greedy_is_the_argmax(language_run):
    one = generate_text(language_run, "def ", 20, temperature=0.8, top_k=5, seed=3)
    two = generate_text(language_run, "def ", 20, temperature=0.8, top_k=5, seed=3)
    assert one.text == two.text and len(one.tokens) == 20
    greedy = generate_text(language_run, "def ", 5, temperature=0)
    assert all(c.token == c.alternatives[0][0] for c in greedy.generated.choices)


def test_one_graph_samples_with_every_setting(language_run):
    from seqlab.models.registry import steps_of

    model = language_run.load_model()
    for settings in ({"temperature": 0.8, "top_k": 5, "seed": 1}, {"temperature": 1.3, "top_p": 0.9, "seed": 2},
                     {"temperature": 0.5, "top_k": 3, "top_p": 0.5}):
        generate_text(language_run, "def ", 6, model=model, **settings)
    [decoder] = vars(steps_of(model))["_decoders"].values()  # a slider moved on Generate waits for no new trace
    assert decoder.experimental_get_tracing_count() == 1
    generate_text(language_run, "def ", 6, model=model, temperature=0)  # greedy: its own, smaller graph
    assert len(vars(steps_of(model))["_decoders"]) == 2


def test_cli_generate_text_and_strict_json(capsys, language_run):
    root = str(language_run.path.parent)
    argv = ["generate", language_run.run_id, "--runs-dir", root, "--prompt", "The ", "--tokens", "12", "--seed", "1"]
    assert main(argv + ["--temperature", "0.8", "--top-p", "0.9"]) == 0
    text = capsys.readouterr().out
    assert text.startswith("The ") and len(text.rstrip("\n")) >= 4
    assert main(argv + ["--json"]) == 0
    result = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert result["run_id"] == language_run.run_id and result["prompt"] == "The "
    assert len(result["tokens"]) == 12 and "".join(t["token"] for t in result["tokens"]) == result["text"]
    assert all(0 < t["prob"] <= 1 and len(t["alternatives"]) == 5 for t in result["tokens"])


@pytest.mark.parametrize(
    "extra, message",
    [
        (["--prompt", "\u2603\u2603"], "unknown to this run's char tokeniser"),
        (["--prompt", "a", "--tokens", "-1"], "max_new_tokens"),
        (["--prompt", "a", "--temperature", "-1"], "temperature"),
    ],
)
def test_cli_generate_refusals_exit_2(capsys, language_run, extra, message):
    try:
        code = main(["generate", language_run.run_id, "--runs-dir", str(language_run.path.parent), *extra])
    except SystemExit as exited:  # a number out of range is refused as the command line is parsed
        code = exited.code
    err = capsys.readouterr().err
    assert code == 2 and message in err and len(err.strip().splitlines()) == 1


def test_cli_generate_refuses_a_run_that_is_not_a_language_model(capsys, trained_run):
    code = main(["generate", trained_run.run_id, "--runs-dir", str(trained_run.path.parent), "--prompt", "a"])
    assert code == 2 and "Generating text (generate) needs a language run" in capsys.readouterr().err


def test_savedmodel_takes_raw_strings_in_a_fresh_process_without_seqlab(language_run, tmp_path):
    from seqlab.late_export import add_savedmodel

    add_savedmodel(language_run)  # trained without it (tests.language_run)
    exported = export_run(language_run, "savedmodel", tmp_path / "served")
    prompts = ["def f(x):", "a prompt longer than the sixteen tokens the model reads", "\u2603"]
    script = f"""
import sys, json
import tensorflow as tf
served = tf.saved_model.load({str(exported)!r})
log_probs = served.next_log_probs(tf.constant({prompts!r})).numpy()
ids = served.serve(tf.zeros((1, 16), tf.int32)).numpy()
texts = [t.decode() for t in served.generate(tf.constant({prompts[:2]!r}), tf.constant(6)).numpy()]
refused = []
for prompts, tokens in ([""], 3), (["def"], -1):
    try:
        served.generate(tf.constant(prompts), tf.constant(tokens))
    except tf.errors.InvalidArgumentError as err:
        refused.append(err.message)
print(json.dumps({{"seqlab": "seqlab" in sys.modules, "log_probs": log_probs.tolist(), "serve": list(ids.shape),
                  "generated": texts, "refused": refused}}))
"""
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                         cwd=tmp_path, timeout=120, env={"PATH": "/usr/bin:/bin", "TF_CPP_MIN_LOG_LEVEL": "3"})
    assert out.returncode == 0, out.stderr[-2000:]
    result = json.loads(out.stdout.strip().splitlines()[-1])
    tokenizer, model = run_tokenizer(language_run), language_run.load_model()
    assert result["seqlab"] is False and result["serve"] == [1, 16, tokenizer.vocab_size]
    for prompt, served in zip(prompts, result["log_probs"]):
        ids = tokenizer.encode(prompt)[-16:]  # the last 16 tokens, as the in-graph tokeniser keeps them
        window = np.array([ids + [PAD_ID] * (16 - len(ids))])
        expected = np.log(model.predict(window, verbose=0)[0, len(ids) - 1])
        np.testing.assert_allclose(served, expected, atol=1e-4)
    # Greedy generation in the graph carries the LSTM's state as seqlab's does: the same text, past T too.
    for prompt, generated in zip(prompts, result["generated"]):
        assert generated == generate_text(language_run, prompt, 6, temperature=0).text
    empty, negative = result["refused"]
    assert "a prompt is empty after standardisation" in empty and "must be 0 or more" in negative

