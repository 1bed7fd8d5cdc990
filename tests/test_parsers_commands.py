"""Parsers of commands in documents and task files: prompt lines of the prose
(METRICS §0.2.10), code block spans, container images a command runs or builds, and
Make-like prerequisites (§0.2.12)."""

from __future__ import annotations

import pytest

from scoring.parsers.markdown import parse_document
from scoring.parsers.shell import container_build_tags, container_image, image_name, split_commands
from scoring.parsers.tasks import parse_task_file


def test_prompt_lines_of_list_items_blockquotes_and_plain_text():
    text = ("# P\n\n- $ pip install -r requirements.txt\n1. $ make all\n\n> $ python run.py\n>\n> - % octave x.m\n\n"
            "```\n$ in a fence\n```\n\n    $ indented code\n\nCosts 5 $ per run, $5 a line.\n<pre>\n$ html\n</pre>\n")
    doc = parse_document(text, "README.md")
    assert [(p.line, p.text) for p in doc.prompt_lines] == [
        (3, "$ pip install -r requirements.txt"), (4, "$ make all"), (6, "$ python run.py"), (8, "% octave x.m")]
    txt = parse_document("P\n\n$ pip install .\n$ python run.py\n", "README.txt")
    assert [(p.line, p.text) for p in txt.prompt_lines] == [(3, "$ pip install ."), (4, "$ python run.py")]
    rst = parse_document("Title\n=====\n\n* $ pip install x\n\n::\n\n  $ in a literal block\n", "README.rst")
    assert [(p.line, p.text) for p in rst.prompt_lines] == [(4, "$ pip install x")]


def test_command_lines_are_code_lines_then_prompt_lines():
    doc = parse_document("# P\n\n- $ conda env create\n\n```\nmake\n```\n\nRun `make all`.\n", "README.md")
    assert [(line, text) for line, text, _ in doc.command_lines()] == [
        (6, "make"), (9, "make all"), (3, "$ conda env create")]


def test_code_block_span_holds_its_fences():
    doc = parse_document("# x\n\n```julia\na\nb\n```\n\n    indented\n    two\n\n~~~\nopen to the end\n", "README.md")
    assert [(b.kind, b.line_start, b.line_end, b.span) for b in doc.code_blocks] == [
        ("fence", 4, 5, (3, 6)), ("indented", 8, 9, (8, 9)), ("fence", 12, 12, (11, 12))]


@pytest.mark.parametrize(("line", "image"), [
    ("docker run -dp 8787:8787 benmarwick/compendium", "benmarwick/compendium"),
    ("docker run --rm -it -v $PWD:/work --name x ghcr.io/o/tool:1.0 bash", "ghcr.io/o/tool:1.0"),
    ("podman run --env=A=1 img", "img"),
    ("docker container run -p 80:80 web", "web"),
    ("singularity run docker://me/x:2", "me/x:2"),
    ("apptainer exec tool.sif python run.py", None),
    ("docker build -t me/x .", None),
    ("docker run", None),
])
def test_container_image(line, image):
    assert container_image(split_commands(line)[0]) == image


def test_container_build_tags_and_image_names():
    assert container_build_tags(split_commands("docker build . -t lab/proj:latest --tag=proj")[0]) == [
        "lab/proj:latest", "proj"]
    assert container_build_tags(split_commands("docker buildx build -tproj .")[0]) == ["proj"]
    assert container_build_tags(split_commands("docker run -t proj")[0]) == []
    assert [image_name(r) for r in ("ghcr.io/org/tool:1.0@sha256:ab", "localhost:5000/x", "img")] == ["tool", "x", "img"]


def test_make_like_prerequisites():
    make = parse_task_file("Makefile", "install: devready | dirs\n\techo ok\n\ndevready: $(VENV) venv\n"
                                       "\tpip install -r requirements.txt\nall: a.o ; cc -o all a.o\n")
    assert [(t.name, t.prerequisites) for t in make] == [
        ("install", ["devready", "dirs"]), ("devready", ["venv"]), ("all", ["a.o"])]
    just = parse_task_file("justfile", "install: setup (lint \"x\" y) fmt\n    echo\nsetup:\n    pip install .\n")
    assert [(t.name, t.prerequisites) for t in just] == [("install", ["setup", "lint", "fmt"]), ("setup", [])]
    task = parse_task_file("Taskfile.yml", "version: 3\ntasks:\n  install:\n    deps: [setup, {task: env}]\n"
                                           "    cmds:\n      - echo x\n  setup:\n    cmds:\n      - pip install .\n")
    assert [(t.name, t.prerequisites) for t in task] == [("install", ["setup", "env"]), ("setup", [])]


def test_make_variable_prerequisites_and_expansion():
    text = ("PROG = fit\nOBJS = a.o \\\n  b.o\nPYTHON ?= python3\nPYTHON ?= python2\nFLAGS = -O2\nFLAGS += -g\n"
            "targets := $(patsubst src/%.py,out/%.csv,$(wildcard src/*.py))\n"
            "all: $(PROG) docs $(targets)\n\n$(PROG): $(OBJS)\n\t$(CC) $(FLAGS) $(OBJS) -o $@\n"
            "run:\n\t$(PYTHON) run.py $(UNSET)\n")
    targets = parse_task_file("Makefile", text)
    assert [(t.name, t.prerequisites, t.variable_prerequisites) for t in targets] == [
        ("all", ["docs"], ["fit", "$(targets)"]), ("$(PROG)", [], ["a.o", "b.o"]), ("run", [], [])]
    run = targets[-1]
    assert run.expand(run.recipe[0][1]) == "python3 run.py $(UNSET)"
    assert targets[1].expand("$(FLAGS)") == "-O2 -g"
    assert targets[1].expand(targets[1].name) == "fit"


def test_nice_is_a_wrapper():
    assert split_commands("nice python run.py")[0].words == ("python", "run.py")


def test_images_of_a_commented_out_block_are_kept_apart_from_the_links():
    doc = parse_document("# P\n\n![a](fig/a.png)\n\n<!-- # Chart\n\n![chart](fig/chart.png) -->\n", "README.md")
    assert [(link.url, link.line) for link in doc.links] == [("fig/a.png", 3)]
    assert [(link.url, link.line, link.is_image) for link in doc.commented_images] == [("fig/chart.png", 7, True)]
    assert parse_document("<!-- a note -->\n\n![a](a.png)\n", "README.md").commented_images == []
