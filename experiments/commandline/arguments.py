"""Argument parsers built from the options table (`configuration.options`): one flag per option a command
takes, grouped as the table groups them. argparse only collects what was typed (nothing is
converted or defaulted here); `RunConfig` checks every value, once."""
from __future__ import annotations

import argparse
import importlib
import importlib.util
import os
import sys
from pathlib import Path

import cloudpickle  # what joblib's workers and Dask pickle with (a dependency of joblib >= 1.5)

from nli_baselines.experiments.configuration.errors import UsageError
from nli_baselines.experiments.configuration.options import OptionError, for_command, options

from ..corpora.readers.common import read_limit_defaults, set_read_limits


class _Formatter(argparse.RawDescriptionHelpFormatter):
    pass


def build_parser(command: str, description: str | None = None, *, prog: str | None = None) -> argparse.ArgumentParser:
    """The parser of `command` ("run", "curve" or "predict"), every flag from the table."""
    parser = argparse.ArgumentParser(description=description, formatter_class=_Formatter, prog=prog,
                                     argument_default=argparse.SUPPRESS)
    add_import_argument(parser)
    groups: dict[str, argparse._ArgumentGroup] = {}
    for option in for_command(command):
        group = groups.get(option.group) or groups.setdefault(option.group, parser.add_argument_group(option.group))
        add_option(group, option)
    return parser


def add_option(group, option) -> None:
    """One table entry as an argparse flag (values stay text: `RunConfig` parses and checks them)."""
    kwargs: dict = {"dest": option.name, "help": _help(option)}
    if option.action == "flag":
        kwargs["action"] = "store_true"
    elif option.action == "toggle":
        kwargs["action"] = argparse.BooleanOptionalAction
    else:
        kwargs["action"] = "append" if option.action == "append" else "store"
        kwargs["metavar"] = option.metavar or _metavar(option)
    group.add_argument(option.cli_flag, **kwargs)


def _metavar(option) -> str | None:
    choices = option.parse.__dict__.get("choices")
    if isinstance(choices, tuple):
        return "{" + ",".join(map(str, choices)) + "}"
    return None


def _help(option) -> str:
    text = option.help
    if option.list_choices:
        text += f": {', '.join(map(str, option.choices))}"
    if option.action == "toggle":
        return f"{text} (default: {'on' if option.default else 'off'})"
    if option.action in ("flag",) or option.default in (None, (), {}, ""):
        return text
    return f"{text} (default: {option.default})"


def given_options(args: argparse.Namespace, command: str) -> dict:
    """The configuration options typed on the command line (outputs and defaults left out), as
    `RunConfig(command, **given)` takes them."""
    names = {o.name for o in for_command(command, config_only=True)}
    given = {}
    for name, value in vars(args).items():
        if name in names:
            given[name] = tuple(value) if isinstance(value, list) else value
    return given


def output(args: argparse.Namespace, name: str):
    """An output option of the command (not part of the run's configuration), checked like the
    others: None when not given."""
    option = options()[name]
    if not hasattr(args, name):
        return option.default
    try:
        return option.check(getattr(args, name))
    except OptionError as exc:
        raise UsageError(str(exc)) from None


def import_user_modules(argv: list[str] | None) -> list[str]:
    """Import every `--import MODULE` of the command line before anything else, so the feature types
    and models it registers exist when the run starts and when models are loaded.

    MODULE is a module name (the current directory is searched first, as `python -m` does) or the
    path of a .py file. Returns the modules imported.
    """
    pre = argparse.ArgumentParser(add_help=False)
    add_import_argument(pre)
    known = pre.parse_known_args(sys.argv[1:] if argv is None else argv)[0]
    apply_read_limits(known.read_limits)
    modules = known.modules or []
    if modules and os.getcwd() not in sys.path:
        sys.path.insert(0, os.getcwd())
    for name in modules:
        _by_value(import_module(name))
    return modules


def _by_value(module) -> None:
    """Worker processes (joblib's, Dask's) get the user's functions by value, so they never need to
    import the module: a worker started earlier, or on another machine, does not have its path."""
    if getattr(module, "__name__", "__main__") != "__main__":
        cloudpickle.register_pickle_by_value(module)


def import_module(name: str):
    """A module by name, or by the path of its .py file; any failure is one UsageError."""
    try:
        if name.endswith(".py") or os.sep in name or "/" in name:
            path = Path(name)
            if not path.is_file():
                raise UsageError(f"--import {name}: no such file")
            module_name = path.stem
            if not module_name.isidentifier():
                raise UsageError(f"--import {name}: {path.name} is not a module name (letters, digits, _)")
            if str(path.resolve().parent) not in sys.path:
                sys.path.insert(0, str(path.resolve().parent))
            existing = sys.modules.get(module_name)
            if existing is not None and Path(getattr(existing, "__file__", "") or "").resolve() == path.resolve():
                return existing
            spec = importlib.util.spec_from_file_location(module_name, path)
            module = importlib.util.module_from_spec(spec)
            sys.modules[module_name] = module
            try:
                spec.loader.exec_module(module)
            except BaseException:
                sys.modules.pop(module_name, None)
                raise
            return module
        return importlib.import_module(name)
    except UsageError:
        raise
    except SystemExit as exc:  # sys.exit() at import would end the run silently, with no outputs
        raise UsageError(f"--import {name}: the module called sys.exit({exc.code!r}) while being imported; a "
                         "module to --import should only define and register things") from None
    except Exception as exc:  # the user's code: any failure is theirs to see, in one line
        raise UsageError(f"--import {name}: {type(exc).__name__}: {exc}") from None


def add_import_argument(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--import", dest="modules", action="append", default=[], metavar="MODULE",
                        help="import this module of yours first (a module name or a .py file; repeatable): its "
                             "register_feature and register_model calls make its feature types and models available")
    add_read_limit_argument(parser)


def add_read_limit_argument(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--read-limit", dest="read_limits", action="append", default=[], metavar="NAME=SIZE",
                        help=f"raise a bound of what is read from one input (repeatable): {read_limit_defaults()}; "
                             "see docs/data.md")


def apply_read_limits(given: list[str]) -> None:
    """Set this process's read bounds (`experiments.corpora.readers.common.LIMITS`) from
    `--read-limit NAME=SIZE` values; a malformed one is a UsageError."""
    if not given:
        return
    try:
        set_read_limits(given)
    except ValueError as exc:
        raise UsageError(str(exc)) from None
