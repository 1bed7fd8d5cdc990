"""MATLAB/Octave frontend: exact facts from small synthetic sources."""

from __future__ import annotations

from scoring.facts import (
    CliArgFact,
    CommentFact,
    DefinitionFact,
    FileIOFact,
    HandlerFact,
    RandomFact,
)
from scoring.frontends import matlab

FUNCTION_FILE = b"""function results = run_analysis(input_file, n)
%RUN_ANALYSIS Run the analysis.
%   results = RUN_ANALYSIS(file, n) reads the data.
rng(42);
data = readtable('data/table.csv');
x = rand(n, 1);
try
    y = risky(x);
catch
end
rng('shuffle');
results = helper(x);
end

function out = helper(v)
out = v * 2;
end
"""


def facts():
    return matlab.extract(FUNCTION_FILE, "run_analysis.m")


def test_rng_with_a_seed_is_seeded_and_rng_shuffle_is_time_based():
    assert facts().randoms == (
        RandomFact(4, "rng", "matlab.global", "seed", True, "literal"),
        RandomFact(6, "rand", "matlab.global", "draw", False, ""),
        RandomFact(11, "rng", "matlab.global", "seed", False, "time"),
    )


def test_command_syntax_and_randstream_seeds():
    source = b"rng default\ns = RandStream('mt19937ar', 'Seed', 7);\nrand('seed', 3);\n"
    assert matlab.extract(source, "setup.m").randoms == (
        RandomFact(1, "rng", "matlab.global", "seed", True, "literal"),
        RandomFact(2, "RandStream", "s", "engine", True, "literal"),
        RandomFact(3, "rand", "matlab.global", "seed", True, "literal"),
    )


def test_clock_seeds_and_draws_from_a_stream():
    source = (b"rand('state', sum(100*clock));\n"
              b"s = RandStream('mt19937ar', 'Seed', 'shuffle');\n"
              b"x = randn(s, 2);\n"
              b"RandStream.setGlobalStream(s);\n"
              b"rng(0, 'twister');\n"
              b"y = randi(6, 1, 3);\n")
    assert matlab.extract(source, "sim.m").randoms == (
        RandomFact(1, "rand", "matlab.global", "seed", False, "time"),
        RandomFact(2, "RandStream", "s", "engine", False, "time"),
        RandomFact(3, "randn", "s", "draw", False, ""),
        # the global stream becomes s, seeded from the clock
        RandomFact(4, "RandStream.setGlobalStream", "matlab.global", "seed", False, "time"),
        RandomFact(5, "rng", "matlab.global", "seed", True, "literal"),
        RandomFact(6, "randi", "matlab.global", "draw", False, ""),
    )


def test_the_gpu_stream_has_its_own_seeds_and_draws():
    source = b"parallel.gpu.rng(7);\ngpurng('default');\nrng(1);\nx = gpuArray.randn(3);\ny = rand(3, 'gpuArray');\nz = rand(3);\n"
    assert matlab.extract(source, "a.m").randoms == (
        RandomFact(1, "gpu.rng", "matlab.gpu", "seed", True, "literal"),
        RandomFact(2, "gpurng", "matlab.gpu", "seed", True, "literal"),
        RandomFact(3, "rng", "matlab.global", "seed", True, "literal"),
        RandomFact(4, "gpuArray.randn", "matlab.gpu", "draw", False, ""),
        RandomFact(5, "rand", "matlab.gpu", "draw", False, ""),
        RandomFact(6, "rand", "matlab.global", "draw", False, ""),
    )


def test_help_block_documents_the_main_function_and_local_functions_are_private():
    result = facts()
    assert result.definitions == (
        DefinitionFact("run_analysis", "function", 1, True, True, end_line=13, inputs=("input_file", "n")),
        DefinitionFact("helper", "function", 15, False, False, end_line=17, inputs=("v",)),
    )
    assert result.comments == (CommentFact(
        2, 3, "%RUN_ANALYSIS Run the analysis.\n%   results = RUN_ANALYSIS(file, n) reads the data.", True),)


def test_a_help_block_needs_text_and_may_stand_above_the_function_line():
    empty = matlab.extract(b"function y = f(x)\n  %\n  %\n\n  % (C) Copyright\n  y = x;\nend\n", "f.m")
    assert empty.definitions == (DefinitionFact("f", "function", 1, True, False, end_line=7, inputs=("x",)),)
    above = matlab.extract(b"% G Double the input.\n\n\nfunction y = g(x)\ny = 2 * x;\nend\n", "g.m")
    assert above.definitions == (DefinitionFact("g", "function", 4, True, True, end_line=6, inputs=("x",)),)
    script = matlab.extract(b"% a script\nx = 1;\nfunction y = h(x)\ny = x;\nend\n", "s.m")
    assert script.definitions == (DefinitionFact("h", "function", 3, False, False, end_line=5, inputs=("x",)),)   # a local function


