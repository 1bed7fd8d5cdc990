"""C/C++ frontend: exact facts from small synthetic sources."""

from __future__ import annotations

from scoring.facts import (
    AssignmentFact,
    CliArgFact,
    CommentFact,
    DefinitionFact,
    FileIOFact,
    HandlerFact,
    ImportFact,
    RandomFact,
)
from scoring.frontends import c_cpp

PROGRAM = b"""#include <random>
#include "model.h"
#ifdef USE_MPI
#include <mpi.h>
#endif
namespace fs = std::filesystem;

int main(int argc, char **argv) {
    std::mt19937 gen(std::random_device{}());
    std::mt19937 fixed(42);
    std::uniform_real_distribution<double> dist(0.0, 1.0);
    srand(time(NULL));
    srand(42);
    int r = rand();
    FILE *fp = fopen("/data/in.txt", "r");
    const char *password = "hunter2";
    try {
        step(3);
    } catch (...) {}
    try { step(1); } catch (const std::exception &e) { std::cerr << e.what(); }
    fs::path out("results");
    return 0;
}
"""


def facts():
    return c_cpp.extract(PROGRAM, "src/main.cpp")


def test_includes_with_preprocessor_conditions():
    assert facts().imports == (
        ImportFact("random", 1, "none", "include"),
        ImportFact("model.h", 2, "none", "include"),
        ImportFact("mpi.h", 4, "conditional", "include"),
    )


def test_engines_and_seeds_tell_time_and_entropy_from_constants():
    assert facts().randoms == (
        RandomFact(9, "std::mt19937", "gen", "engine", False, "entropy"),
        RandomFact(10, "std::mt19937", "fixed", "engine", True, "literal"),
        RandomFact(11, "std::uniform_real_distribution<double>", "dist", "draw", False, ""),
        RandomFact(12, "srand", "c.rand", "seed", False, "time"),
        RandomFact(13, "srand", "c.rand", "seed", True, "literal"),
        RandomFact(14, "rand", "c.rand", "draw", False, ""),
    )


def test_seed_values_seed_texts_and_function_end_lines():
    source = (b"#include <stdlib.h>\n#include <time.h>\n"
              b"void parse(struct opts *o, char *arg) {\n"
              b"  o->seed = (long)time(NULL);\n"
              b"  sscanf(arg, \"%ld\", &(o->seed));\n"
              b"}\n"
              b"double run(struct opts o) {\n"
              b"  long idum = -1;\n"
              b"  long start = time(0);\n"
              b"  srand(o.seed);\n"
              b"  return ran2(&idum) + rand();\n"
              b"}\n")
    result = c_cpp.extract(source, "run.c")
    assert result.randoms == (
        RandomFact(4, "(long)time(NULL)", "o->seed", "seed_value", False, "time"),
        RandomFact(5, "sscanf", "o->seed", "seed_value", True, "argument"),
        RandomFact(8, "-1", "idum", "seed_value", True, "literal"),
        # any variable given the clock: it may be a seed further on
        RandomFact(9, "time(0)", "start", "seed_value", False, "time"),
        RandomFact(10, "srand", "c.rand", "seed", True, "argument", seed_text="o.seed"),
        RandomFact(11, "rand", "c.rand", "draw", False, ""),
    )
    assert [(d.name, d.line, d.end_line) for d in result.definitions] == [("parse", 3, 6), ("run", 7, 12)]


def test_catch_all_with_an_empty_body_masks_and_logging_does_not():
    assert facts().handlers == (
        HandlerFact(19, "...", "pass"),
        HandlerFact(20, "const std::exception &e", "log"),
    )


def test_argv_fopen_and_credential_like_assignments():
    result = facts()
    assert result.cli_args == (CliArgFact(8, "argv"),)
    assert result.file_io == (FileIOFact(15, "read", "/data/in.txt", "fopen"),)
    # the value bound to a credential-like name is masked before facts leave the frontend
    assert result.assignments == (AssignmentFact("password", 16, "hunt…(7 chars)"),)


