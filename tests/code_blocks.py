"""Every code block of README and of the guide's pages, run as a reader would run it.

    python -m tests.code_blocks --list                    # every block: run, or not and why
    python -m tests.code_blocks --run docs/getting-started.md [--with-corpora] [--write]

A page's `bash` and `python` blocks run in order, in one temporary folder (where the repository's
script folders are linked, so `python experiments/run.py ...` works as in a clone): a `python`
block in one namespace per page, a `bash` block as a script (`bash -e -o pipefail`) with this
Python first on PATH. A block whose first line is `# NAME.py` is a file the reader writes: it is
saved as NAME.py there (a later `--import NAME` finds it) and not run. The block fails if it
raises or exits non-zero. Markers, HTML comments right above a block (shown in the page's source,
and in the test's skip reasons):

    <!-- not run: REASON -->              the block is not run (it installs, downloads, opens a window...)
    <!-- not run, line N: REASON -->      its line N (from 1) is not run; the others are
    <!-- needs: corpora -->               runs only with NLI_DATA_DIR (and `wordnet`: with WordNet)

A `python` block followed by `<!-- output -->` and a `text` block shows its output: what it
prints must be that block (a line `...` stands for any lines); `--write` rewrites such blocks.
Command outputs shown with `<!-- example: ... -->` are checked by tests/readme_examples.py.
"""
from __future__ import annotations

import argparse
import contextlib
import io
import json
import os
import re
import subprocess
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
RUNNABLE = ("bash", "python")
LINKED = ("experiments", "learning_curves", "benchmarks", "docs", "examples")  # what a clone's commands name
_FENCE = re.compile(r"^```(?P<lang>[^\n`]*)\n(?P<code>.*?)^```[ \t]*$", re.S | re.M)
_MARK = re.compile(r"<!-- (?:(?P<not>not run)(?:, line (?P<line>\d+))?: (?P<reason>.+?)|needs: (?P<needs>[a-z, ]+)"
                   r"|(?P<output>output)) -->")


def documents() -> list[Path]:
    return [REPO / "README.md", *sorted((REPO / "docs").glob("*.md"))]


@dataclass
class Block:
    page: Path
    line: int            # of the opening fence, from 1
    lang: str
    code: str
    not_run: str | None = None
    lines_not_run: dict[int, str] = field(default_factory=dict)
    needs: frozenset = frozenset()
    output: tuple[int, int] | None = None  # where the shown output's text lies in the page

    @property
    def name(self) -> str:
        page = self.page.relative_to(REPO) if self.page.is_relative_to(REPO) else self.page
        return f"{page}:{self.line}"

    @property
    def file(self) -> str | None:
        """The file the block is, when its first line is `# NAME.py`."""
        first = self.code.split("\n", 1)[0].strip()
        found = re.fullmatch(r"# ([\w.-]+\.py)", first) if self.lang == "python" else None
        return found[1] if found else None


def blocks(page: Path, text: str | None = None, *, with_examples: bool = False) -> list[Block]:
    """The runnable blocks of `page`, with their markers and shown outputs; `with_examples`: the
    commands of its `<!-- example: ... -->` outputs too (lang "example", the spec as code), in
    the page's order, since a later block may read what such a command wrote."""
    text = page.read_text(encoding="utf-8") if text is None else text
    found = []
    if with_examples:
        from tests.readme_examples import BLOCK
        found += [Block(page, text.count("\n", 0, m.start()) + 1, "example", m["spec"]) for m in BLOCK.finditer(text)]
    for match in _FENCE.finditer(text):
        lang = match["lang"].strip()
        if lang not in RUNNABLE:
            continue
        block = Block(page, text.count("\n", 0, match.start()) + 1, lang, match["code"])
        above = text[:match.start()].split("\n")[:-1]
        while above and _MARK.fullmatch(above[-1].strip()):
            mark = _MARK.fullmatch(above.pop().strip())
            if mark["not"] and mark["line"]:
                block.lines_not_run[int(mark["line"])] = mark["reason"]
            elif mark["not"]:
                block.not_run = mark["reason"]
            elif mark["needs"]:
                block.needs = frozenset(n.strip() for n in mark["needs"].split(","))
        commands = [i + 1 for i, line in enumerate(block.code.splitlines()) if line.strip()]
        if block.not_run is None and commands and all(i in block.lines_not_run for i in commands):
            block.not_run = "; ".join(dict.fromkeys(block.lines_not_run.values()))  # every line: the block
        after = re.match(r"\n*<!-- output -->\n```text\n(?P<body>.*?)```", text[match.end() + 1:], re.S)
        if after:
            start = match.end() + 1 + after.start("body")
            block.output = (start, start + len(after["body"]))
        found.append(block)
    return sorted(found, key=lambda block: block.line)


def matches(shown: str, printed: str) -> bool:
    """`printed` is what `shown` says, where a line `...` stands for any lines (none included)."""
    pattern = "".join(r"(?:.*\n)*?" if line == "..." else re.escape(line) + r"\n" for line in shown.splitlines())
    return re.fullmatch(pattern, printed if printed.endswith("\n") or not printed else printed + "\n") is not None


