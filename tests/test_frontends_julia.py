"""Julia frontend: exact facts from small synthetic sources."""

from __future__ import annotations

from scoring.facts import (
    AssignmentFact,
    CliArgFact,
    DefinitionFact,
    ExportFact,
    FileIOFact,
    HandlerFact,
    ImportFact,
    MacroFact,
    RandomFact,
)
from scoring.frontends import julia

MODULE = b'''module Sim
using Random, Statistics
import LinearAlgebra: norm
import DataFrames as DF
export simulate

"""
    simulate(n)

Draws `rand(3)` samples, see https://example.org/docs.
"""
function simulate(n::Int)
    rng = MersenneTwister(42)
    x = rand(rng, n)
    return x
end

helper(x) = x + 1
Random.seed!(1234)
y = randn(3)
try
    risky()
catch
end
token = "s3cr3t"
println(ARGS[1])
open("out.txt", "w") do io
    write(io, "x")
end
frame = DF.DataFrame()
end
'''


def facts():
    return julia.extract(MODULE, "src/Sim.jl")


def test_using_and_import_statements():
    assert facts().imports == (
        ImportFact("Random", 2, "none", "using"),
        ImportFact("Statistics", 2, "none", "using"),
        ImportFact("LinearAlgebra", 3, "none", "import"),
        ImportFact("DataFrames", 4, "none", "import"),
    )


def test_import_aliases_are_resolved_in_call_names():
    call = [c for c in facts().calls if c.written == "DF.DataFrame"][0]
    assert call.name == "DataFrames.DataFrame"


def test_each_draw_names_its_generator():
    source = (b"using Random\n"
              b"rng = MersenneTwister(1234)\n"
              b"x = rand(rng, 3)\n"
              b"function f(x; rng = Random.default_rng())\n"
              b"    rand(rng, x)\n"
              b"end\n"
              b"sample_it(generator, v) = shuffle(generator, v)\n"
              b"y = randn(Xoshiro(7), 2)\n"
              b"z = rand(1:6)\n"
              b"Random.seed!(Random.default_rng(), 5)\n"
              b"u = Xoshiro()\n"
              b"w = rand(u)\n"
              b"b = rand(rngs[j], 1:9)\n")
    assert julia.extract(source, "a.jl").randoms == (
        RandomFact(2, "MersenneTwister", "rng", "engine", True, "literal"),
        RandomFact(3, "rand", "rng", "draw", False, ""),
        # a keyword default bound to the global generator holds in its function only
        RandomFact(5, "rand", "Random.GLOBAL", "draw", False, ""),
        RandomFact(7, "shuffle", "generator", "draw", False, ""),
        RandomFact(8, "randn", "Xoshiro(7)", "draw", False, ""),
        RandomFact(8, "Xoshiro", "Xoshiro(7)", "engine", True, "literal"),
        RandomFact(9, "rand", "Random.GLOBAL", "draw", False, ""),
        RandomFact(10, "Random.seed!", "Random.GLOBAL", "seed", True, "literal"),
        RandomFact(11, "Xoshiro", "u", "engine", False, "entropy"),
        RandomFact(12, "rand", "u", "draw", False, ""),
        RandomFact(13, "rand", "rngs[j]", "draw", False, ""),
    )


