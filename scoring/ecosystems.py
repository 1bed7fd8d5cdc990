"""The ecosystems a tree belongs to, as METRICS.md §0.3 names them: which languages its
sources are written in, and which manifests and build files mark each ecosystem.

This is the curator's first question about a deposit ("an R package? a Nextflow
pipeline? a CMake code?"): the text output of ``reproscore score`` and the inventory show
it, so a reader can see in which ecosystem each sub-metric was measured. It describes the
tree; no value depends on it.
"""

from __future__ import annotations

import fnmatch
from collections.abc import Iterable
from dataclasses import dataclass

from .frontends import frontend_name

MARKERS_SHOWN = 4


@dataclass(frozen=True)
class EcosystemRule:
    name: str
    # language frontends whose files are this ecosystem's sources (scoring.frontends)
    frontends: tuple[str, ...] = ()
    # other source suffixes (lower-case) that count as its files
    suffixes: tuple[str, ...] = ()
    # file-name patterns (lower-case, fnmatch) of the manifests, lockfiles and build
    # files that mark it, wherever they are
    markers: tuple[str, ...] = ()


# In the order of §0.3's table. A workflow's own files (Snakefile, *.smk, *.nf,
# nextflow.config) are the workflow ecosystem's; the scripts its steps run count for
# their own languages.
RULES: tuple[EcosystemRule, ...] = (
    EcosystemRule(
        "Python", frontends=("python",),
        markers=("pyproject.toml", "setup.py", "setup.cfg", "requirements*.txt", "pipfile", "pipfile.lock",
                 "poetry.lock", "uv.lock", "pixi.toml"),
    ),
    EcosystemRule("R", frontends=("r",), markers=("description", "renv.lock", "packrat.lock", "*.rproj")),
    EcosystemRule("Julia", frontends=("julia",), markers=("project.toml", "manifest.toml", "juliaproject.toml")),
    EcosystemRule("MATLAB/Octave", frontends=("matlab",), suffixes=(".mlx",), markers=("*.prj",)),
    EcosystemRule(
        "C/C++", frontends=("c_cpp",),
        markers=("cmakelists.txt", "meson.build", "conanfile.txt", "conanfile.py", "conan.lock", "vcpkg.json",
                 "configure.ac", "spack.yaml", "spack.lock"),
    ),
    EcosystemRule("Fortran", frontends=("fortran",), markers=("fpm.toml",)),
    EcosystemRule("Nextflow", frontends=("nextflow",), markers=("nextflow.config", "nf-test.config")),
    EcosystemRule("Snakemake", frontends=("snakemake",)),
    EcosystemRule("shell", suffixes=(".sh", ".bash")),
    # build and environment files of any language: Make, conda, container recipes
    EcosystemRule("Make", markers=("makefile", "gnumakefile", "*.mk")),
    EcosystemRule("conda", markers=("environment.yml", "environment.yaml", "conda_env*.yml", "conda_env*.yaml")),
    EcosystemRule("containers", markers=("dockerfile", "dockerfile.*", "*.dockerfile", "containerfile", "singularity",
                                          "singularity.*", "apptainer.def", "docker-compose.y*ml", "compose.y*ml")),
)


@dataclass(frozen=True)
class Ecosystem:
    name: str
    files: int                       # its source files
    markers: tuple[str, ...] = ()    # its manifests and build files, shallowest first

    def to_dict(self) -> dict:
        return {"name": self.name, "files": self.files, "markers": list(self.markers)}

    @classmethod
    def from_dict(cls, data: dict) -> Ecosystem:
        return cls(data["name"], data["files"], tuple(data.get("markers") or ()))

    def describe(self) -> str:
        """``R 120 files (DESCRIPTION, renv.lock)``; ``conda (environment.yml)`` for an
        ecosystem marked by files that are not its sources."""
        shown = ", ".join(self.markers[:MARKERS_SHOWN])
        if len(self.markers) > MARKERS_SHOWN:
            shown += f", +{len(self.markers) - MARKERS_SHOWN} more"
        head = self.name if not self.files else f"{self.name} {self.files} file{'' if self.files == 1 else 's'}"
        return head + (f" ({shown})" if shown else "")


def find_ecosystems(paths: Iterable[str]) -> tuple[Ecosystem, ...]:
    """The ecosystems of the files ``paths`` (repository-relative, links excluded), most
    source files first, then in the order of :data:`RULES`. An ecosystem with markers but
    no sources (a DESCRIPTION beside no R code) is listed with 0 files."""
    counts = [0] * len(RULES)
    markers: list[list[str]] = [[] for _ in RULES]
    for path in paths:
        name = path.rsplit("/", 1)[-1].lower()
        frontend = frontend_name(path)
        dot = name.rfind(".")
        suffix = name[dot:] if dot > 0 else ""
        for index, rule in enumerate(RULES):
            if frontend is not None and frontend in rule.frontends or suffix in rule.suffixes:
                counts[index] += 1
            if any(fnmatch.fnmatchcase(name, pattern) for pattern in rule.markers):
                markers[index].append(path)
    found = [
        (index, Ecosystem(rule.name, counts[index], tuple(sorted(markers[index], key=_shallow_first))))
        for index, rule in enumerate(RULES)
        if counts[index] or markers[index]
    ]
    found.sort(key=lambda item: (-item[1].files, item[0]))
    return tuple(ecosystem for _, ecosystem in found)


def _shallow_first(path: str) -> tuple[int, str]:
    return path.count("/"), path
