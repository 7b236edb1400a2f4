import pytest

from seqlab.text import Standardize


def test_defaults_lowercase_and_collapse_whitespace_keeping_one_blank_line():
    assert Standardize()("  To  BE,\tor\r\nnot \n\n\n\n to be.  ") == "to be, or\nnot\n\nto be."


def test_each_option_alone():
    text = "A  b,\n\n\nC!"
    assert Standardize(lowercase=False, collapse_whitespace=False)(text) == text
    assert Standardize(collapse_whitespace=False)(text) == "a  b,\n\n\nc!"
    assert Standardize(strip_punctuation=True, collapse_whitespace=False)(text) == "a  b\n\n\nc"
    assert Standardize(strip_punctuation=True)("“Quoted” — well… [x] \\y^ a-b") == "quoted well x y ab"


def test_unicode_lowercase_and_no_break_space():
    assert Standardize()("ΣΑΣ ÉCOLE\u00a0\u00a0İ") == "σας école i\u0307"


def test_json_round_trip_and_bad_options():
    rules = Standardize(lowercase=False, strip_punctuation=True)
    assert Standardize.from_dict(rules.to_dict()) == rules
    assert rules.to_dict() == {"lowercase": False, "strip_punctuation": True, "collapse_whitespace": True}
    with pytest.raises(ValueError, match="Unknown standardisation option.*'lower'"):
        Standardize.from_dict({"lower": True})
    with pytest.raises(ValueError, match="lowercase"):
        Standardize(lowercase="yes")
    with pytest.raises(TypeError, match="takes a str"):
        Standardize()(b"bytes")
