"""Nextflow frontend: exact facts from small synthetic sources."""

from __future__ import annotations

from scoring.facts import (
    BlockFact,
    CliArgFact,
    DefinitionFact,
    DirectiveFact,
    Expr,
    FileIOFact,
    HandlerFact,
    ImportFact,
)
from scoring.frontends import nextflow

PIPELINE = b"""#!/usr/bin/env nextflow
nextflow.enable.dsl = 2
include { TRIM; ALIGN as ALIGN_HG38 } from './modules/a'
params.input = "data/*.fq"
// Quality control of the raw reads
process QC {
    tag "$id"
    container 'quay.io/biocontainers/fastqc:0.12.1--hdfd78af_0'
    conda 'bioconda::fastqc=0.12.1'
    publishDir "${params.outdir}/qc", mode: 'copy'
    errorStrategy 'ignore'
    input:
    tuple val(id), path(reads)
    output:
    path "*.html"
    script:
    \"\"\"
    fastqc $reads
    \"\"\"
}
workflow {
    reads = Channel.fromPath(params.input)
    QC(reads)
}
"""


def facts():
    return nextflow.extract(PIPELINE, "main.nf")


def test_include_is_an_import_and_a_directive_per_included_process():
    result = facts()
    assert result.imports == (ImportFact("./modules/a", 3, "none", "include"),)
    assert result.directives[:2] == (DirectiveFact("include", "./modules/a", 3, "TRIM"),
                                     DirectiveFact("include", "./modules/a", 3, "ALIGN"))


def test_process_directives_are_scoped_by_the_process():
    assert facts().directives[2:] == (
        DirectiveFact("tag", "$id", 7, "QC"),
        DirectiveFact("container", "quay.io/biocontainers/fastqc:0.12.1--hdfd78af_0", 8, "QC"),
        DirectiveFact("conda", "bioconda::fastqc=0.12.1", 9, "QC"),
        DirectiveFact("publishDir", "${params.outdir}/qc", 10, "QC"),
        DirectiveFact("errorStrategy", "ignore", 11, "QC"),
        DirectiveFact("input", "tuple val(id), path(reads)", 13, "QC"),
        DirectiveFact("output", 'path "*.html"', 15, "QC"),
        DirectiveFact("script", "\n    fastqc $reads\n    ", 17, "QC"),
    )


def test_params_errorstrategy_definitions_and_inputs():
    result = facts()
    # the default assigned in the script is told from the reads
    assert result.cli_args == (CliArgFact(4, "params", "input", assigned=True), CliArgFact(10, "params", "outdir"),
                               CliArgFact(22, "params", "input"))
    assert result.handlers == (HandlerFact(11, "QC", "pass"),)
    assert result.definitions == (DefinitionFact("QC", "process", 6, True, True),)
    assert result.file_io == (FileIOFact(22, "read", "", "Channel.fromPath"),)


def test_config_settings_are_directives_scoped_by_their_blocks():
    config = (b"params { input = 'data/*.fq' }\nprocess {\n    container = 'quay.io/x:1.0'\n"
              b"    withName: FOO { cpus = 4 }\n}\ndocker.enabled = true\n"
              b"manifest { nextflowVersion = '>=23.04' }\n")
    result = nextflow.extract(config, "nextflow.config")
    assert result.directives == (
        DirectiveFact("input", "data/*.fq", 1, "params"),
        DirectiveFact("container", "quay.io/x:1.0", 3, "process"),
        DirectiveFact("cpus", "4", 4, "process.withName:FOO"),
        DirectiveFact("enabled", "true", 6, "docker"),
        DirectiveFact("nextflowVersion", ">=23.04", 7, "manifest"),
    )
    assert result.cli_args == (CliArgFact(1, "params", "input", assigned=True),)
    # every scope block, selectors named as in a scope path
    assert result.blocks == (BlockFact("params", 1), BlockFact("process", 2), BlockFact("withName:FOO", 4),
                             BlockFact("manifest", 7))


def test_blocks_of_a_script_the_entry_workflow_not_processes_or_includes():
    assert facts().blocks == (BlockFact("workflow", 21),)
    assert facts().frontend_version.startswith("1.1.10+")


def test_parse_error_is_a_fact_and_the_rest_is_still_read():
    result = nextflow.extract(b"include { A } from './a'\nprocess X {\n  container 'a:1'\n", "broken.nf")
    assert result.parse_error == "syntax error at line 2"
    assert result.imports == (ImportFact("./a", 1, "none", "include"),)


def test_exec_section_is_a_directive_of_its_process():
    source = b"""process SHEET {
    input:
    val names
    exec:
    println names
}
"""
    facts = nextflow.extract(source, "main.nf")
    assert DirectiveFact("exec", "", 4, "SHEET") in facts.directives
    assert not [d for d in facts.directives if d.kind == "exec" and d.scope != "SHEET"]


PROCESS_SCRIPTS = b'''\
process SPLIT {
    script:
    """
    #!/usr/bin/env Rscript
    set.seed(${params.seed})
    rows <- read.csv("${table}")
    picked <- sample(rows\\$id, 3)
    """
}
process TRAIN {
    shell:
    \'\'\'
    #!/usr/bin/python3
    import random
    random.seed(!{params.seed})
    print(random.random(), "$HOME")
    \'\'\'
}
process SHELL {
    script:
    """
    echo "#!/usr/bin/env Rscript is not this script's shebang"
    """
}
'''


