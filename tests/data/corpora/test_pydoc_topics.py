import platform

from pydoc_data.topics import topics

from seqlab.data.corpora import load_pydoc


def test_pydoc_topics_are_one_text_in_name_order():
    corpus = load_pydoc()
    assert corpus.parts == tuple(sorted(topics))
    assert corpus.text.startswith(topics[corpus.parts[0]].strip())
    assert topics["while"].strip() in corpus.text
    assert corpus.characters > 100_000
    assert platform.python_version() in corpus.source and "Python Software Foundation" in corpus.licence
