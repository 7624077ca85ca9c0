"""The example outputs of README and of the guide's pages (docs/*.md), produced by the code: each
is a command run in process, its output written between markers, so that no page can go stale.

    python -m tests.readme_examples --write     # regenerate every example (NLI_DATA_DIR for SICK ones)
    python -m tests.readme_examples --check     # what tests/test_readme.py checks

In a page an example is

    <!-- example: run --dataset sick --top-features 3 | grep top features for -->
    ```text
    $ python experiments/run.py --dataset sick --top-features 3
    ...
      top features for contradiction: ...
    ```
    <!-- /example -->

The command is a script (run, curve, compare, predict) and its arguments; `| grep TEXT` keeps the
lines holding TEXT. A page's examples run in order in one temporary folder, so a file one writes
(`--save-model demo.model`) is there for the next. Timings vary from run to run: a table's
`seconds` column and the figures of a report's `stages:` line are compared as placeholders.
"""
from __future__ import annotations

import argparse
import contextlib
import functools
import importlib
import io
import os
import re
import shlex
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
README = REPO / "README.md"


def documents() -> list[Path]:
    """Every page that may hold examples: README and the guide's pages."""
    return [README, *sorted((REPO / "docs").glob("*.md"))]
SCRIPTS = {"run": ("nli_baselines.experiments.run", "experiments/run.py"), "curve": ("nli_baselines.learning_curves.run", "learning_curves/run.py"),
           "compare": ("nli_baselines.experiments.compare", "experiments/compare.py"),
           "predict": ("nli_baselines.experiments.predict", "experiments/predict.py")}
BLOCK = re.compile(r"<!-- example: (?P<spec>.+?) -->\n```text\n(?P<body>.*?)```\n<!-- /example -->", re.S)
CORPORA_NEEDED = ("--dataset sick", "--dataset rte", "--dataset snli", "--dataset cb")


@dataclass
class Example:
    spec: str
    body: str
    start: int
    end: int

    @property
    def script(self) -> str:
        return shlex.split(self.command)[0]

    @property
    def command(self) -> str:
        return self.spec.split(" | grep ")[0].strip()

    @property
    def grep(self) -> str | None:
        parts = self.spec.split(" | grep ", 1)
        return parts[1].strip() if len(parts) == 2 else None

    @property
    def needs_corpora(self) -> bool:
        return any(flag in self.command for flag in CORPORA_NEEDED)


def examples(text: str) -> list[Example]:
    return [Example(m["spec"], m["body"], m.start("body"), m.end("body")) for m in BLOCK.finditer(text)]


def produce(example: Example) -> str:
    """The example's block as the code writes it now: the command typed, then what it printed."""
    return _produce(example.spec, os.getcwd())


@contextlib.contextmanager
def page_folder():
    """A temporary working folder for one page's examples, in order."""
    with tempfile.TemporaryDirectory(prefix="nli-examples-") as folder, contextlib.chdir(folder):
        yield folder


@functools.lru_cache(maxsize=None)
def _produce(spec: str, folder: str) -> str:
    example = Example(spec, "", 0, 0)
    module, path = SCRIPTS[example.script]
    args = shlex.split(example.command)[1:]
    out = io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(io.StringIO()):
        code = importlib.import_module(module).main(args)
    if code:
        raise RuntimeError(f"{example.command} exited with {code}")
    lines = out.getvalue().splitlines()
    if example.grep:
        lines = ["..."] + [line for line in lines if example.grep in line]
    return "\n".join([f"$ python {path} {' '.join(args)}", *lines]) + "\n"


def normalized(body: str) -> str:
    """The block with what varies between runs masked: the `seconds` column of a table."""
    out, span = [], None
    for line in body.splitlines():
        if line.startswith("stages: "):  # each stage's seconds and the peak memory
            out.append(re.sub(r"\d+(\.\d+)?", "#", line))
            continue
        header = re.search(r"(?<=  )seconds(?=  |$)", line)
        if header and line.lstrip().startswith("row"):
            span = (header.start(), header.end())
        elif span and line.strip() and not line.startswith("  ") and len(line) >= span[1]:
            line = line[:span[0]] + "#" * (span[1] - span[0]) + line[span[1]:]
        elif not line.strip():
            span = None
        out.append(line)
    return "\n".join(out)


def check(text: str | None = None, *, with_corpora: bool, name: str = "README") -> list[str]:
    """The examples whose block differs from what the code prints (a diff-ready message each): in
    `text` (called `name`), or in every page when no text is given."""
    if text is None:
        return [problem for path in documents()
                for problem in check(path.read_text(encoding="utf-8"), with_corpora=with_corpora,
                                     name=str(path.relative_to(REPO)))]
    problems = []
    with page_folder():
        for example in examples(text):
            if example.needs_corpora and not with_corpora:
                continue
            problems += _stale(example, name)
    return problems


def _stale(example: Example, name: str) -> list[str]:
    fresh = produce(example)
    if normalized(fresh) == normalized(example.body):
        return []
    return [f"{name}'s example `{example.spec}` is stale; python -m tests.readme_examples --write "
            f"rewrites it. {name} has:\n{example.body}\nthe code prints:\n{fresh}"]


def write(with_corpora: bool) -> int:
    changed = 0
    for path in documents():
        text = path.read_text(encoding="utf-8")
        fresh = {}
        with page_folder():  # in the page's order: an example may read what an earlier one wrote
            for example in examples(text):
                if example.needs_corpora and not with_corpora:
                    print(f"skipped (needs NLI_DATA_DIR): {path.name}: {example.spec}", file=sys.stderr)
                    continue
                fresh[example.start] = produce(example)
        for example in reversed(examples(text)):
            if example.start in fresh and fresh[example.start] != example.body:
                text = text[:example.start] + fresh[example.start] + text[example.end:]
                changed += 1
        path.write_text(text, encoding="utf-8")
    return changed


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--write", action="store_true", help="regenerate the examples of README and the guide")
    parser.add_argument("--check", action="store_true", help="report stale examples (exit 1)")
    args = parser.parse_args(argv)
    with_corpora = bool(os.environ.get("NLI_DATA_DIR"))
    if args.write:
        print(f"{write(with_corpora)} example(s) rewritten")
        return 0
    problems = check(with_corpora=with_corpora)
    for problem in problems:
        print(problem)
    return 1 if problems else 0


if __name__ == "__main__":
    raise SystemExit(main())