def test_a_generator_held_in_a_struct_and_the_methods_taking_one():
    source = (b"using Random\n"
              b"make(x, rng = Random.default_rng(); n = 1) = Gen(x, rng)\n"
              b"function (g::Gen{<:Any})()\n"
              b"    x, rng = g.x, g.rng\n"
              b"    rand(rng, x)\n"
              b"    shuffle(g.rng, x)\n"
              b"    fill!(x, g.rng)\n"
              b"end\n"
              b"h(m) = rand(m.rng)\n"
              b"function k(v)\n"
              b"    r = Random.default_rng()\n"
              b"    fill!(v, r)\n"
              b"end\n"
              b"plain(x) = x\n")
    result = julia.extract(source, "a.jl")
    assert [(d.name, d.parameters, d.none_defaults) for d in result.definitions if d.kind == "function"] == [
        ("make", ("x", "rng", "*", "n"), ("rng",)), ("(g::Gen", (), ()), ("h", (), ()), ("k", (), ()),
        ("plain", (), ())]
    assert result.randoms == (
        # the struct's field: Type.field where the method annotates the type
        RandomFact(5, "rand", "Gen.rng", "draw", False, ""),
        RandomFact(6, "shuffle", "Gen.rng", "draw", False, ""),
        # handed to a call that is no draw
        RandomFact(7, "fill!", "Gen.rng", "pass", False, ""),
        RandomFact(9, "rand", "m.rng", "draw", False, ""),
        RandomFact(12, "fill!", "Random.GLOBAL", "pass", False, ""),
    )


def test_seed_engine_and_draws_and_rand_inside_the_docstring_is_no_draw():
    assert facts().randoms == (
        RandomFact(13, "MersenneTwister", "rng", "engine", True, "literal"),
        RandomFact(14, "rand", "rng", "draw", False, ""),
        RandomFact(19, "Random.seed!", "Random.GLOBAL", "seed", True, "literal"),
        RandomFact(20, "randn", "Random.GLOBAL", "draw", False, ""),
    )


def test_docstring_documents_the_function_and_export_decides_public():
    result = facts()
    assert result.definitions == (
        DefinitionFact("Sim", "module", 1, True, False, end_line=31),
        DefinitionFact("simulate", "function", 12, True, True, end_line=16, inputs=("n",)),
        DefinitionFact("helper", "function", 18, False, False, end_line=18, inputs=("x",)),
    )
    docstring = [s for s in result.strings if s.docstring]
    assert [(s.line_start, s.line_end) for s in docstring] == [(7, 11)]
    assert [(c.line_start, c.line_end, c.doc) for c in result.comments] == [(7, 11, True)]
    # a URL in documentation is text, not a pointer in code
    assert result.urls == ()


def test_exported_names_are_facts_with_their_lines():
    result = julia.extract(b"module M\nexport a, b\nexport c\nend\n", "src/M.jl")
    assert result.exports == (ExportFact("a", 2), ExportFact("b", 2), ExportFact("c", 3))
    assert "exports" in result.to_dict()
    assert julia.extract(b"f(x) = 1\n", "f.jl").to_dict().get("exports") is None   # left out while empty


def test_empty_catch_masks_and_rethrow_does_not():
    assert facts().handlers == (HandlerFact(23, "", "pass"),)
    source = b"try\n  f()\ncatch err\n  @warn \"failed\" err\n  rethrow()\nend\n"
    assert julia.extract(source, "a.jl").handlers == (HandlerFact(3, "err", "reraise"),)


def test_assignments_cli_and_file_io():
    result = facts()
    # the value bound to a credential-like name is masked before facts leave the frontend
    assert result.assignments == (AssignmentFact("token", 25, "s3cr…(6 chars)"),)
    assert result.cli_args == (CliArgFact(26, "ARGS"),)
    assert result.file_io == (FileIOFact(27, "write", "out.txt", "open"), FileIOFact(28, "write", "", "write"))


def test_guarded_imports():
    source = b"try\n    using CUDA\ncatch\nend\nif Sys.iswindows()\n    import WinReg\nend\n"
    assert julia.extract(source, "a.jl").imports == (
        ImportFact("CUDA", 2, "try", "using"), ImportFact("WinReg", 6, "conditional", "import"))


def test_parse_error_is_a_fact_and_the_rest_is_still_read():
    result = julia.extract(b"using Random\nfunction f(\nRandom.seed!(1)\n", "broken.jl")
    assert result.parse_error == "syntax error at line 2"
    assert result.imports == (ImportFact("Random", 1, "none", "using"),)


def test_blank_lines_of_a_julia_script():
    assert julia.extract(b"x = 1\n\t\n\ny = 2\n", "a.jl").blank_lines == (2, 3)


