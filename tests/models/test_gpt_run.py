"""A trained GPT language run: generation through the cache, bad prompts, and the string-in SavedModel."""

import json
import subprocess
import sys

import numpy as np
import pytest

from seqlab.export import export_run
from seqlab.tasks.language.generate import generate_text, run_tokenizer
from seqlab.runs import RunStore
from seqlab.text import PAD_ID
from seqlab.training import ExperimentSpec, run_experiment
from tests.language_run import TINY_TEXT

T = TINY_TEXT["lookback"]


@pytest.fixture(scope="module")
def gpt_run(tmp_path_factory):
    # The training spine's step budget too: AdamW with decay, warm-up and cosine, XLA, 3 steps per call.
    spec = ExperimentSpec(
        "pydoc", "gpt", data_options=TINY_TEXT, model_options={"layers": 1, "heads": 2}, epochs=2, batch_size=8,
        optimizer="adamw", weight_decay=0.1, schedule="cosine", warmup_steps=2, steps=6, jit_compile=True,
        steps_per_execution=3,
    )
    return run_experiment(spec, store=RunStore(tmp_path_factory.mktemp("gpt_runs")))


def test_a_step_budget_trains_that_many_batches_in_epochs_of_validation(gpt_run):
    history = json.loads((gpt_run.path / "history.json").read_text())
    assert [e["epoch"] for e in history["epoch"]] == [1, 2] and all("val_loss" in e for e in history["epoch"])
    assert gpt_run.meta.status == "completed" and gpt_run.meta.model == "gpt"


def test_greedy_generation_is_the_argmax_and_repeats(gpt_run):
    one = generate_text(gpt_run, "def ", 10, temperature=0)
    assert len(one.tokens) == 10 and one.notice is None
    assert all(c.token == c.alternatives[0][0] for c in one.generated.choices)
    assert generate_text(gpt_run, "def ", 10, temperature=0.9, top_p=0.9, seed=4).text == \
        generate_text(gpt_run, "def ", 10, temperature=0.9, top_p=0.9, seed=4).text


def test_a_prompt_longer_than_the_context_keeps_its_end_with_a_notice(gpt_run):
    long = "import os\n" * 5  # 50 characters, the context is 16
    out = generate_text(gpt_run, long, 4, temperature=0)
    assert out.notice == f"The prompt has 50 tokens, more than this model's context of {T}: it reads only the last {T}."
    assert out.text == generate_text(gpt_run, long[-T:], 4, temperature=0).text
    assert out.as_dict(run_tokenizer(gpt_run))["notice"] == out.notice


@pytest.mark.parametrize("prompt, message", [
    ("", "The prompt is empty"),
    ("\u2603\u2603", "unknown to this run's char tokeniser"),
])
def test_empty_and_unknown_prompts_are_refused(gpt_run, prompt, message):
    with pytest.raises(ValueError, match=message):
        generate_text(gpt_run, prompt, 3)


def test_the_savedmodel_takes_strings_in_a_fresh_process(gpt_run, tmp_path):
    exported = export_run(gpt_run, "savedmodel", tmp_path / "served")
    prompts = ["def f(x):", "\u2603"]
    script = f"""
import sys, json
import tensorflow as tf
served = tf.saved_model.load({str(exported)!r})
log_probs = served.next_log_probs(tf.constant({prompts!r})).numpy()
text = served.generate(tf.constant(["def "]), tf.constant(6)).numpy()[0].decode()
print(json.dumps({{"seqlab": "seqlab" in sys.modules, "log_probs": log_probs.tolist(), "text": text}}))
"""
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                         cwd=tmp_path, timeout=120, env={"PATH": "/usr/bin:/bin", "TF_CPP_MIN_LOG_LEVEL": "3"})
    assert out.returncode == 0, out.stderr[-2000:]
    result = json.loads(out.stdout.strip().splitlines()[-1])
    tokenizer, model = run_tokenizer(gpt_run), gpt_run.load_model()
    assert result["seqlab"] is False
    for prompt, served in zip(prompts, result["log_probs"]):
        ids = tokenizer.encode(prompt)[-T:]
        window = np.array([ids + [PAD_ID] * (T - len(ids))])
        np.testing.assert_allclose(served, np.log(model.predict(window, verbose=0)[0, len(ids) - 1]), atol=1e-4)
    assert result["text"] == generate_text(gpt_run, "def ", 6, temperature=0).text  # the graph's greedy = the cache's
