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