def test_r_and_python_process_scripts_are_embedded_with_the_files_lines():
    result = nextflow.extract(PROCESS_SCRIPTS, "main.nf")
    r, python = result.embedded
    assert (r.language, python.language) == ("r", "python")
    # interpolations read as the identifier NF_VAR, Groovy's \\$ as $
    assert [(c.line, c.name, c.args) for c in r.calls] == [
        (5, "set.seed", (Expr("NF_VAR"),)), (6, "read.csv", ("NF_VAR",)), (7, "sample", (Expr("rows$id"), 3))]
    assert [(f.line, f.kind, f.seed_source) for f in r.randoms] == [(5, "seed", "argument"), (7, "draw", "")]
    # the script's indentation stripped, as Nextflow runs it
    assert python.parse_error is None
    assert [(c.line, c.name) for c in python.calls if c.name.startswith("random.")] == [
        (15, "random.seed"), (16, "random.random")]
    assert nextflow.extract(b'process A {\n  script:\n  """\n  echo hi\n  """\n}\n', "main.nf").embedded == ()


SCRIPT_WITH_SLASHES = b'''process MULTIQC {
    label 'process_single'
    container 'quay.io/biocontainers/multiqc:1.27--pyhdfd78af_0'

    script:
    def args = task.ext.args ?: ''
    """
    wget "https://example.org/ref.fa"
    multiqc --force ${params.title} $params.extra .
    multiqc --version | sed -e "s/multiqc, version //g" > versions.txt
    """
}
'''


def test_a_triple_quoted_script_is_read_whole_and_hides_nothing_after_it():
    result = nextflow.extract(SCRIPT_WITH_SLASHES, "main.nf")
    assert result.definitions == (DefinitionFact("MULTIQC", "process", 1, True, False),)
    body = ('\n    wget "https://example.org/ref.fa"\n    multiqc --force ${params.title} $params.extra .\n'
            '    multiqc --version | sed -e "s/multiqc, version //g" > versions.txt\n    ')
    assert [d for d in result.directives if d.kind in ("label", "container", "script")] == [
        DirectiveFact("label", "process_single", 2, "MULTIQC"),
        DirectiveFact("container", "quay.io/biocontainers/multiqc:1.27--pyhdfd78af_0", 3, "MULTIQC"),
        DirectiveFact("script", body, 7, "MULTIQC"),
    ]
    assert [(s.value, s.line_start, s.line_end) for s in result.strings if s.line_start == 7] == [(body, 7, 11)]
    # the params the script interpolates, at their lines; its "//" are no comments
    assert result.cli_args == (CliArgFact(9, "params", "title"), CliArgFact(9, "params", "extra"))
    assert [c.line_start for c in result.comments] == []
    assert [(u.url, u.line) for u in result.urls] == [("https://example.org/ref.fa", 8)]


def test_literal_spans_skip_comments_strings_and_interpolations():
    source = b'''// a """ in a comment
x = "a ${ y ? "b" : 'c' } \\" d"
s = \'\'\'one
two\'\'\'
'''
    spans = nextflow.literal_spans(source)
    assert [(kind, source[start:end]) for kind, start, end in spans] == [
        ("comment", b'// a """ in a comment'),
        ("string", b'"a ${ y ? "b" : \'c\' } \\" d"'),
        ("triple", b"\'\'\'one\ntwo\'\'\'"),
    ]


def test_a_file_the_grammar_cannot_parse_is_read_line_by_line_too():
    # a ternary inside a one-line string loses both processes in the walk
    source = b'''process A {
    container "${ workflow.containerEngine == 'singularity' ? 'https://x/a.sif' : 'quay.io/a:1' }"
    errorStrategy 'ignore'
    input:
    path reads
    """
    trim $reads
    """
}
// aligns
process B {
    memory '2 GB'
}
'''
    result = nextflow.extract(source, "main.nf")
    assert result.parse_error == "syntax error at line 1"
    assert result.definitions == (DefinitionFact("A", "process", 1, True, False),
                                  DefinitionFact("B", "process", 11, True, True))
    assert result.directives == (
        DirectiveFact("container", "${ workflow.containerEngine == 'singularity' ? 'https://x/a.sif' : 'quay.io/a:1' }",
                      2, "A"),
        DirectiveFact("errorStrategy", "ignore", 3, "A"),
        DirectiveFact("input", "path reads", 5, "A"),
        DirectiveFact("script", "\n    trim $reads\n    ", 6, "A"),
        DirectiveFact("memory", "2 GB", 12, "B"),
    )
    assert result.handlers == (HandlerFact(3, "A", "pass"),)


def test_nextflow_configurations_beside_nextflow_config_are_read_as_nextflow():
    from scoring.frontends import frontend_name
    assert [frontend_name(p) for p in ("nextflow_test.config", "conf/nextflow.hpc.config", "nf-test.config",
                                       "web.config", "conf/base.config")] == [
        "nextflow", "nextflow", None, None, "nextflow"]