def test_macro_calls_by_name_outside_strings_and_comments():
    result = julia.extract(
        b'using Test\n"""doc $(@test x)"""\nf(x) = 1\n@testset "x" begin\n  Test.@test 1 == 1\n'
        b'  @test_throws ErrorException f()\nend\n# @test\nmacro mym(x) end\ns = "@test"\ny = @view a[1]\n',
        "test/runtests.jl")
    assert result.macros == (MacroFact("@testset", 4), MacroFact("@test", 5), MacroFact("@test_throws", 6),
                             MacroFact("@view", 11))
    assert result.frontend_version.startswith("1.3.2+")
    assert julia.extract(b"x = 1\n", "a.jl").to_dict().get("macros") is None


def test_args_read_in_an_interpolation_but_not_in_a_docstring():
    result = julia.extract(b'"""\nUse `$(ARGS[1])`\n"""\nf(x) = x\n@info "Read $(ARGS[1])"\nn = length(ARGS)\n', "run.jl")
    assert result.cli_args == (CliArgFact(5, "ARGS"), CliArgFact(6, "ARGS"))


def test_short_form_methods_with_a_return_type_or_where_clause_are_definitions():
    source = (b'"""Plain."""\nB(x) = x\n"""Typed."""\nD(x)::Int = 1\n"""Parametric."""\n'
              b'KSample(xs::AbstractVector{T}...; k=1) where T<:Real = KSample(xs)\n'
              b'E(x::T)::T where {T} = x\nBase.show(io::IO, x::E) where T = print(io, x)\nn::Int = 3\n')
    result = julia.extract(source, "src/tests.jl")
    assert [(d.name, d.kind, d.line, d.documented) for d in result.definitions] == [
        ("B", "function", 2, True), ("D", "function", 4, True), ("KSample", "function", 6, True),
        ("E", "function", 7, False), ("Base.show", "function", 8, False)]


def test_doc_macro_strings_are_docstrings_and_document_their_target():
    source = (b'@doc """\nSolve it.\n""" solve(x::Int)\n'
              b'@doc raw"""\nThe ``x^2`` map.\n""" sq(x) = x^2\n'
              b'@doc "Scale by k." function scale(x, k)\n    x * k\nend\n'
              b'@doc """\nNext line.\n"""\nfunction nextline(x)\n    x\nend\n'
              b'alias(x) = sq(x)\n@doc (@doc sq) alias\nBase.@doc "Q." Base.show\n'
              b'table = raw"""\na,b\n"""\n@doc "Look-up only."\n\nlater(x) = x\n')
    result = julia.extract(source, "src/M.jl")
    assert [(d.name, d.kind, d.line, d.documented) for d in result.definitions] == [
        ("solve", "signature", 3, True), ("sq", "function", 6, True), ("scale", "function", 7, True),
        ("nextline", "function", 13, True), ("alias", "function", 16, False), ("alias", "signature", 17, True),
        ("Base.show", "signature", 18, True), ("later", "function", 24, False)]
    assert [(c.line_start, c.line_end, c.doc) for c in result.comments] == [
        (1, 3, True), (4, 6, True), (7, 7, True), (10, 12, True), (18, 18, True)]
    assert [(s.line_start, s.docstring) for s in result.strings] == [
        (1, True), (4, True), (7, True), (10, True), (18, True), (22, False)]


def test_inputs_are_every_parameter_of_a_method():
    """A4's scope of a name: keyword, typed, defaulted and splatted parameters, long and
    short form, while ``parameters`` stays empty for a method taking no generator (S1)."""
    source = b"function fetch(url::String, n = 2; retries::Int = 3)\n    url\nend\nget(path, xs...) = path\n"
    assert [(d.name, d.inputs, d.parameters) for d in julia.extract(source, "f.jl").definitions] == [
        ("fetch", ("url", "n", "retries"), ()),
        ("get", ("path", "xs"), ()),
    ]


