"""The command-line reference, docs/cli.md, rendered from the CLI's own parser.

``python -m seqlab.cli_reference > docs/cli.md`` writes it; a test renders it
again and compares, so the reference cannot drift from ``seqlab.cli``. Every
command gets its help, a synopsis and a table of its options (value, default,
choices, help), in the parser's order. Nothing depends on the terminal's width.

argparse has no public way to list a parser's actions, so this reads the
attributes every argparse documentation tool reads (``_actions``,
``_choices_actions``, ``_mutually_exclusive_groups``).
"""

from __future__ import annotations

import argparse
import sys

from seqlab.cli import build_parser

HEADER = """\
# Command-line reference

<!-- Generated from seqlab.cli.build_parser by `python -m seqlab.cli_reference > docs/cli.md`: do not edit by hand. -->

{description} Every command runs as `python -m seqlab COMMAND`; [the command-line guide](command-line.md)
shows them at work. A bad name, value or option exits with code 2 and one `error:` line.
"""


def subcommands(parser: argparse.ArgumentParser) -> argparse._SubParsersAction:
    (sub,) = (a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    return sub


def cell(text: str) -> str:
    """Text for a Markdown table cell: one line, its pipes escaped."""
    return " ".join(str(text).split()).replace("|", "\\|")


def value_name(action: argparse.Action) -> str:
    return action.metavar or action.dest.upper()


def shown_option(action: argparse.Action) -> str:
    """How the option reads in a synopsis: ``--to TO``, ``RUN_ID``, ``--json``."""
    if not action.option_strings:
        return value_name(action)
    flag = action.option_strings[-1]  # the long form
    return flag if action.nargs == 0 else f"{flag} {value_name(action)}"


def listed(parser: argparse.ArgumentParser) -> list[argparse.Action]:
    """The parser's arguments, positional ones first (as they are typed after the command), without --help."""
    actions = [a for a in parser._actions if not isinstance(a, argparse._HelpAction)]
    return sorted(actions, key=lambda a: bool(a.option_strings))


def synopsis(name: str, parser: argparse.ArgumentParser) -> str:
    grouped = {a for g in parser._mutually_exclusive_groups for a in g._group_actions}
    words = [f"python -m seqlab {name}"]
    for action in listed(parser):
        if action in grouped:
            continue
        word = shown_option(action)
        words.append(word if action.required or not action.option_strings else f"[{word}]")
    for group in parser._mutually_exclusive_groups:
        either = " | ".join(shown_option(a) for a in group._group_actions)
        words.append(f"({either})" if group.required else f"[{either}]")
    return " ".join(words)


def default_of(action: argparse.Action) -> str:
    if action.nargs == 0 or action.default in (None, argparse.SUPPRESS, []):  # a switch, or nothing given
        return ""
    return f"`{action.default}`"


def value_of(action: argparse.Action) -> str:
    if action.nargs == 0:
        return "switch"
    if action.choices is not None:
        return "one of " + ", ".join(f"`{c}`" for c in action.choices)
    kind = {int: "an integer", float: "a number"}.get(getattr(action.type, "result_type", action.type), "text")
    return kind + (", repeatable" if isinstance(action, argparse._AppendAction) else "")


def option_rows(parser: argparse.ArgumentParser) -> list[str]:
    either = {a: g for g in parser._mutually_exclusive_groups for a in g._group_actions}
    rows = []
    for action in listed(parser):
        needed = "yes" if action.required else ""
        if action in either:
            others = ", ".join(f"`{o.option_strings[-1]}`" for o in either[action]._group_actions if o is not action)
            needed = f"{'one' if either[action].required else 'at most one'} of this and {others}"
        names = ", ".join(f"`{o}`" for o in action.option_strings) or f"`{value_name(action)}`"
        rows.append(
            f"| {names} | {cell(value_of(action))} | {default_of(action)} | {cell(needed)} | {cell(action.help or '')} |"
        )
    return rows


def render(parser: argparse.ArgumentParser | None = None) -> str:
    """docs/cli.md for ``parser`` (default: seqlab's own)."""
    parser = parser or build_parser()
    sub = subcommands(parser)
    helps = {choice.dest: choice.help for choice in sub._choices_actions}
    lines = [HEADER.format(description=parser.description), "| command | what it does |", "| --- | --- |"]
    lines += [f"| [`{name}`](#{name}) | {cell(helps.get(name, ''))} |" for name in sub.choices]
    for name, command in sub.choices.items():
        lines += ["", f"## {name}", "", f"{helps.get(name, '')[:1].upper()}{helps.get(name, '')[1:]}.", ""]
        lines += ["```", synopsis(name, command), "```", ""]
        lines += ["| argument | value | default | required | what it does |", "| --- | --- | --- | --- | --- |"]
        lines += option_rows(command)
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    sys.stdout.write(render())
