import dataclasses
import subprocess
import sys

import numpy as np
import pytest

from seqlab.tasks import USES, get_task, list_tasks, task_for


def test_every_trainable_task_and_a_clear_refusal():
    assert {get_task(t).name for t in ("forecast", "regress", "classify", "label", "translate")} == {
        "forecast", "regress", "classify", "label", "translate"
    }
    assert get_task("label").sequence_outputs and not get_task("classify").sequence_outputs
    with pytest.raises(ValueError, match="trainable tasks: .*forecast"):
        get_task("summarise")


def test_what_a_finished_run_can_do_is_asked_of_its_task():
    able = {use: sorted(t.name for t in list_tasks() if t.can(use)) for use in USES}
    assert able == {"predict_frame": ["forecast"], "predict_texts": ["classify", "label"], "generate": ["language"],
                    "translate": ["translate"], "fill_in": ["masked_lm"], "fine_tune": ["masked_lm"]}
    assert get_task("regress").target_per_sequence and not get_task("forecast").target_per_sequence
    assert {t.name: t.text_endpoint.name for t in list_tasks() if t.text_endpoint} == {
        "classify": "serve_text", "label": "serve_text", "language": "next_log_probs", "masked_lm": "fill",
        "translate": "translate"}
    assert task_for("fill_in", "masked_lm", "r") is get_task("masked_lm")
    with pytest.raises(ValueError, match=r"Generating text \(generate\) needs a language run; run 'r7' is a classify "
                                         r"run. A classify run offers answering raw texts \(predict --text\)\."):
        task_for("generate", "classify", "r7")
    with pytest.raises(ValueError, match="needs a forecast run; run 'r' is a regress run. A regress run offers its "
                                         "SavedModel's serve endpoint"):
        task_for("predict_frame", "regress", "r")
    with pytest.raises(ValueError, match="Unknown use 'dance'; valid uses: predict_frame"):
        get_task("forecast").can("dance")


def test_a_task_declares_only_known_uses_and_whole_capabilities():
    forecast = get_task("forecast")
    with pytest.raises(ValueError, match="unknown use"):
        dataclasses.replace(forecast, uses=("sing",))
    with pytest.raises(ValueError, match="frame_window and frame_answer go together"):
        dataclasses.replace(forecast, frame_answer=None)
    with pytest.raises(ValueError, match="serves no text_endpoint"):
        dataclasses.replace(get_task("classify"), text_endpoint=None)


def test_the_answers_tables_read_the_run_s_classes_and_tokens():
    meta = type("M", (), {"classes": ["neg", "pos"], "lookback": 2, "target": "y"})()
    p = np.array([[0.2, 0.8], [0.9, 0.1]])
    table = get_task("classify").text_answer(meta, None, ["good", "bad"], p)
    assert table.to_dict(orient="list") == {"text": ["good", "bad"], "class": ["pos", "neg"],
                                            "p(neg)": [0.2, 0.9], "p(pos)": [0.8, 0.1]}
    words = type("T", (), {"tokens": staticmethod(lambda text: text.split())})()
    tags = get_task("label").text_answer(meta, words, ["a b c"], np.array([[[0.1, 0.9], [0.7, 0.3]]]))
    assert tags.to_dict(orient="records") == [{"text": 1, "token": "a", "tag": "pos"},
                                              {"text": 1, "token": "b", "tag": "neg"}]  # lookback 2: "c" unread
    forecast = get_task("forecast").frame_answer(meta, np.array([[1.5, 2.5, 3.5]]))
    assert forecast.to_dict(orient="list") == {"step": [1, 2, 3], "y": [1.5, 2.5, 3.5]}


def test_the_registry_imports_the_kinds_on_first_read_only():
    script = ("import sys, seqlab.tasks as t\n"
              "before = sorted(m for m in sys.modules if m.startswith('seqlab.tasks.') and m.endswith('.task'))\n"
              "names = [k.name for k in t.list_tasks()]\n"
              "print(before, names)\n")
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120, check=True)
    assert done.stdout.strip() == ("['seqlab.tasks.task'] ['forecast', 'regress', 'classify', 'label', 'language', "
                                   "'translate', 'masked_lm']")