def test_a_docstring_above_a_const_binding_or_a_bare_name_documents_that_name():
    source = (b'module Dx\nexport alias, plotit, f, g, h\nf(x) = x\n"""alias(x) -- same as f"""\nconst alias = f\n'
              b'"""plotit(x) -- a recipe"""\nplotit\n"""h -- a value"""\nh = 2\ng = 3\nend\n')
    result = julia.extract(source, "src/Dx.jl")
    # documented as @doc documents a name (kind "signature"); an undocumented binding
    # (g) defines nothing
    assert [(d.name, d.kind, d.line, d.documented) for d in result.definitions] == [
        ("Dx", "module", 1, False), ("f", "function", 3, False), ("alias", "signature", 5, True),
        ("plotit", "signature", 7, True), ("h", "signature", 9, True)]


# tree-sitter-julia cannot read `begin` in index arithmetic; in this shape its error
# recovery turns the whole file into one ERROR node
LOST_TO_ONE_ERROR = b'''module Swaps

export swapsort!, build

function swapsort!(v, w)
    for k in eachindex(v)[begin+1:end-1]
        best = k
        if isnothing(best)
            for j in k+1:lastindex(w)
                if w[j] > w[best]
                    best = j
                end
            end
        end
        v[k], v[best] = v[best], v[k]
        w[k], w[best] = w[best], w[k]
        w .*= abs.(v .- v[k])
    end
    return v
end
swapsorted(v) = swapsort!(copy(v), ones(length(v)))

"""
    build(P, xs)

Multiply the terms of the sorted `xs`.
"""
function build(P::Type{<:Real}, xs::AbstractVector, var::Symbol = Sym(:x))
    x = variable(P, var)
    p = prod(x-r for r in swapsorted(xs); init=one(x))
    p
end

end
'''


def test_a_grammar_failure_that_takes_the_whole_file_stays_in_its_statement():
    from scoring.frontends import _common as ts

    # the grammar still fails so (else this test no longer exercises the chunked parse)
    assert ts.parse(LOST_TO_ONE_ERROR, "julia").root_node.type == "ERROR"
    facts = julia.extract(LOST_TO_ONE_ERROR, "src/Swaps.jl")
    assert [(d.name, d.kind, d.line, d.public, d.documented) for d in facts.definitions] == [
        ("Swaps", "module", 1, True, False),
        ("swapsort!", "function", 5, True, False),
        ("swapsorted", "function", 21, False, False),
        ("build", "function", 28, True, True),
    ]
    assert facts.exports == (ExportFact("swapsort!", 3), ExportFact("build", 3))
    assert facts.parse_error == "syntax error at line 6"
    assert [c.name for c in facts.calls if c.line == 30] == ["prod", "swapsorted", "one"]


def test_chunked_parse_keeps_the_chunks_that_parse_and_scans_the_failing_one():
    # a statement the grammar cannot read, then a documented definition: each chunk
    # parses on its own at its own lines
    source = b'''x = 1
function broken(v)
    s = v[begin+1:end]
end

"""
    fine(x)

Return x.
"""
fine(x) = x
'''
    chunks, wrappers = julia.top_level_chunks(source)
    assert [source[start:end].split(b"\n")[0] for start, end in chunks] == [b"x = 1", b"function broken(v)", b'"""']
    assert wrappers == []
    facts = julia._chunked_facts(source)
    assert [(d.name, d.line, d.documented) for d in facts.definitions] == [("broken", 2, False), ("fine", 11, True)]
    assert [(c.line_start, c.line_end, c.doc) for c in facts.comments] == [(6, 10, True)]
    assert facts.parse_error is not None
    assert facts.lines == 11


def test_module_lines_are_kept_around_every_chunk():
    source = b"module M\n\nf(x) = x\ng(x = ) = 1\n\nend\n"
    chunks, wrappers = julia.top_level_chunks(source)
    assert [source[s:e] for s, e in wrappers] == [b"module M\n", b"end\n"]
    assert [source[s:e] for s, e in chunks] == [b"\n", b"f(x) = x\n", b"g(x = ) = 1\n\n", b""]