def test_namespace_aliases_are_resolved():
    call_names = {(c.written, c.name) for c in facts().calls}
    assert ("srand", "srand") in call_names
    source = b"namespace fs = std::filesystem;\nvoid f() { fs::create_directories(p); }\n"
    assert [(c.written, c.name) for c in c_cpp.extract(source, "a.cc").calls] == [
        ("fs::create_directories", "std::filesystem::create_directories")]


def test_doxygen_documents_header_declarations_and_include_guards_are_not_conditions():
    header = (b"#ifndef MODEL_H\n#define MODEL_H\n#include <vector>\n/// Run the model.\nint run(int n);\n"
              b"static int hidden(void);\nclass Model {\npublic:\n  /** Step once. */\n  void step();\n"
              b"private:\n  void internal();\n};\n#endif\n")
    result = c_cpp.extract(header, "include/model.h")
    assert result.imports == (ImportFact("vector", 3, "none", "include"),)
    assert result.definitions == (
        DefinitionFact("run", "declaration", 5, True, True),
        DefinitionFact("hidden", "declaration", 6, False, False),
        DefinitionFact("Model", "class", 7, True, False),
        DefinitionFact("step", "declaration", 10, True, True),
        DefinitionFact("internal", "declaration", 12, False, False),
    )
    assert result.comments == (CommentFact(4, 4, "/// Run the model.", True),
                               CommentFact(9, 9, "/** Step once. */", True))


def test_c_files_use_the_c_grammar():
    result = c_cpp.extract(b"#include <stdlib.h>\nint main(void) { srand(7); return rand(); }\n", "a.c")
    assert result.language == "c"
    assert [r.seed_source for r in result.randoms] == ["literal", ""]


def test_parse_error_is_a_fact_and_the_rest_is_still_read():
    result = c_cpp.extract(b"#include <random>\nint main( { return 0; }\n", "broken.c")
    assert result.parse_error == "syntax error at line 2"
    assert result.imports == (ImportFact("random", 1, "none", "include"),)


def test_function_like_macros_of_headers_are_definitions_and_underscore_names_are_not_public():
    header = (b"#ifndef KV_H\n#define KV_H\n#define KV_MAX 8\n/*! @function\n  @abstract Init. */\n"
              b"#define kv_init(v) ((v).n = 0)\n#define kv_a(v, i) ((v).a[(i)])\n"
              b"#define kv_size(v) ((v).n) ///< its length\n\n#define __kv_grow(v) (v)\n"
              b"typedef struct __kv_t { int n; } kv_t;\nint _kv_check(int i);\nclass Vec { public: int _raw(); int at(int i); };\n#endif\n")
    result = c_cpp.extract(header, "kv.h")
    assert [(d.name, d.kind, d.line, d.public, d.documented) for d in result.definitions] == [
        ("kv_init", "macro", 6, True, True),
        ("kv_a", "macro", 7, True, False),
        ("kv_size", "macro", 8, True, True),
        ("__kv_grow", "macro", 10, False, False),
        ("__kv_t", "struct", 11, False, False),
        ("_kv_check", "declaration", 12, False, False),
        ("Vec", "class", 13, True, False),
        ("_raw", "declaration", 13, False, False),
        ("at", "declaration", 13, True, False),
    ]
    # a source file's macros are its own shorthand, no API
    assert c_cpp.extract(b"#define SQ(x) ((x) * (x))\nint f(int x) { return SQ(x); }\n", "kv.c").definitions == (
        DefinitionFact("f", "function", 2, True, False, end_line=2),)


def test_a_bare_draw_named_by_a_method_of_its_class_is_the_class_generator():
    source = (b"#include <cstdlib>\ntemplate <typename T>\nclass Lcg {\n    long s;\npublic:\n"
              b"    explicit Lcg(long seed) : s(seed) {}\n    T random() { s = s * 16807 % 2147483647; return T(s); }\n"
              b"    T twice() { return random() + random(); }\n    int libc() { return rand(); }\n};\n"
              b"struct Other { int draw() { return random(); } };\n")
    result = c_cpp.extract(source, "lcg.h")
    # Lcg::random() shadows the C library inside Lcg only; rand() in Lcg and random() in Other are libc draws
    assert [(r.line, r.call, r.generator, r.kind) for r in result.randoms] == [
        (9, "rand", "c.rand", "draw"),
        (11, "random", "c.random", "draw"),
    ]
