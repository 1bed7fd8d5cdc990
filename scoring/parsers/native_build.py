"""Build files of compiled (C, C++, Fortran) codes: what they declare about the
environment (METRICS.md §0.3, native codes).

* the language standard the code is written against (E4): ``set(CMAKE_<LANG>_STANDARD
  N)``, a ``<LANG>_STANDARD`` target property, ``target_compile_features(… cxx_std_N)``,
  a ``-std=`` compiler flag (CMake, Make, meson), meson's ``c_std=``/``cpp_std=``/
  ``fortran_std=`` options;
* the third-party code the build fetches or requires (E1): CMake ``FetchContent_Declare``,
  ``ExternalProject_Add`` and CPM's ``CPMAddPackage``/``CPMFindPackage``/
  ``CPMDeclarePackage`` (FetchContent wrappers, read the same way; a bare ``VERSION`` is
  the tag CPM fetches) (a 40-hex ``GIT_TAG``, a ``URL_HASH`` or a versioned release
  tarball is exact, another tag bounded, a branch or nothing unpinned), ``find_package(X
  1.2)`` (bounded, ``EXACT`` exact, no version unpinned; not inside a ``function``/``macro``
  body, whose code runs only if called: a bundled ``CPM.cmake``'s ``find_package(Git)``), meson ``subprojects/*.wrap``
  (a 40-hex ``revision`` or a ``source_hash`` exact, a tag bounded) and git submodules in
  a dependency folder (``.gitmodules``: git records each at a commit, so exact);
* the tests the build registers (S3): CMake ``add_test``, ``gtest_discover_tests``,
  ``gtest_add_tests``, ``catch_discover_tests``, ``doctest_discover_tests`` and a
  project's own ``add_<kind>_test(s)`` command (mrchem's ``add_integration_test``), not
  inside a ``function``/``macro`` body (a template, not a test); meson ``test(…)``.

And the compiler versions a prose document states (E4, §0.3 "a stated compiler version"):
"Tested with GCC 11.2", "the Intel Fortran compiler 13.1.0 (and greater)", "gfortran 4.9
and greater", "clang 15", "GCC-13", "Visual Studio 2019" (:func:`stated_compilers`).

Every function is pure: it takes one file's text and returns records; nothing raises on
bad input (an unbalanced CMake command ends at the end of the file).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from .manifests import PIN_BOUNDED, PIN_EXACT, PIN_UNPINNED, Dependency, normalize_name
from .markdown import Document

__all__ = ["BuiltModule", "LanguageStandard", "NativeBuildFile", "StatedCompiler", "TestDeclaration", "native_build_kind",
           "parse_native_build", "stated_compilers"]


@dataclass(frozen=True)
class LanguageStandard:
    """A declared language standard: the line and the declaration as written."""

    line: int
    text: str


@dataclass(frozen=True)
class TestDeclaration:
    """A test the build registers: its line and the command as written (``add_test``,
    ``test``)."""

    line: int
    command: str


@dataclass(frozen=True)
class Executable:
    """A program the build declares (CMake ``add_executable``, or the literal
    ``OUTPUT_NAME`` a target is given): its name and the declaring line."""

    name: str
    line: int


@dataclass(frozen=True)
class BuiltModule:
    """A Python extension module the build produces (f2py/f90wrap ``-m <name>``,
    ``pybind11_add_module(<name> …)``, meson ``extension_module('<name>', …)``): the name
    Python imports it by, and the declaring line."""

    name: str
    line: int


@dataclass(frozen=True)
class NativeBuildFile:
    """What one build file declares: its kind (``cmake``, ``meson``, ``meson-wrap``,
    ``git-submodules``, ``make``), language standards, and dependencies by source
    (``fetchcontent``, ``externalproject``, ``find_package``, ``meson-wrap``,
    ``git-submodule``)."""

    kind: str
    standards: tuple[LanguageStandard, ...] = ()
    dependencies: tuple[Dependency, ...] = ()
    tests: tuple[TestDeclaration, ...] = ()
    executables: tuple[Executable, ...] = ()
    project: str = ""    # the name CMake's or meson's project() gives the build
    python_modules: tuple[BuiltModule, ...] = ()


# Makefiles, and the files a Makefile includes for a platform's settings: `*.mk`,
# `make.inc` and its per-compiler samples (`make.inc.gfort`, LAPACK's and many Fortran
# codes' convention), `make.sys`, `arch.make`
_MAKE_NAME_RE = re.compile(r"(?:gnu)?makefile(?:\.[^/]+)?|[^/]+\.mk|make\.(?:inc|sys)(?:\.[^/]+)?|arch\.make",
                           re.IGNORECASE)


def native_build_kind(path: str) -> str | None:
    """The kind of build file ``path`` names, or None."""
    name = path.rsplit("/", 1)[-1]
    lower = name.lower()
    if lower == "cmakelists.txt" or lower.endswith(".cmake"):
        return "cmake"
    if lower == "meson.build":
        return "meson"
    if lower.endswith(".wrap") and path.lower().startswith("subprojects/"):
        return "meson-wrap"
    if path == ".gitmodules":
        return "git-submodules"
    if _MAKE_NAME_RE.fullmatch(name):
        return "make"
    return None


def parse_native_build(text: str, path: str) -> NativeBuildFile | None:
    """The declarations of one build file (kind from its path), None for other files."""
    kind = native_build_kind(path)
    if kind == "cmake":
        return _cmake(text, path)
    if kind == "meson":
        named = _MESON_PROJECT_RE.search(text)
        modules = tuple(BuiltModule(m.group(1), text.count("\n", 0, m.start()) + 1)
                        for m in _MESON_EXTENSION_RE.finditer(text))
        return NativeBuildFile(kind, standards=tuple(_meson_standards(text)), tests=tuple(_meson_tests(text)),
                               project=named.group(1) if named else "", python_modules=modules)
    if kind == "meson-wrap":
        return NativeBuildFile(kind, dependencies=tuple(_wrap(text, path)))
    if kind == "git-submodules":
        return NativeBuildFile(kind, dependencies=tuple(_submodules(text, path)))
    if kind == "make":
        return NativeBuildFile(kind, standards=tuple(_flag_standards(text, comment="#")),
                               python_modules=tuple(_make_python_modules(text)))
    return None


# --------------------------------------------------------------------------- Python extension modules

# the wrappers that build a Python module from Fortran or C (`f2py -c -m name …`, `f90wrap -m name …`)
_WRAPPER_PROGRAMS = frozenset({"f2py", "f2py3", "f90wrap"})
_MODULE_NAME_RE = re.compile(r"[A-Za-z_]\w*")
# CMake commands whose first argument is a Python extension module
_CMAKE_MODULE_COMMANDS = frozenset({"pybind11_add_module", "nanobind_add_module", "python_add_library",
                                    "python3_add_library"})
_MESON_EXTENSION_RE = re.compile(r"\bextension_module\s*\(\s*['\"]([A-Za-z_]\w*)['\"]")


def _wrapped_module(words: list[str]) -> str | None:
    """The module an f2py/f90wrap command line builds: the word after ``-m``."""
    programs = [i for i, word in enumerate(words) if word.rsplit("/", 1)[-1] in _WRAPPER_PROGRAMS
                or word == "numpy.f2py"]
    if not programs:
        return None
    rest = words[programs[0] + 1:]
    for index, word in enumerate(rest[:-1]):
        if word == "-m" and _MODULE_NAME_RE.fullmatch(rest[index + 1]):
            return rest[index + 1]
    return None


def _make_python_modules(text: str) -> list[BuiltModule]:
    """The modules a Makefile's f2py/f90wrap commands build, its variables expanded
    (`FWRAP = ~/.local/bin/f90wrap`, `PYMOD = wan90`, then `$(FWRAP) -m $(PYMOD) …`)."""
    from .tasks import expand_variables, make_variables

    lines = text.split("\n")
    variables = make_variables(lines)
    found: list[BuiltModule] = []
    for number, line in enumerate(lines, start=1):
        code = line.split("#", 1)[0]
        if "-m" not in code:
            continue
        module = _wrapped_module(expand_variables(code, variables).split())
        if module and all(m.name != module for m in found):
            found.append(BuiltModule(module, number))
    return found


# --------------------------------------------------------------------------- shared

# `-std=c++11`, `-std=gnu99`, `-std=f2008`: a flag that names a standard (not `-std=$(STD)`).
_STD_FLAG_RE = re.compile(r"(?<![\w-])-std=[A-Za-z][\w+]*")
_HEX40_RE = re.compile(r"[0-9a-fA-F]{40}")
_BRANCH_NAMES = frozenset({"master", "main", "develop", "dev", "head", "trunk", "stable", "latest"})
# A release tarball names its version: .../archive/3.4.0/eigen-3.4.0.tar.gz, .../v2.1.0.tar.gz
_VERSIONED_ARCHIVE_RE = re.compile(
    r"(?:^|[/_-])v?\d+(?:\.\d+)+[^/]*\.(?:tar\.gz|tgz|tar\.bz2|tar\.xz|zip)$", re.IGNORECASE
)


def _flag_standards(text: str, *, comment: str) -> list[LanguageStandard]:
    found = []
    for number, line in enumerate(text.split("\n"), start=1):
        code = line.split(comment, 1)[0]
        match = _STD_FLAG_RE.search(code)
        if match:
            found.append(LanguageStandard(number, match.group(0)))
    return found


def _dependency(name: str, spec: str, pin: str, line: int, source: str, path: str, raw: str) -> Dependency:
    return Dependency(
        name=name,
        normalized=normalize_name(name),
        spec=spec,
        pin=pin,
        line=line,
        ecosystem="native",
        source=source,
        raw=raw[:120],
        file=path,
    )


def _ref_pin(ref: str) -> str:
    """A git reference: a full commit is exact, a branch unpinned, anything else a tag."""
    ref = ref.strip()
    if not ref or ref.lower() in _BRANCH_NAMES or ref.lower().startswith("origin/"):
        return PIN_UNPINNED
    return PIN_EXACT if _HEX40_RE.fullmatch(ref) else PIN_BOUNDED


# --------------------------------------------------------------------------- CMake

_CMAKE_STANDARD_VAR_RE = re.compile(r"CMAKE_(?:C|CXX|CUDA|OBJC|OBJCXX|Fortran|HIP)_STANDARD", re.IGNORECASE)
_STANDARD_PROPERTY_RE = re.compile(r"(?:C|CXX|CUDA|OBJC|OBJCXX|HIP)_STANDARD")
_COMPILE_FEATURE_RE = re.compile(r"(?:c|cxx|cuda)_std_\d+")
_CMAKE_VERSION_RE = re.compile(r"\d+(?:\.\d+)*")


@dataclass(frozen=True)
class _CMakeCommand:
    name: str                            # lower-case
    line: int
    args: tuple[tuple[str, int], ...]    # (argument, line)


# One token of CMake's grammar. Whitespace is skipped by ``finditer``; a token spanning
# lines (a quoted or bracket argument, a bracket comment) carries its newlines.
_CMAKE_TOKEN_RE = re.compile(
    r"""(?P<comment>\#\[(?P<eq1>=*)\[.*?\](?P=eq1)\]|\#[^\n]*)
      | (?P<quoted>"(?:\\.|[^"\\])*")
      | (?P<bracket>\[(?P<eq2>=*)\[(?P<body>.*?)\](?P=eq2)\])
      | (?P<open>\()
      | (?P<close>\))
      | (?P<newline>\n)
      | (?P<word>[^\s()\#"]+)""",
    re.DOTALL | re.VERBOSE,
)
_IDENTIFIER_RE = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def _cmake_commands(text: str) -> list[_CMakeCommand]:
    """CMake commands with their arguments (quotes removed) and lines; comments
    (``#…``, ``#[[…]]``) and bracket arguments are honoured, nested parentheses kept. An
    unbalanced command ends at the end of the file."""
    commands: list[_CMakeCommand] = []
    line = 1
    name, name_line = None, 0          # the identifier a "(" would open as a command
    args: list[tuple[str, int]] | None = None
    depth = 0
    for token in _CMAKE_TOKEN_RE.finditer(text):
        kind = token.lastgroup
        value = token.group(0)
        if kind == "newline":
            line += 1
            continue
        if kind == "comment":
            line += value.count("\n")
            continue
        if args is None:                # between commands
            if kind == "open" and name is not None:
                args, depth, command_name, command_line = [], 0, name, name_line
            name = value if kind == "word" and _IDENTIFIER_RE.fullmatch(value) else None
            name_line = line
            continue
        if kind == "open":
            depth += 1
        elif kind == "close":
            if depth == 0:
                commands.append(_CMakeCommand(command_name.lower(), command_line, tuple(args)))
                args, name = None, None
            else:
                depth -= 1
        elif kind == "quoted":
            args.append((value[1:-1], line))
        elif kind == "bracket":
            args.append((token.group("body"), line))
        else:
            args.append((value, line))
        line += value.count("\n")
    if args is not None:
        commands.append(_CMakeCommand(command_name.lower(), command_line, tuple(args)))
    return commands


_CMAKE_TEST_COMMANDS = frozenset({"add_test", "gtest_discover_tests", "gtest_add_tests", "catch_discover_tests",
                                  "doctest_discover_tests"})
# a project's own test-registering command: add_integration_test, add_unit_tests, ...
_CMAKE_OWN_TEST_RE = re.compile(r"add_\w+_tests?")
# meson's project('name', …), the call opening a meson.build, comments before it allowed
_MESON_PROJECT_RE = re.compile(r"^\s*project\s*\(\s*['\"]([^'\"]+)['\"]", re.MULTILINE)


def _cmake_output_name(command: str, values: list[str]) -> tuple[str, str] | None:
    """The (target, program name) an ``OUTPUT_NAME`` property gives, or None: both
    spellings CMake has, ``set_target_properties(t PROPERTIES OUTPUT_NAME name)`` and
    ``set_property(TARGET t PROPERTY OUTPUT_NAME name)``."""
    if command == "set_target_properties" and "OUTPUT_NAME" in values[:-1]:
        return values[0], values[values.index("OUTPUT_NAME") + 1]
    if (command == "set_property" and values[:1] == ["TARGET"] and "PROPERTY" in values
            and values[values.index("PROPERTY") + 1:values.index("PROPERTY") + 2] == ["OUTPUT_NAME"]
            and len(values) > values.index("PROPERTY") + 2 and len(values) > 1):
        return values[1], values[values.index("PROPERTY") + 2]
    return None


def _cmake(text: str, path: str) -> NativeBuildFile:
    standards: list[LanguageStandard] = []
    dependencies: list[Dependency] = []
    tests: list[TestDeclaration] = []
    executables: list[Executable] = []
    modules: list[BuiltModule] = []
    project = ""
    body_depth = 0                     # inside function()/macro() bodies
    for command in _cmake_commands(text):
        values = [a for a, _ in command.args]
        if command.name == "project" and values and not project and "$" not in values[0]:
            project = values[0]
        if command.name == "add_executable" and values and "$" not in values[0]:
            executables.append(Executable(values[0], command.line))
        elif command.name in _CMAKE_MODULE_COMMANDS and values and _MODULE_NAME_RE.fullmatch(values[0]):
            modules.append(BuiltModule(values[0], command.line))
        elif (module := _wrapped_module(values)) is not None:
            modules.append(BuiltModule(module, command.line))
        elif (renamed := _cmake_output_name(command.name, values)) is not None:
            # the program is the target's, declared where the target is
            target_name, name = renamed
            target = next((e.line for e in executables if e.name == target_name), command.line)
            if "$" not in name:
                executables.append(Executable(name, target))
        if command.name in ("function", "macro"):
            body_depth += 1
        elif command.name in ("endfunction", "endmacro"):
            body_depth = max(0, body_depth - 1)
        elif body_depth == 0 and (command.name in _CMAKE_TEST_COMMANDS or _CMAKE_OWN_TEST_RE.fullmatch(command.name)):
            tests.append(TestDeclaration(command.line, command.name))
        if command.name == "set" and len(values) >= 2 and _CMAKE_STANDARD_VAR_RE.fullmatch(values[0]):
            if values[1][:1].isdigit():
                standards.append(LanguageStandard(command.line, f"{values[0]} {values[1]}"))
        elif command.name in ("set_property", "set_target_properties"):
            for index, value in enumerate(values[:-1]):
                if _STANDARD_PROPERTY_RE.fullmatch(value) and values[index + 1][:1].isdigit():
                    standards.append(LanguageStandard(command.args[index][1], f"{value} {values[index + 1]}"))
        elif command.name == "target_compile_features":
            for value, line in command.args:
                if _COMPILE_FEATURE_RE.fullmatch(value):
                    standards.append(LanguageStandard(line, value))
        elif command.name in ("fetchcontent_declare", "externalproject_add") and values:
            dependencies.append(_fetched(command, path))
        elif command.name in _CPM_COMMANDS and values:
            if (fetched := _cpm_package(command, path)) is not None:
                dependencies.append(fetched)
        elif command.name == "find_package" and values and body_depth == 0:
            # inside a function/macro body (a bundled CPM.cmake's find_package(Git)) the
            # call runs only if the function is called: the module's internals
            dependencies.append(_found_package(command, path))
        for value, line in command.args:
            flag = _STD_FLAG_RE.search(value)
            if flag:
                standards.append(LanguageStandard(line, flag.group(0)))
    return NativeBuildFile("cmake", tuple(standards), tuple(dependencies), tuple(tests), tuple(executables), project,
                           tuple(modules))


def _fetched(command: _CMakeCommand, path: str) -> Dependency:
    """A FetchContent_Declare / ExternalProject_Add: pinned by its GIT_TAG, URL_HASH or URL."""
    source = "fetchcontent" if command.name == "fetchcontent_declare" else "externalproject"
    name = command.args[0][0]
    options: dict[str, tuple[str, int]] = {}
    args = command.args[1:]
    for index, (value, line) in enumerate(args):
        if value in ("GIT_TAG", "URL", "URL_HASH", "URL_MD5", "SVN_REVISION", "HG_TAG") and index + 1 < len(args):
            options.setdefault(value, (args[index + 1][0], line))
    if "URL_HASH" in options or "URL_MD5" in options:
        key = "URL_HASH" if "URL_HASH" in options else "URL_MD5"
        return _dependency(name, f"{key} {options[key][0][:20]}", PIN_EXACT, options[key][1], source, path, name)
    for key in ("GIT_TAG", "HG_TAG", "SVN_REVISION"):
        if key in options:
            ref, line = options[key]
            return _dependency(name, f"{key} {ref}", _ref_pin(ref), line, source, path, f"{key} {ref}")
    if "URL" in options:
        url, line = options["URL"]
        pin = PIN_EXACT if _VERSIONED_ARCHIVE_RE.search(url.split("?", 1)[0]) else PIN_UNPINNED
        return _dependency(name, f"URL {url}", pin, line, source, path, f"URL {url}")
    return _dependency(name, "", PIN_UNPINNED, command.line, source, path, name)


# CPM.cmake's wrappers around FetchContent: CPMAddPackage, CPMFindPackage, CPMDeclarePackage
_CPM_COMMANDS = frozenset({"cpmaddpackage", "cpmfindpackage", "cpmdeclarepackage"})
_CPM_OPTIONS = frozenset({"NAME", "VERSION", "GIT_TAG", "URL", "URL_HASH", "URL_MD5", "URI", "GITHUB_REPOSITORY",
                          "GITLAB_REPOSITORY", "BITBUCKET_REPOSITORY", "GIT_REPOSITORY"})
# the single-argument shorthand: "gh:owner/repo@1.2.3" (a version), "gh:owner/repo#<tag or commit>"
_CPM_SHORTHAND_RE = re.compile(r"(?:(?:gh|gl|bb):)?[^@#\s]*?([^/@#\s]+?)(?:\.git)?(?:@([^#\s]+))?(?:#(\S+))?")


def _cpm_package(command: _CMakeCommand, path: str) -> Dependency | None:
    """A CPM declaration, pinned like a FetchContent one: its URL_HASH, GIT_TAG, a
    versioned release URL, else its VERSION (CPM fetches the tag ``v<VERSION>``)."""
    options: dict[str, tuple[str, int]] = {}
    args = command.args
    if len(args) == 1 or (args and args[0][0] not in _CPM_OPTIONS):
        options["URI"] = args[0]
    for index, (value, line) in enumerate(args[:-1]):
        if value in _CPM_OPTIONS:
            options.setdefault(value, (args[index + 1][0], line))
    if "URI" in options:
        uri, line = options["URI"]
        shorthand = _CPM_SHORTHAND_RE.fullmatch(uri.split()[0]) if uri.split() else None
        if shorthand is None:
            return None
        options.setdefault("NAME", (shorthand.group(1), line))
        if shorthand.group(3):
            options.setdefault("GIT_TAG", (shorthand.group(3), line))
        if shorthand.group(2):
            options.setdefault("VERSION", (shorthand.group(2), line))
    if "NAME" not in options:
        return None
    name = options["NAME"][0]
    if "URL_HASH" in options or "URL_MD5" in options:
        key = "URL_HASH" if "URL_HASH" in options else "URL_MD5"
        return _dependency(name, f"{key} {options[key][0][:20]}", PIN_EXACT, options[key][1], "cpm", path, name)
    if "GIT_TAG" in options:
        ref, line = options["GIT_TAG"]
        return _dependency(name, f"GIT_TAG {ref}", _ref_pin(ref), line, "cpm", path, f"GIT_TAG {ref}")
    if "URL" in options:
        url, line = options["URL"]
        pin = PIN_EXACT if _VERSIONED_ARCHIVE_RE.search(url.split("?", 1)[0]) else PIN_UNPINNED
        return _dependency(name, f"URL {url}", pin, line, "cpm", path, f"URL {url}")
    if "VERSION" in options and "${" not in options["VERSION"][0]:
        version, line = options["VERSION"]
        return _dependency(name, f"VERSION {version}", _ref_pin(f"v{version}"), line, "cpm", path,
                           f"VERSION {version}")
    return _dependency(name, "", PIN_UNPINNED, command.line, "cpm", path, name)


def _found_package(command: _CMakeCommand, path: str) -> Dependency:
    name = command.args[0][0]
    values = [a for a, _ in command.args[1:]]
    version = values[0] if values and _CMAKE_VERSION_RE.fullmatch(values[0]) else ""
    if not version:
        return _dependency(name, "", PIN_UNPINNED, command.line, "find_package", path, f"find_package({name})")
    pin = PIN_EXACT if "EXACT" in values else PIN_BOUNDED
    spec = f"{version} EXACT" if pin == PIN_EXACT else version
    return _dependency(name, spec, pin, command.line, "find_package", path, f"find_package({name} {spec})")


# --------------------------------------------------------------------------- meson

_MESON_STD_RE = re.compile(r"""['"]((?:c|cpp|fortran|objc|objcpp|cuda)_std\s*=\s*[\w+]+)['"]""")


def _meson_standards(text: str) -> list[LanguageStandard]:
    found = []
    for number, line in enumerate(text.split("\n"), start=1):
        code = line.split("#", 1)[0]
        option = _MESON_STD_RE.search(code)
        flag = _STD_FLAG_RE.search(code)
        if option:
            found.append(LanguageStandard(number, option.group(1).replace(" ", "")))
        elif flag:
            found.append(LanguageStandard(number, flag.group(0)))
    return found


# a meson ``test('name', exe, …)`` call (not ``benchmark``, not a method ``x.test(``)
_MESON_TEST_RE = re.compile(r"(?<![\w.])test\s*\(")


def _meson_tests(text: str) -> list[TestDeclaration]:
    found = []
    for number, line in enumerate(text.split("\n"), start=1):
        if _MESON_TEST_RE.search(line.split("#", 1)[0]):
            found.append(TestDeclaration(number, "test"))
    return found


_INI_SECTION_RE = re.compile(r"^\s*\[([^\]]+)\]")
_INI_OPTION_RE = re.compile(r"^\s*([\w.-]+)\s*=\s*(.*?)\s*$")


def _ini_options(text: str) -> list[tuple[str, str, str, int]]:
    """(section, option, value, line) of a small INI file (wraps, .gitmodules)."""
    found, section = [], ""
    for number, line in enumerate(text.split("\n"), start=1):
        stripped = line.strip()
        if not stripped or stripped[0] in "#;":
            continue
        header = _INI_SECTION_RE.match(line)
        if header:
            section = header.group(1).strip()
            found.append((section, "", "", number))
            continue
        option = _INI_OPTION_RE.match(line)
        if option:
            found.append((section, option.group(1).lower(), option.group(2), number))
    return found


def _wrap(text: str, path: str) -> list[Dependency]:
    """A meson wrap: ``[wrap-git] revision`` or ``[wrap-file] source_hash``."""
    name = path.rsplit("/", 1)[-1][: -len(".wrap")]
    options = {(s, o): (v, line) for s, o, v, line in _ini_options(text) if o}
    header = next(((s, line) for s, o, _, line in _ini_options(text) if not o and s.startswith("wrap-")), None)
    if header is None:
        return []
    section, header_line = header
    if section == "wrap-file":
        hashed = options.get((section, "source_hash"))
        if hashed:
            return [_dependency(name, "source_hash", PIN_EXACT, hashed[1], "meson-wrap", path, f"source_hash = {hashed[0][:20]}")]
        url = options.get((section, "source_url"))
        pin = PIN_EXACT if url and _VERSIONED_ARCHIVE_RE.search(url[0]) else PIN_UNPINNED
        return [_dependency(name, url[0] if url else "", pin, url[1] if url else header_line, "meson-wrap", path,
                            f"source_url = {url[0]}" if url else section)]
    revision = options.get((section, "revision"))
    if revision is None:
        return [_dependency(name, "", PIN_UNPINNED, header_line, "meson-wrap", path, section)]
    return [_dependency(name, f"revision {revision[0]}", _ref_pin(revision[0]), revision[1], "meson-wrap", path,
                        f"revision = {revision[0]}")]


_SUBMODULE_RE = re.compile(r'submodule\s+"([^"]+)"')
# Folders that hold the code a build depends on. A submodule elsewhere is the project's
# own tooling, packaging or test data (``assets/aur/…``, ``.test/data``,
# ``GNPS2_DeploymentTooling``), not a dependency.
_DEPENDENCY_FOLDERS = frozenset({
    "lib", "libs", "external", "externals", "extern", "third_party", "thirdparty", "3rdparty",
    "vendor", "deps", "dependencies", "subprojects", "contrib", "submodules",
})


def _submodules(text: str, path: str) -> list[Dependency]:
    """Each ``[submodule "x"]`` in a dependency folder: git records a submodule at one
    commit (a gitlink), so it is exact."""
    found = []
    for section, option, _, line in _ini_options(text):
        match = _SUBMODULE_RE.fullmatch(section)
        if match and not option and match.group(1).split("/", 1)[0].lower() in _DEPENDENCY_FOLDERS:
            found.append(_dependency(match.group(1), "commit recorded by git", PIN_EXACT, line,
                                     "git-submodule", path, f'[submodule "{match.group(1)}"]'))
    return found


# --------------------------------------------------------------------------- stated compiler versions


@dataclass(frozen=True)
class StatedCompiler:
    """A compiler and version a prose document states: the line that holds the version."""

    compiler: str
    version: str
    line: int
    text: str


# The compilers of C, C++ and Fortran, by the names documents use. A driver's own name
# (gcc, gfortran, ifort, clang…) may take a bare major version ("gfortran 12", "GCC-13");
# a vendor or suite name (Intel, NAG, Visual Studio, LLVM…) needs a dotted version or a
# year, so that "Intel 64" (an architecture) is not read as a compiler version.
_DRIVERS = r"gcc|g\+\+|gfortran|clang(?:\+\+)?|ifort|ifx|icc|icpc|icx|nvfortran|nvc(?:\+\+)?|pgfortran|pgcc|nagfor|flang|xlf|xlc|aocc"
_SUITES = (r"intel(?:\s+(?:oneapi|fortran|c\+\+|classic|parallel studio))*|gnu\s+(?:compiler collection|fortran|c\+\+|c)"
           r"|nag(?:\s+fortran)?|nvidia\s+hpc(?:\s+sdk)?|nvhpc|pgi|llvm|msvc|visual\s+studio|visual\s+c\+\+|cray(?:\s+ce)?")
_COMPILER_RE = re.compile(
    rf"(?<![\w+\-./])(?:(?P<driver>{_DRIVERS})|(?P<suite>{_SUITES}))(?:\s+compilers?|\s+suite)?"
    r"[\s,:(\[]*(?:version\s*|v\.?\s*|>=?\s*|-)?(?P<version>\d+(?:\.\d+)*)(?![\w.]*\.\d)(?![\w])",
    re.IGNORECASE,
)
_YEAR_RE = re.compile(r"(?:19|20)\d\d")


def stated_compilers(document: Document) -> tuple[StatedCompiler, ...]:
    """Every C/C++/Fortran compiler version stated in the document's prose (code blocks
    and inline code are not statements), in line order."""
    found: list[StatedCompiler] = []
    for paragraph in document.paragraphs:
        for match in _COMPILER_RE.finditer(paragraph.text):
            version = match.group("version")
            if match.group("suite") and "." not in version and not _YEAR_RE.fullmatch(version):
                continue
            compiler = " ".join((match.group("driver") or match.group("suite")).split())
            line, text = paragraph.line_start, paragraph.text.strip()
            for number in range(paragraph.line_start, paragraph.line_end + 1):
                if 0 < number <= len(document.raw_lines) and version in document.raw_lines[number - 1]:
                    line, text = number, document.raw_lines[number - 1].strip()
                    break
            found.append(StatedCompiler(compiler, version, line, text[:200]))
    found.sort(key=lambda s: s.line)
    return tuple(found)