def test_empty_catch_is_a_silent_handler_and_warning_logs():
    assert facts().handlers == (HandlerFact(9, "", "pass"),)
    source = b"try\n  f();\ncatch ME\n  warning(ME.message);\nend\n"
    assert matlab.extract(source, "s.m").handlers == (HandlerFact(3, "ME", "log"),)


def test_function_inputs_are_the_scripts_parameters_and_io_is_read():
    result = facts()
    assert result.cli_args == (CliArgFact(1, "function_arguments"),)
    assert result.file_io == (FileIOFact(5, "read", "data/table.csv", "readtable"),)


def test_classdef_methods_take_their_access():
    source = (b"classdef Model < handle\n  methods\n    function obj = Model(x)\n      % MODEL build\n"
              b"      obj.x = x;\n    end\n  end\n  methods (Access = private)\n    function hidden(obj)\n"
              b"    end\n  end\nend\n")
    assert matlab.extract(source, "Model.m").definitions == (
        DefinitionFact("Model", "class", 1, True, False, bases=("handle",)),
        DefinitionFact("Model", "method", 3, True, True, end_line=6, inputs=("x",)),
        DefinitionFact("hidden", "method", 9, False, False, end_line=10, inputs=("obj",)),
    )


def test_classdef_superclasses_are_its_bases():
    # S3: a matlab.unittest class is known by its superclass (a project's own *TestCase too)
    source = (b"classdef (Abstract) ExportTest < tests.abstract.NwbTestCase & matlab.mixin.Copyable\n"
              b"  methods (Test)\n    function exports(testCase)\n    end\n  end\nend\n")
    assert matlab.extract(source, "ExportTest.m").definitions[0].bases == (
        "tests.abstract.NwbTestCase", "matlab.mixin.Copyable")
    assert matlab.extract(b"classdef Plain\nend\n", "Plain.m").definitions[0].bases == ()


def test_parse_error_is_a_fact_and_the_rest_is_still_read():
    result = matlab.extract(b"x = [1 2;\ny = rand(3);\n", "broken.m")
    assert result.parse_error == "syntax error at line 1"
    assert [r.call for r in result.randoms] == ["rand"]


def test_an_identifier_below_catch_is_a_statement_not_the_caught_error():
    # ``catch`` then ``keyboard`` on the next line: the grammar hands the command over as
    # the catch identifier; it is the body (the debugger stops), so the catch is not empty
    stops = b"try\n    x = f();\ncatch\n    keyboard;\nend\n"
    assert matlab.extract(stops, "s.m").handlers == (HandlerFact(3, "", "other"),)
    named = b"try\n    x = f();\ncatch ME\n    % nothing to do\nend\n"
    assert matlab.extract(named, "s.m").handlers == (HandlerFact(3, "ME", "pass"),)


def test_crlf_line_ends_are_read_as_lf():
    # tree-sitter-matlab reads "rand(" after a CRLF "..." continuation as "and(", and a
    # blank CRLF line after the function line as ending the help block
    source = (b"function x = draw(n)\n\n% DRAW  n uniform draws\nrng(1);\nx = zeros(1, ...\n    n) + ...\n"
              b"rand(1, n);\nend\n")
    lf = matlab.extract(source, "draw.m")
    crlf = matlab.extract(source.replace(b"\n", b"\r\n"), "draw.m")
    assert [(r.line, r.call, r.kind) for r in crlf.randoms] == [(4, "rng", "seed"), (7, "rand", "draw")]
    assert [(d.name, d.documented) for d in crlf.definitions] == [("draw", True)]
    assert crlf == lf


def test_an_objective_c_file_is_not_read_as_matlab():
    source = b'#import <Foundation/Foundation.h>\n@interface Foo : NSObject\n@end\n@implementation Foo\n' \
             b'- (void)bar { NSLog(@"hi %d", rand()); }\n@end\n'
    facts = matlab.extract(source, "Foo.m")
    assert (facts.language, facts.lines, facts.definitions, facts.comments, facts.randoms, facts.parse_error) == (
        "objective-c", 6, (), (), (), None)


def test_function_handles_and_octave_comments_are_matlab():
    # a cell array of handles continued on lines that start with "@end…"
    source = b"# import the recordings\nf = @(x) x + 1;\ncallbacks = { ...\n    @end_of_trial, ...\n    @start_of_trial};\n"
    assert matlab.extract(source, "load_all.m").language == "matlab"
