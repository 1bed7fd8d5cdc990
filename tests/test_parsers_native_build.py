"""Build files of compiled codes (scoring.parsers.native_build) and README release
statements (scoring.parsers.releases), from small sources written for the test."""

from __future__ import annotations

from scoring.parsers.manifests import PIN_BOUNDED, PIN_EXACT, PIN_UNPINNED
from scoring.parsers.markdown import parse_document
from scoring.parsers.native_build import native_build_kind, parse_native_build, stated_compilers
from scoring.parsers.releases import stated_releases


def test_cmake_standards_fetches_and_packages():
    text = """# set(CMAKE_CXX_STANDARD 98) in a comment does not count
set(CMAKE_CXX_STANDARD 17)
set(CMAKE_C_FLAGS "${CMAKE_C_FLAGS} -std=c99")
target_compile_features(app PUBLIC cxx_std_20)
FetchContent_Declare(fmt
  GIT_REPOSITORY https://github.com/fmtlib/fmt.git
  GIT_TAG e69e5f977d458f2650bb346dadf2ad30c5320281)
FetchContent_Declare(json GIT_REPOSITORY https://github.com/nlohmann/json GIT_TAG v3.11.2)
FetchContent_Declare(dev GIT_REPOSITORY https://example.org/dev.git GIT_TAG main)
ExternalProject_Add(zlib URL https://zlib.net/zlib-1.3.1.tar.gz)
find_package(Boost 1.80 REQUIRED)
find_package(Threads)
"""
    build = parse_native_build(text, "CMakeLists.txt")
    assert [(s.line, s.text) for s in build.standards] == [
        (2, "CMAKE_CXX_STANDARD 17"), (3, "-std=c99"), (4, "cxx_std_20")]
    assert [(d.name, d.pin, d.line, d.source) for d in build.dependencies] == [
        ("fmt", PIN_EXACT, 7, "fetchcontent"),
        ("json", PIN_BOUNDED, 8, "fetchcontent"),
        ("dev", PIN_UNPINNED, 9, "fetchcontent"),
        ("zlib", PIN_EXACT, 10, "externalproject"),
        ("Boost", PIN_BOUNDED, 11, "find_package"),
        ("Threads", PIN_UNPINNED, 12, "find_package"),
    ]


def test_meson_wraps_submodules_and_make():
    assert [s.text for s in parse_native_build("project('x', 'c', default_options: ['c_std=c11'])\n",
                                              "meson.build").standards] == ["c_std=c11"]
    wrap = parse_native_build("[wrap-git]\nurl = https://x\nrevision = v1.2.0\n", "subprojects/x.wrap")
    assert [(d.name, d.pin, d.line) for d in wrap.dependencies] == [("x", PIN_BOUNDED, 3)]
    hashed = parse_native_build("[wrap-file]\nsource_url = https://x/y-1.0.tar.gz\nsource_hash = ab12\n",
                                "subprojects/y.wrap")
    assert [(d.pin, d.line) for d in hashed.dependencies] == [(PIN_EXACT, 3)]
    modules = parse_native_build('[submodule "libs/a"]\n\tpath = libs/a\n[submodule "tools/b"]\n\tpath = tools/b\n',
                                 ".gitmodules")
    assert [(d.name, d.pin, d.line) for d in modules.dependencies] == [("libs/a", PIN_EXACT, 1)]
    make = parse_native_build("CFLAGS = -O2 -std=gnu99\n# -std=c89\nSTD = -std=$(X)\n", "Makefile")
    assert [(s.line, s.text) for s in make.standards] == [(1, "-std=gnu99")]
    assert native_build_kind("src/x.wrap") is None and native_build_kind("README.md") is None
    # the files a Makefile includes for one platform or compiler are Make files too
    assert [native_build_kind(p) for p in ("make.inc", "config/make.inc.gfort", "make.sys", "arch.make",
                                           "rules.mk", "make_serial.inc", "make.include.txt")] == [
        "make", "make", "make", "make", "make", None, None]


def test_python_extension_modules_a_build_produces():
    make = parse_native_build("FWRAP = ~/.local/bin/f90wrap\nPYMOD = wan90\n\nwrap:\n\t$(FWRAP) -m $(PYMOD) a.F90\n"
                              "python:\n\tf2py -c -m _$(PYMOD) f90wrap_*.f90\n# f2py -m old\n", "wrap/Makefile.serial")
    assert [(m.name, m.line) for m in make.python_modules] == [("wan90", 5), ("_wan90", 7)]
    cmake = parse_native_build("pybind11_add_module(_core src/a.cpp)\nadd_executable(tool main.cpp)\n"
                               "add_custom_command(OUTPUT x COMMAND python -m numpy.f2py -c -m flib a.f90)\n",
                               "CMakeLists.txt")
    assert [(m.name, m.line) for m in cmake.python_modules] == [("_core", 1), ("flib", 3)]
    meson = parse_native_build("py = import('python').find_installation()\npy.extension_module('fastfit', 'a.c')\n",
                               "meson.build")
    assert [(m.name, m.line) for m in meson.python_modules] == [("fastfit", 2)]


def test_unbalanced_cmake_command_ends_at_end_of_file():
    build = parse_native_build("set(CMAKE_CXX_STANDARD 14\n", "x.cmake")
    assert [s.text for s in build.standards] == ["CMAKE_CXX_STANDARD 14"]


def test_stated_releases_read_prose_only():
    doc = parse_document(
        "# Tool\n\n## Requirements\n\n- MATLAB R2019b or newer\n- Octave 6.1\n\n"
        "The release R2020a alone names no product.\n\n```\n% MATLAB R2015a\n```\n",
        "README.md",
    )
    assert [(s.product, s.release, s.line) for s in stated_releases(doc)] == [
        ("MATLAB", "R2019b", 5), ("Octave", "6.1", 6)]


