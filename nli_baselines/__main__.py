"""`python -m nli_baselines COMMAND ...`: the suite's commands, as the nli-* console scripts run them.

    python -m nli_baselines run --dataset demo --ablate cross_bigrams
    python -m nli_baselines curves --dataset sick --out curves/
"""
from __future__ import annotations

import importlib
import sys

# command -> the module whose main(argv) runs it (the console scripts' names without "nli-")
COMMANDS = {
    "run": "experiments.run", "predict": "experiments.predict", "curves": "learning_curves.run",
    "glue": "experiments.glue", "bundle": "experiments.bundle", "diagnose": "experiments.diagnose",
    "compare": "experiments.compare", "download": "experiments.download", "datasets": "experiments.datasets",
}


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    if not argv or argv[0] in ("-h", "--help"):
        print(__doc__.strip().split("\n")[0])
        print(f"commands: {', '.join(COMMANDS)} (python -m nli_baselines COMMAND --help)")
        return 0 if argv else 2
    command, rest = argv[0], argv[1:]
    if command not in COMMANDS:
        print(f"error: unknown command {command!r}; choose from {', '.join(COMMANDS)}", file=sys.stderr)
        return 2
    module = importlib.import_module(f"nli_baselines.{COMMANDS[command]}")
    sys.argv[0] = f"python -m nli_baselines {command}"
    return module.main(rest)


if __name__ == "__main__":
    raise SystemExit(main())
