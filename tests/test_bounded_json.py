"""JSON and TOML parsed within a size bound and a nesting bound, counted before any parser runs."""

import json
import os
import time

import pytest

from seqlab.bounded_json import MAX_DEPTH, check_depth, parse_json, parse_toml, read_json, read_toml


def nested(depth: int) -> str:
    return "[" * depth + "]" * depth


@pytest.mark.parametrize("text", [nested(MAX_DEPTH + 1), nested(100_000), "[" * 100_000, '{"a":' * 5_000 + "1"])
def test_too_deep_json_is_a_value_error_not_a_recursion_error(text):
    with pytest.raises(ValueError, match=f"spec.json nests arrays or objects more than {MAX_DEPTH} levels deep"):
        parse_json(text, "spec.json", 1 << 20)


def test_the_bound_itself_parses_and_brackets_in_strings_do_not_count():
    assert parse_json(nested(MAX_DEPTH), "x", 1 << 20) is not None
    value = {"vocab": ["[" * 500, "{" * 500, '\\"[[[[' * 200], "escaped": "\\" * 3 + '"' + "[" * 500}
    assert parse_json(json.dumps(value), "x", 1 << 20) == value


def test_the_size_bound_comes_first(tmp_path):
    with pytest.raises(ValueError, match="limit for it is 10"):
        parse_json("[1, 2, 3, 4, 5]", "meta.json", 10)
    (tmp_path / "big.json").write_text("[" + "1," * 100 + "1]")
    with pytest.raises(ValueError, match="limit is 100 bytes"):
        read_json(tmp_path / "big.json", "big.json", 100)


def test_a_pipe_is_refused_without_being_opened(tmp_path):
    os.mkfifo(tmp_path / "manifest.json")  # opening it would block until a writer came
    with pytest.raises(ValueError, match="not a regular file"):
        read_json(tmp_path / "manifest.json", "manifest.json", 1 << 20)


def test_not_json_and_not_utf8_are_value_errors():
    with pytest.raises(ValueError, match="x is not valid JSON"):
        parse_json("{nope", "x", 100)
    with pytest.raises(ValueError, match="x is not UTF-8"):
        parse_json(b'["\xff"]', "x", 100)


def test_the_count_is_linear_for_unclosed_strings():
    # Each unclosed string would be scanned to the end again from every quote by a naive pattern: quadratic.
    start = time.perf_counter()
    with pytest.raises(ValueError, match="not valid JSON"):
        parse_json('"' + '\\"' * 1_000_000, "x", 4 << 20)
    assert time.perf_counter() - start < 5


def test_toml_depth_skips_strings_and_comments(tmp_path):
    text = 'a = "[[[["\nb = \'{{{{\'\n# [[[[[[\nc = """ [[[ \\""" """\n[limits]\nd = [[1], [2]]\n'
    expected = {"a": "[[[[", "b": "{{{{", "c": ' [[[ """ ', "limits": {"d": [[1], [2]]}}
    assert parse_toml(text, "config", 1 << 10) == expected
    with pytest.raises(ValueError, match="config nests arrays or objects more than"):
        parse_toml("a = " + nested(10_000), "config", 1 << 20)
    (tmp_path / "c.toml").write_text("a = 1\n" * 20)
    with pytest.raises(ValueError, match="limit is 64 bytes"):
        read_toml(tmp_path / "c.toml", "config", 64)


def test_check_depth_alone():
    check_depth(nested(MAX_DEPTH), "value")
    with pytest.raises(ValueError, match="value nests"):
        check_depth(nested(MAX_DEPTH + 1), "value")
