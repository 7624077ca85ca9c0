"""The Python faces of the options table, written out as source: `RunConfig`'s typed fields and the
signatures of `nb.run` and `nb.learning_curve`, so that a type checker, an IDE, `help()` and the API
reference see every option with its type and default. The table
(`experiments/configuration/options.py`) stays the one place an option is declared; the blocks
between the markers are generated from it, and tests/test_options.py fails when they drift.

    python -m tests.option_signatures          # rewrite the blocks after changing the table
"""
from __future__ import annotations

import json
import sys
import textwrap
from pathlib import Path

from nli_baselines.experiments.configuration.options import COMMANDS, RunOption, for_command, options

REPO = Path(__file__).resolve().parents[1]
CONFIG = REPO / "experiments" / "configuration" / "config.py"
API = REPO / "experiments" / "api.py"
BEGIN = "# BEGIN generated from the options table by tests/option_signatures.py: do not edit by hand"
END = "# END generated"
WIDTH = 120


def _config_names() -> list[str]:
    """The options that are `RunConfig` fields, for any command, in the table's order."""
    wanted = {o.name for command in COMMANDS for o in for_command(command, config_only=True)}
    return [name for name in options() if name in wanted]


def config_fields() -> list[str]:
    return [f"{name}: {options()[name].stores}" for name in _config_names()]


def _default(option: RunOption) -> str:
    # A signature shows an immutable default: the table's {} (no label map) is written as None,
    # which the option reads the same way. Texts in double quotes, as the code around them.
    value = None if option.default == {} else option.default
    return json.dumps(value) if isinstance(value, str) else repr(value)


def _wrapped(text: str, indent: str) -> list[str]:
    return textwrap.wrap(text, WIDTH - len(indent), initial_indent="", subsequent_indent="    ",
                         break_on_hyphens=False) or [""]


def function(name: str, command: str, head: str, extra: list[str], body: list[str], returns: str) -> list[str]:
    """The whole function: keyword-only parameters (the command's options, then `extra`), a
    docstring of `head` and one line per option, and `body`."""
    table = [o for o in for_command(command, config_only=True)]
    params = [f"{o.name}: {o.accepts + (' | None' if o.default == {} else '')} = {_default(o)}" for o in table]
    params += extra
    lines = [f"def {name}("]
    line = "        *,"
    for param in params:
        piece = f" {param},"
        if len(line) + len(piece) > WIDTH:
            lines.append(line)
            line = "        " + param + ","
        else:
            line += piece
    lines += [line, f") -> {returns}:"]
    doc = [f'    """{head[0]}', *(f"    {h}" if h else "" for h in head[1:]), "",
           "    Options, the command line's by name (--train-size is train_size):", ""]
    for option in table:
        text = f"{option.name}: {option.help} (default: {_default(option)})"
        wrapped = _wrapped(text, "    ")
        doc += [f"    {wrapped[0]}", *(f"    {w}" for w in wrapped[1:])]
    doc += ['    """']
    return lines + [d.rstrip() if d.strip() else "" for d in doc] + [f"    {b}" if b else "" for b in body]


def api_functions() -> list[str]:
    run = function(
        "run", "run",
        ["Train and evaluate a baseline, as `run.py` does: a `RunResult` (its table, record and fitted models).",
         "",
         "    nb.run(dataset=\"sick\", features=\"lexicalized\", ablate=[\"cross_bigrams\"])",
         "    nb.run(dataset=\"rte3\", paper_table=True, bootstrap=20)",
         "    nb.run(train_file=\"train.csv\", dev_file=\"dev.csv\", label_column=\"gold\")",
         "",
         "A value an option does not take is a UsageError with the command line's message; passing an",
         "option's default is the same as leaving it out."],
        [], ["config = RunConfig(\"run\", **_given(locals(), \"run\"))",
             "return RunResult(run_experiment(config), config)"], "RunResult")
    curve = function(
        "learning_curve", "curve",
        ["Accuracy against training-set size, as `learning_curves/run.py` draws it: a `CurveResult`.",
         "",
         "    nb.learning_curve(dataset=\"sick\", sizes=\"10,100,1000,all\", seeds=3)",
         "",
         "out: a directory where points are saved as they finish (`curve.csv`); the same call resumes.",
         "overwrite: start again in `out` instead of resuming."],
        ["out: str | PathLike[str] | None = None", "overwrite: bool = False"],
        ["config = RunConfig(\"curve\", **_given(locals(), \"curve\"))",
         "return CurveResult(draw(config, out, overwrite=overwrite), config)"], "CurveResult")
    return run + ["", ""] + curve


def _block(path: Path, lines: list[str], indent: str) -> str:
    """The file's text with the generated block replaced by `lines` (indented by `indent`)."""
    text = path.read_text(encoding="utf-8")
    start, end = text.index(BEGIN), text.index(END)
    head = text[:start].rstrip(" ")
    body = "\n".join(f"{indent}{line}" if line else "" for line in lines)
    return f"{head}{indent}{BEGIN}\n{body}\n{indent}{text[end:]}"


def expected() -> dict[Path, str]:
    return {CONFIG: _block(CONFIG, config_fields(), "    "), API: _block(API, api_functions(), "")}


def main() -> int:
    for path, text in expected().items():
        if path.read_text(encoding="utf-8") != text:
            path.write_text(text, encoding="utf-8")
            print(f"rewrote {path.relative_to(REPO)}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
