import pytest

from seqlab.text.visible import has_visible


@pytest.mark.parametrize(
    "text", ["", " \t\n", "\u200b\u200c\u200d", "\ufeff\u2060", "\u3164\u2800\u115f", "\u00a0\u3000"]
)
def test_texts_that_show_nothing(text):
    assert not has_visible(text)


@pytest.mark.parametrize("text", ["a", " \u200b.", "Wort", "\u4e2d", "\U0001f600"])
def test_texts_that_show_something(text):
    assert has_visible(text)
