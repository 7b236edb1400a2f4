import argparse
from pathlib import Path

from seqlab.cli import build_parser
from seqlab.cli_reference import render, subcommands

REPO = Path(__file__).resolve().parents[1]


def test_docs_cli_md_is_the_parser_rendered():
    committed = (REPO / "docs" / "cli.md").read_text(encoding="utf-8")
    assert committed == render(), (
        "docs/cli.md no longer matches seqlab/cli.py's parser: run python -m seqlab.cli_reference > docs/cli.md"
    )


def test_every_command_and_option_of_the_parser_is_in_the_reference():
    text = render()
    parser = build_parser()
    for name, command in subcommands(parser).choices.items():
        assert f"\n## {name}\n" in text and f"python -m seqlab {name}" in text
        for action in command._actions:
            for flag in action.option_strings:
                assert flag in ("-h", "--help") or f"`{flag}`" in text, (name, flag)


def test_a_command_renders_its_help_synopsis_and_options():
    parser = argparse.ArgumentParser(prog="python -m seqlab", description="A tool.")
    sub = parser.add_subparsers(dest="command")
    p = sub.add_parser("shout", help="say it | loudly")
    p.add_argument("run_id")
    p.add_argument("--times", type=int, default=3, help="how often")
    p.add_argument("--voice", choices=["low", "high"], required=True)
    p.add_argument("--quiet", action="store_true", help="say nothing")
    either = p.add_mutually_exclusive_group(required=True)
    either.add_argument("--text", action="append", help="a text; repeat for more")
    either.add_argument("--file")

    text = render(parser)

    assert "| [`shout`](#shout) | say it \\| loudly |" in text
    assert "## shout\n\nSay it | loudly.\n" in text
    assert (
        "python -m seqlab shout RUN_ID [--times TIMES] --voice VOICE [--quiet] (--text TEXT | --file FILE)" in text
    )
    assert "| `--times` | an integer | `3` |  | how often |" in text
    assert "| `--voice` | one of `low`, `high` |  | yes |  |" in text
    assert "| `--quiet` | switch |  |  | say nothing |" in text
    assert "| `--text` | text, repeatable |  | one of this and `--file` | a text; repeat for more |" in text
    assert "| `RUN_ID` | text |  | yes |  |" in text
