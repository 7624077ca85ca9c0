"""Readers, runners and writers of the NLI baseline suite, and its Python API:

    import experiments
    result = experiments.run(dataset="sick", ablate=["cross_bigrams"])       # a RunResult
    curve = experiments.learning_curve(dataset="sick", sizes="10,100,all")  # a CurveResult
    model = experiments.load_model("sick.model")
    print(experiments.compare(result_a, result_b))                          # McNemar + bootstrap
    print(experiments.hans(model, "hans-mini"))                             # HANS's breakdown

The API is imported on first use, so the command-line scripts start fast.
"""
from .version import __version__

API = ("run", "learning_curve", "load_model", "compare", "hans", "RunResult", "CurveResult", "Comparison",
       "RunConfig", "HansResult")


def __getattr__(name: str):
    if name in API:
        from . import api
        return getattr(api, name)
    raise AttributeError(f"module 'experiments' has no attribute {name!r}")


def _api_script(module_name: str, function: str) -> None:
    """Let the script module `experiments.<function>` stand for the API function it shares a name
    with. Importing a submodule makes it an attribute of the package (a console entry point
    imports `experiments.run`), which would hide the function; the module then calls it."""
    import sys
    import types

    class _CallableScript(types.ModuleType):
        def __call__(self, *args, **kwargs):
            from . import api
            return getattr(api, function)(*args, **kwargs)

    sys.modules[module_name].__class__ = _CallableScript


def __dir__():
    return sorted([*globals(), *API])


__all__ = ["__version__", *API]
