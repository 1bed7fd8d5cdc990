"""Snakemake frontend: exact facts from small synthetic sources."""

from __future__ import annotations

from scoring.facts import (
    CliArgFact,
    CommentFact,
    DefinitionFact,
    DirectiveFact,
    FileIOFact,
    HandlerFact,
    ImportFact,
    RandomFact,
)
from scoring.frontends import snakemake

WORKFLOW = b'''import random
from snakemake.utils import min_version
min_version("7.0")

configfile: "config/config.yaml"
include: "rules/qc.smk"

# Align reads
rule align:
    """Align reads with bwa."""
    input:
        reads="data/{sample}.fq",
        ref="ref/genome.fa"
    output: "results/{sample}.bam"
    conda: "envs/bwa.yaml"
    container: "docker://biocontainers/bwa:v0.7.17"
    threads: 8
    shell:
        "bwa mem -t {threads} {input.ref} {input.reads} > {output}"

rule plot:
    input: rules.align.output
    output: "figures/{sample}.png"
    script: "scripts/plot.py"

rule stats:
    output: "stats.txt"
    run:
        try:
            import numpy as np
        except ImportError:
            pass
        random.seed(7)
        with open(output[0], "w") as handle:
            handle.write("ok")

use rule align as align_hg38 with:
    input: ref="ref/hg38.fa"
'''


def facts():
    return snakemake.extract(WORKFLOW, "workflow/Snakefile")


def test_global_and_rule_directives_with_their_rule():
    assert facts().directives == (
        DirectiveFact("configfile", "config/config.yaml", 5, ""),
        DirectiveFact("include", "rules/qc.smk", 6, ""),
        DirectiveFact("input", "data/{sample}.fq", 12, "align"),
        DirectiveFact("input", "ref/genome.fa", 13, "align"),
        DirectiveFact("output", "results/{sample}.bam", 14, "align"),
        DirectiveFact("conda", "envs/bwa.yaml", 15, "align"),
        DirectiveFact("container", "docker://biocontainers/bwa:v0.7.17", 16, "align"),
        DirectiveFact("threads", "8", 17, "align"),
        DirectiveFact("shell", "bwa mem -t {threads} {input.ref} {input.reads} > {output}", 19, "align"),
        DirectiveFact("input", "rules.align.output", 22, "plot"),
        DirectiveFact("output", "figures/{sample}.png", 23, "plot"),
        DirectiveFact("script", "scripts/plot.py", 24, "plot"),
        DirectiveFact("output", "stats.txt", 27, "stats"),
        DirectiveFact("input", "ref/hg38.fa", 38, "align_hg38"),
    )


def test_python_parts_give_python_facts_with_guards():
    result = facts()
    assert result.imports == (
        ImportFact("random", 1, "none", "import"),
        ImportFact("snakemake.utils", 2, "none", "from"),
        ImportFact("rules/qc.smk", 6, "none", "include"),
        ImportFact("numpy", 30, "try", "import"),
    )
    # as the Python frontend writes it: an except whose body does nothing swallows, with
    # its end line and excerpt (C4 decides from what it catches)
    assert result.handlers == (HandlerFact(31, "ImportError", "pass", None, 32, "empty", "except ImportError: pass"),)
    assert result.randoms == (RandomFact(33, "random.seed", "random", "seed", True, "literal"),)
    assert result.file_io == (FileIOFact(34, "write", "", "open"),)


def test_rules_are_definitions_documented_by_their_docstring_or_a_comment_above():
    result = facts()
    assert result.definitions == (
        DefinitionFact("align", "rule", 9, True, True),
        DefinitionFact("plot", "rule", 21, True, False),
        DefinitionFact("stats", "rule", 26, True, False),
        DefinitionFact("align_hg38", "use rule", 37, True, False),
    )
    assert result.comments == (CommentFact(8, 8, "# Align reads", False),)
    docstrings = [s.value for s in result.strings if s.docstring]
    assert docstrings == ["Align reads with bwa."]


def test_a_rule_file_with_singularity_and_a_wrapper():
    source = b'rule trim:\n    singularity: "docker://x/trim:1.0"\n    wrapper:\n        "v1.0.0/bio/trimmomatic"\n'
    assert snakemake.extract(source, "rules/trim.smk").directives == (
        DirectiveFact("singularity", "docker://x/trim:1.0", 2, "trim"),
        DirectiveFact("wrapper", "v1.0.0/bio/trimmomatic", 4, "trim"),
    )


def test_reads_of_the_config_dictionary_are_config_arguments():
    source = (b'samples = config["samples"]\nconfig["out"] = "x"\n'
              b'rule all:\n    input: expand("{s}", s=config.get("names", []))\n')
    assert snakemake.extract(source, "wf/run.smk").cli_args == (
        CliArgFact(1, "config", "samples"),
        CliArgFact(4, "config", "names"),
    )


def test_parse_error_keeps_the_directives_the_block_parser_found():
    source = b'rule a:\n    conda: "envs/a.yaml"\n    shell: "run" +\n\nrule b:\n    output: "b.txt"\n'
    result = snakemake.extract(source, "Snakefile")
    assert result.parse_error == "syntax error at line 3"
    assert result.directives == (
        DirectiveFact("conda", '"envs/a.yaml"', 2, "a"),
        DirectiveFact("shell", '"run" +', 3, "a"),
        DirectiveFact("output", '"b.txt"', 6, "b"),
    )
