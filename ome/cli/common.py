"""Shared pieces of the command line: option decorators, JSON output, error conversion."""

from __future__ import annotations

import functools
import sys
from collections.abc import Callable
from typing import Any, TypeVar

import click
import orjson

from ome.errors import OmeError

F = TypeVar("F", bound=Callable[..., Any])


def json_option(func: F) -> F:
    """`--json`: print one JSON document on stdout instead of human text."""
    return click.option(
        "--json", "as_json", is_flag=True, help="Print one JSON document (sorted keys)."
    )(func)


def data_dir_option(func: F) -> F:
    """`--data-dir`: the global library (default: $OME_HOME, else ~/.oh-my-experience)."""
    return click.option(
        "--data-dir",
        type=click.Path(file_okay=False),
        default=None,
        help="Data directory (default: $OME_HOME, else ~/.oh-my-experience).",
    )(func)


def cwd_option(func: F) -> F:
    """`--cwd`: the directory whose project library applies (default: the current directory)."""
    return click.option(
        "--cwd",
        type=click.Path(file_okay=False),
        default=None,
        help="Working directory used to find the project library (default: current directory).",
    )(func)


def recall_knobs(func: F) -> F:
    """`--limit` and `--threshold`: the recall knobs `match` and `eval recall` share."""
    func = click.option(
        "--threshold",
        type=click.IntRange(0, 100),
        default=None,
        help="Evidence score to reach (0-100).",
    )(func)
    return click.option(
        "--limit", type=click.IntRange(1, 20), default=None, help="Most cards returned."
    )(func)


def to_json(doc: Any) -> str:
    """Stable JSON text: sorted keys, UTF-8, two-space indent."""
    return orjson.dumps(doc, option=orjson.OPT_SORT_KEYS | orjson.OPT_INDENT_2).decode("utf-8")


def emit_json(doc: Any) -> None:
    click.echo(to_json(doc))


def handle_errors(func: F) -> F:
    """Turn OmeError into a one-line message (or a JSON error with --json) and exit code 1."""

    @functools.wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return func(*args, **kwargs)
        except OmeError as exc:
            message = str(exc)
            if kwargs.get("as_json"):
                emit_json({"ok": False, "error": {"code": exc.code, "message": message}})
                sys.exit(1)
            raise click.ClickException(message) from None

    return wrapper  # type: ignore[return-value]