def _bash(block: Block, folder: Path, env: dict) -> str | None:
    lines = block.code.splitlines()
    script = "\n".join(": not run" if i + 1 in block.lines_not_run else line for i, line in enumerate(lines))
    done = subprocess.run(["bash", "-e", "-o", "pipefail", "-c", script], cwd=folder, env=env, text=True,
                          capture_output=True, stdin=subprocess.DEVNULL)
    if done.returncode != 0:
        return f"exit status {done.returncode}\n{done.stdout[-1500:]}\n{done.stderr[-3000:]}"
    return None


def _python(block: Block, namespace: dict) -> tuple[str | None, str]:
    printed = io.StringIO()
    try:
        with contextlib.redirect_stdout(printed):
            exec(compile(block.code, block.name, "exec"), namespace)
    except BaseException as error:  # noqa: B036 - a SystemExit from a block is its failure too
        import traceback
        return "".join(traceback.format_exception(error)[-6:]), printed.getvalue()
    return None, printed.getvalue()


def available() -> set[str]:
    """What the blocks marked `needs:` need and this machine has."""
    have = set()
    if os.environ.get("NLI_DATA_DIR"):
        have.add("corpora")
    try:
        from nli_baselines.features.text.wordnet_data import wordnet_available
        if wordnet_available():
            have.add("wordnet")
    except ImportError:
        pass
    return have


def run_page(page: Path, have: set[str], *, write: bool = False) -> dict:
    """Run the page's blocks in order; per block "ran", "skipped: why" or "failed: what"."""
    results: dict[str, str] = {}
    text = page.read_text(encoding="utf-8")
    outputs: list[tuple[int, int, str]] = []  # (start, end, printed) of the shown outputs, for --write
    env = {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}",
           "NLI_NO_PROGRESS": "1"}
    if "corpora" not in have:
        env.pop("NLI_DATA_DIR", None)
    namespace: dict = {"__name__": "__main__"}
    with tempfile.TemporaryDirectory(prefix="nli-page-") as scratch, contextlib.chdir(scratch):
        folder = Path(scratch)
        for name in LINKED:
            (folder / name).symlink_to(REPO / name, target_is_directory=True)
        sys.path.insert(0, scratch)  # a page's own modules (`# my_features.py`) import from here
        try:
            for block in blocks(page, text, with_examples=True):
                if block.lang == "example":  # its output is checked by tests/readme_examples.py; here, what it writes
                    from tests.readme_examples import Example, produce
                    example = Example(block.code, "", 0, 0)
                    if example.needs_corpora and "corpora" not in have:
                        results[block.name] = "skipped: needs corpora"
                        continue
                    try:
                        with contextlib.redirect_stderr(io.StringIO()):
                            produce(example)
                        results[block.name] = "ran"
                    except Exception as error:  # noqa: BLE001 - reported as the block's failure
                        results[block.name] = f"failed: {error}"
                    continue
                missing = sorted(block.needs - have)
                if block.not_run:
                    results[block.name] = f"skipped: not run: {block.not_run}"
                    continue
                if missing:
                    results[block.name] = f"skipped: needs {', '.join(missing)}"
                    continue
                if block.file:
                    (folder / block.file).write_text(block.code, encoding="utf-8")
                    results[block.name] = f"ran: wrote {block.file}"
                    continue
                if block.lang == "bash":
                    failure, printed = _bash(block, folder, env), ""
                else:
                    failure, printed = _python(block, namespace)
                if failure:
                    results[block.name] = f"failed: {failure}"
                    continue
                results[block.name] = "ran"
                if block.output:
                    shown = text[block.output[0]:block.output[1]]
                    if write:
                        outputs.append((*block.output, printed))
                    elif not matches(shown, printed):
                        results[block.name] = f"failed: its output is not what the page shows:\n{shown}\nprinted:\n" \
                                              f"{printed}"
        finally:
            sys.path.remove(scratch)
    if outputs:
        for start, end, printed in reversed(outputs):
            text = text[:start] + printed + text[end:]
        page.write_text(text, encoding="utf-8")
    return results


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--list", action="store_true", help="every block and whether it is run")
    parser.add_argument("--run", metavar="PAGE", help="run the page's blocks; print the results as JSON")
    parser.add_argument("--with-corpora", action="store_true", help="also the blocks marked `needs:` (if available)")
    parser.add_argument("--write", action="store_true", help="with --run: rewrite the outputs the page shows")
    args = parser.parse_args(argv)
    if args.run:
        have = available() if args.with_corpora else set()
        print(json.dumps(run_page(Path(args.run).resolve(), have, write=args.write)))
        return 0
    for page in documents():
        for block in blocks(page):
            how = (f"not run: {block.not_run}" if block.not_run else "file" if block.file
                   else f"needs {', '.join(sorted(block.needs))}" if block.needs else "run")
            print(f"{block.name} {block.lang}: {how}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
