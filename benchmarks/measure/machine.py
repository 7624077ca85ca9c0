"""The machine a figure was measured on: the CPU, the SIMD groups numpy dispatches to, and the
kernel OpenBLAS picked. Speed and the last bits of a fit depend on all three (docs/performance.md),
so every benchmark record carries them beside its figures."""
from __future__ import annotations

import os
import platform

# Settings that change which kernels run, or how many threads: recorded when set.
_SETTINGS = ("OPENBLAS_CORETYPE", "OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "NPY_DISABLE_CPU_FEATURES",
             "NPY_ENABLE_CPU_FEATURES", "MKL_NUM_THREADS", "GLIBC_TUNABLES")


def cpu_model() -> str:
    """The CPU's name as the OS gives it (Linux: /proc/cpuinfo's first "model name", with its
    family and model numbers, which tell apart CPUs a virtual machine names alike: "AMD EPYC"
    is family 23 for Zen 1-2, 25 for Zen 3-4, 26 for Zen 5)."""
    fields: dict = {}
    try:
        with open("/proc/cpuinfo", encoding="utf-8", errors="replace") as handle:
            for line in handle:
                if not line.strip():
                    break  # the first processor's block is enough
                key, _, value = line.partition(":")
                fields.setdefault(key.strip(), value.strip())
    except OSError:
        pass
    name = fields.get("model name") or fields.get("Model") or fields.get("Hardware")
    if not name:
        return platform.processor() or platform.machine()
    numbers = [f"{label} {fields[key]}" for key, label in (("cpu family", "family"), ("model", "model"))
               if fields.get(key)]
    return f"{name} ({', '.join(numbers)})" if numbers else name


def numpy_simd() -> dict:
    """numpy's SIMD groups: the baseline it was built for, and those found above it that it uses."""
    try:
        from numpy._core._multiarray_umath import __cpu_baseline__, __cpu_dispatch__, __cpu_features__
    except ImportError:  # numpy < 2
        from numpy.core._multiarray_umath import __cpu_baseline__, __cpu_dispatch__, __cpu_features__
    return {"baseline": list(__cpu_baseline__),
            "found": [name for name in __cpu_dispatch__ if __cpu_features__.get(name)]}


def blas() -> list[dict]:
    """Each BLAS library loaded (numpy's and scipy's OpenBLAS are two), with the kernel it picked
    (OpenBLAS: Haswell, SkylakeX, Zen, ...) and its thread count."""
    import numpy  # noqa: F401  (loads numpy's BLAS)
    import scipy.linalg  # noqa: F401  (and scipy's)
    from threadpoolctl import threadpool_info
    return [{"library": info.get("internal_api"), "kernel": info.get("architecture"), "threads": info.get("num_threads"),
             "version": info.get("version")} for info in threadpool_info() if info.get("user_api") == "blas"]


def machine() -> dict:
    """The CPU (model, architecture, cores this process may use), numpy's SIMD groups, the BLAS
    kernels, and the environment settings that choose among them."""
    try:
        usable = len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        usable = os.cpu_count()
    return {"cpu": cpu_model(), "architecture": platform.machine(), "cores": os.cpu_count(), "usable_cores": usable,
            "numpy_simd": numpy_simd(), "blas": blas(),
            "settings": {name: os.environ[name] for name in _SETTINGS if name in os.environ}}


def describe(record: dict) -> str:
    """One line for a log or a table: CPU, numpy's SIMD groups, the BLAS kernels, the settings."""
    kernels = sorted({str(b["kernel"]) for b in record["blas"]})
    simd = record["numpy_simd"]
    settings = " ".join(f"{k}={v}" for k, v in record["settings"].items())
    cores = record["usable_cores"]
    return (f"{record['cpu']} ({cores} core{'' if cores == 1 else 's'}); numpy SIMD {'+'.join(simd['baseline'])}"
            f"{' + ' + ', '.join(simd['found']) if simd['found'] else ' only'}; OpenBLAS {', '.join(kernels)}"
            f"{'; ' + settings if settings else ''}")
