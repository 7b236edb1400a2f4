"""Train page: a tiny language run on pydoc, its metrics and a greedy sample of its text."""

from tests.app.conftest import all_done, jobs, run_until, texts


def test_train_a_tiny_language_model_on_pydoc(open_page):
    at = open_page("pages/train.py")
    at.selectbox(key="train.dataset").set_value("pydoc").run()
    assert at.selectbox(key="train.data.pydoc.tokenizer").options == ["char", "word", "bpe"]
    at.selectbox(key="train.model.language").set_value("gru").run()
    for name, value in (("data.pydoc.characters", 3000), ("data.pydoc.lookback", 16), ("data.pydoc.stride", 16),
                        ("data.pydoc.embedding_dim", 8), ("arch.gru.units", 8), ("fit.epochs", 1)):
        at.number_input(key=f"train.{name}").set_value(value).run()
    assert not at.exception and not at.error
    assert "predict the next token at every position" in texts(at.caption)
    at.button(key="train.submit").click().run()
    run_until(at, all_done).run()
    job = jobs(at)[0]
    assert job.status == "completed", job.error
    at.run()
    assert not at.exception and not at.error
    assert "Saved as run" in texts(at.success)
    charts = [c.proto.spec for c in at.get("plotly_chart")]
    assert any("bits per character" in spec and "each batch" in spec for spec in charts), "loss curve in bpc"
    metrics = at.dataframe[0].value
    assert list(metrics.columns)[:3] == ["bits per character (bits)", "cross-entropy (nats)", "perplexity"]
    assert any(label.startswith("Unigram") for label in metrics.index)
    prompt, sample, truth = (c.value for c in at.code)
    assert len(prompt) == 16 and len(sample) > 70 and truth  # 80 characters generated (st.code trims line ends)
    assert "Greedy sample" in texts(at.markdown)


def test_data_page_shows_the_tokens_of_pydoc(open_page):
    at = open_page("pages/data.py")
    at.selectbox(key="data.dataset").set_value("pydoc").run()
    assert not at.exception and not at.error
    assert "most frequent" in at.get("plotly_chart")[0].proto.spec
    assert at.code[0].value.strip() and "held-out tokens" in texts(at.caption)


def test_models_page_exports_then_serves_a_language_run(open_page, runs_dir):
    from tests.language_run import train_language_run

    run = train_language_run(runs_dir)
    at = open_page("pages/models.py")
    at.button(key=f"models.serve.{run.run_id}.go").click().run()
    assert not at.exception and not at.error  # trained without its SavedModel: nothing served yet
    assert "Next tokens right" not in [m.label for m in at.metric]
    assert "trained without its SavedModel" in texts(at.info)
    at.button(key=f"models.serve.{run.run_id}.export").click().run()
    assert not at.exception and not at.error and run.has_savedmodel
    cards = {m.label: m.value for m in at.metric}
    assert cards["Next tokens right"].endswith("of 16") and "nats" in cards["Cross-entropy"]


def test_a_vocabulary_larger_than_the_text_is_a_note_on_the_train_page(open_page):
    at = open_page("pages/train.py")
    at.selectbox(key="train.dataset").set_value("pydoc").run()
    at.selectbox(key="train.data.pydoc.tokenizer").set_value("word").run()
    for name, value in (("data.pydoc.characters", 3000), ("data.pydoc.lookback", 16), ("data.pydoc.vocab_size", 5000)):
        at.number_input(key=f"train.{name}").set_value(value).run()
    assert not at.exception and not at.error
    assert "vocab_size 5,000 asked, but the training text has only" in texts(at.info)
