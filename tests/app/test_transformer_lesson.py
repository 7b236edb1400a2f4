"""The self-attention and positions lessons' untrained parts: the notes' "Hello how are", the encoding, the word order."""

from streamlit.testing.v1 import AppTest

from tests.app.conftest import figures


def lesson():
    from seqlab.app.inspect.positional_view import positional_lesson
    from seqlab.app.lessons.transformer_lesson import notes_walkthrough

    notes_walkthrough("lessons.transformer")
    positional_lesson(key="lessons.transformer.positional")


def test_the_lesson_masks_the_notes_scores_and_shows_positions():
    at = AppTest.from_function(lesson, default_timeout=120).run()
    assert not at.exception and not at.error
    shown = figures(at)
    walk = shown["Scaled dot-product attention on “Hello how are” with the causal mask"]
    scores = next(d for d in walk["data"] if d.get("text") and d["colorbar"]["title"]["text"] == "score a'_ij")
    assert scores["text"] == [["1.50", "−∞", "−∞"], ["1.80", "1.30", "−∞"], ["2.40", "2.00", "2.50"]]
    weights = next(d for d in walk["data"] if d.get("text") and d["colorbar"]["title"]["text"] != "score a'_ij")
    assert weights["text"][0] == ["1.00", "0.00", "0.00"]  # "Hello" reads only itself
    assert "Sinusoidal positional encoding, base n = 10000, r = 64" in shown
    assert list(at.dataframe[0].value["the two orders read"]) == ["the same (a bag of words)", "differently"]
    at.toggle(key="lessons.transformer.causal").set_value(False).run()
    assert "Scaled dot-product attention on “Hello how are”" in figures(at)
