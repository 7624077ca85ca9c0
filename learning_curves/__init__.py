"""The SNLI paper's learning-curve experiment: accuracy against training-set size, with plots."""

if __name__ != "nli_baselines.learning_curves":  # the folder is a subpackage of nli_baselines, never a top-level name
    raise ImportError(f"{__name__} is the folder of nli_baselines.learning_curves: import nli_baselines.learning_curves "
                      "(pip install the suite; a checkout's root on sys.path does not make it a package of its own)")