def test_cmake_tests_registered_outside_function_and_macro_bodies():
    # S3: add_test and a project's own add_<kind>_test register tests; the add_test inside
    # a macro's body is a template, not a test
    text = ("macro(add_integration_test)\n  add_test(NAME ${ARGV0} COMMAND run)\nendmacro()\n"
            "enable_testing()\nadd_integration_test(h2)\n# add_test(old old)\n"
            "add_test(NAME unit COMMAND unit_tests)\ngtest_discover_tests(unit_tests)\n")
    build = parse_native_build(text, "tests/CMakeLists.txt")
    assert [(t.line, t.command) for t in build.tests] == [
        (5, "add_integration_test"), (7, "add_test"), (8, "gtest_discover_tests")]


def test_meson_test_calls():
    text = "t = executable('t', 't.f90')\n# test('commented', t)\ntest('unit', t)\nbenchmark('b', t)\nx.test(1)\n"
    assert [(t.line, t.command) for t in parse_native_build(text, "test/meson.build").tests] == [(3, "test")]


def test_cmake_executables_and_their_output_names():
    text = (
        "add_library(core STATIC a.cpp)\n"
        "if (BUILD_AS_LIBRARY)\n  add_library(raxml_module MODULE ${SOURCES})\nelse()\n"
        "  add_executable(raxml_module ${SOURCES})\nendif()\n"
        "add_executable(${PROJECT_NAME} main.cpp)\n"
        "set_target_properties(raxml_module PROPERTIES OUTPUT_NAME raxml-ng)\n"
        "set_target_properties(other PROPERTIES OUTPUT_NAME ${BINARY})\n"
        "add_executable(tool_exe main.cpp)\n"
        "set_property(TARGET tool_exe PROPERTY OUTPUT_NAME tool)\n"
        "set_property(TARGET tool_exe PROPERTY CXX_STANDARD 11)\n"
    )
    build = parse_native_build(text, "src/CMakeLists.txt")
    # the program named by OUTPUT_NAME (either spelling) is declared where its target is
    # (lines 5 and 10); a computed name (${...}) and another property name nothing
    assert [(e.name, e.line) for e in build.executables] == [("raxml_module", 5), ("raxml-ng", 5),
                                                              ("tool_exe", 10), ("tool", 10)]


def test_project_names_of_cmake_and_meson():
    cmake = parse_native_build("cmake_minimum_required(VERSION 3.20)\nproject(QuadSolve VERSION 1.2 LANGUAGES CXX)\n"
                               "project(Other)\n", "CMakeLists.txt")
    meson = parse_native_build("# top\nproject(\n  'quadsolve',\n  'fortran',\n  version: '1.2',\n)\n", "meson.build")
    assert (cmake.project, meson.project) == ("QuadSolve", "quadsolve")
    assert parse_native_build("add_subdirectory(src)\n", "CMakeLists.txt").project == ""


def test_stated_compiler_versions():
    document = parse_document(
        "# sim\n\nIt has been compiled with the [Intel Fortran compiler\n13.1.0](https://x.org) (and greater) and the "
        "GNU gfortran compiler [4.9 and greater].\n\nTested with GCC-13, clang 15 and Visual Studio 2019.\n\n"
        "Runs on Intel 64 machines with Intel MKL 2020; see gcc.gnu.org/gcc-12. Licence: GNU GPL 3.\n\n"
        "```\ngcc --version  # gcc 12.2\n```\n", "README.md")
    assert [(s.compiler, s.version, s.line) for s in stated_compilers(document)] == [
        ("Intel Fortran", "13.1.0", 4), ("gfortran", "4.9", 4), ("GCC", "13", 6), ("clang", "15", 6),
        ("Visual Studio", "2019", 6)]


def test_cpm_declarations_are_fetched_dependencies():
    # E1: CPM's wrappers are FetchContent declarations; a find_package inside a function
    # body (a bundled CPM.cmake's git lookup) is the module's internals, not a dependency
    text = ("function(cpm_helper)\n  find_package(Git REQUIRED)\nendfunction()\n"
            "CPMFindPackage(\n  NAME Eigen3\n  VERSION 3.4.0\n"
            "  URL https://gitlab.com/libeigen/eigen/-/archive/3.4.0/eigen-3.4.0.tar.gz\n)\n"
            'CPMAddPackage("gh:fmtlib/fmt#7.1.3")\n'
            "CPMAddPackage(NAME json GITHUB_REPOSITORY nlohmann/json VERSION 3.9.1)\n"
            "CPMDeclarePackage(doctest GIT_TAG 0123456789abcdef0123456789abcdef01234567)\n"
            "find_package(Boost 1.70)\n")
    deps = parse_native_build(text, "CMakeLists.txt").dependencies
    assert [(d.name, d.pin, d.line, d.source) for d in deps] == [
        ("Eigen3", "exact", 7, "cpm"), ("fmt", "bounded", 9, "cpm"), ("json", "bounded", 10, "cpm"),
        ("doctest", "exact", 11, "cpm"), ("Boost", "bounded", 12, "find_package")]


def test_stated_releases_skip_changelog_entries_and_sections():
    doc = parse_document(
        "# Tool\n\nRequires MATLAB R2019b.\n\n## Version history\n\nFixed a bug for MATLAB R2018a.\n\n"
        "# Usage\n\n- v2.4 - fixing issue in parallel for Matlab 2020a\n",
        "README.md",
    )
    assert [(s.product, s.release, s.line) for s in stated_releases(doc)] == [("MATLAB", "R2019b", 3)]
