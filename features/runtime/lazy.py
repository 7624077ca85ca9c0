"""Package exports imported on first use (PEP 562), so that importing a package for one light
name (a command line's `--help`) does not import the numeric code behind the others."""
from __future__ import annotations

import importlib
import sys
from typing import Callable


def lazy_exports(package: str, where: dict[str, str]) -> tuple[Callable, Callable]:
    """`(__getattr__, __dir__)` for `package`, whose name N is defined in its submodule `where[N]`."""

    def __getattr__(name: str):
        if name in where:
            value = getattr(importlib.import_module(f".{where[name]}", package), name)
            setattr(sys.modules[package], name, value)
            return value
        raise AttributeError(f"module {package!r} has no attribute {name!r}")

    def __dir__():
        return sorted([*vars(sys.modules[package]), *where])

    return __getattr__, __dir__
