"""Readers, runners and writers: corpora (`corpora/`), the experiment engine (`engine/`), what a
run writes (`outputs/`), breakdowns and reports, and the command-line scripts (`run.py`,
`predict.py`, `glue.py`, ...). The Python API is the package's: `import nli_baselines as nb`."""

if __name__ != "nli_baselines.experiments":  # the folder is a subpackage of nli_baselines, never a top-level name
    raise ImportError(f"{__name__} is the folder of nli_baselines.experiments: import nli_baselines.experiments "
                      "(pip install the suite; a checkout's root on sys.path does not make it a package of its own)")
