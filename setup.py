"""The one thing pyproject.toml cannot say as data: the repository's layer folders (engine/,
planners/, agents/, evals/, domains/, problems/) install as subpackages of one package,
`groundplan` (groundplan.engine, ...), with every folder below them, so that site-packages gains
one top-level name and an editable install imports exactly what a wheel holds."""
from setuptools import find_namespace_packages, setup

LAYERS = ("engine", "planners", "agents", "evals", "domains", "problems")

found = find_namespace_packages(include=[pattern for layer in LAYERS for pattern in (layer, f"{layer}.*")],
                                exclude=["*.__pycache__", "*.__pycache__.*"])
setup(packages=["groundplan", *(f"groundplan.{name}" for name in found)],
      package_dir={"groundplan": "groundplan", **{f"groundplan.{layer}": layer for layer in LAYERS}})
