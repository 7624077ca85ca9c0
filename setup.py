"""One import name, `nli_baselines`, for folders that stay at the top of the repository.

The design card's folders (features/, models/, experiments/, learning_curves/) are mapped into the
package as subpackages of their own names: nli_baselines.features is features/, and so on; the
package's own modules (its public API, its version) are in nli_baselines/. Everything else is
in pyproject.toml. The subpackages are found here, not listed, so a new folder cannot be left out.
"""
from setuptools import find_packages, setup

FOLDERS = ("features", "models", "experiments", "learning_curves")

package_dir = {"nli_baselines": "nli_baselines", **{f"nli_baselines.{folder}": folder for folder in FOLDERS}}
packages = ["nli_baselines"]
for folder in FOLDERS:
    packages += [f"nli_baselines.{folder}", *(f"nli_baselines.{folder}.{sub}" for sub in find_packages(folder))]

setup(package_dir=package_dir, packages=packages)
