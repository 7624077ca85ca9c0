"""How to type one of the suite's commands in a message, from where the user stands: the script
in a checkout (`python experiments/download.py`), else the installed console command
(`nli-download`)."""
from __future__ import annotations

from pathlib import Path

SCRIPTS = {"download": ("experiments/download.py", "nli-download"),
           "diagnose": ("experiments/diagnose.py", "nli-diagnose"),
           "run": ("experiments/run.py", "nli-run")}


def command(name: str) -> str:
    """`python experiments/download.py` when that script is under the current directory, else `nli-download`."""
    script, console = SCRIPTS[name]
    return f"python {script}" if Path(script).is_file() else console


class MissingDependencyError(RuntimeError):
    """An optional part of the suite that is not installed; the message says how to install it,
    as the suite was installed (from a checkout, or from the package index)."""

    def __init__(self, what: str, extra: str, alternative: str = ""):
        # its own lines, printed as lines (`commandline.exits`)
        self.lines = (f"{what} is not installed. Install it with", f"  {install_command(extra)}",
                      *([f"or {alternative}"] if alternative else []))
        super().__init__("\n".join(self.lines))


def install_command(extra: str) -> str:
    """`pip install -e '.[tagger]'` in a checkout of the suite, `pip install 'nli-baselines[tagger]'` elsewhere."""
    checkout = Path(__file__).resolve().parents[2]
    if (checkout / "pyproject.toml").is_file() and Path.cwd().resolve() == checkout:
        return f"python -m pip install -e '.[{extra}]'"
    return f"python -m pip install 'nli-baselines[{extra}]'"
