"""Tests for scoring.parsers.dockerfile (METRICS.md E2, E4 and §11 cases 7 and 8)."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from scoring.parsers.dockerfile import (
    Dockerfile,
    Instruction,
    SingularityDef,
    Stage,
    is_pinned_image,
    parse_dockerfile,
    parse_singularity,
    score_dockerfile,
    score_singularity,
    split_image,
    versioned_tag,
)

DIGEST = "sha256:" + "a" * 64


# --------------------------------------------------------------------------- §11 cases 7 and 8


def test_case_7_pinned_base_with_run():
    df = parse_dockerfile("FROM python:3.10\nRUN pip install x\n")
    assert score_dockerfile(df)[:2] == (100, "pinned_base_with_run")
    assert versioned_tag(df.stages[0].image)


def test_case_7_stage_alias_does_not_break_the_pin():
    df = parse_dockerfile("FROM python:3.10 AS build\nRUN pip install x\n")
    assert df.stages == [Stage("python:3.10", "build", 1, None)]
    assert score_dockerfile(df)[:2] == (100, "pinned_base_with_run")


def test_case_7_from_only():
    assert score_dockerfile(parse_dockerfile("FROM python:3.10\n"))[:2] == (50, "from_only")


def test_case_8_containerfile_text_scores_like_a_dockerfile():
    # Discovery is the detector's job; the parser only sees the text of case 7.
    assert score_dockerfile(parse_dockerfile("FROM python:3.10\nRUN pip install x\n"))[0] == 100


def test_case_8_windows_def_file_is_not_a_container():
    assert parse_singularity("EXPORTS\n    DllMain\n    MyFunction @1\n") is None


# --------------------------------------------------------------------------- scoring levels


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("FROM ubuntu\nRUN apt-get update\n", (80, "run_unpinned")),
        ("FROM ubuntu:latest\nRUN x\n", (80, "run_unpinned")),
        ("FROM python:3\nRUN x\n", (80, "run_unpinned")),
        (f"FROM ubuntu@{DIGEST}\nRUN x\n", (100, "pinned_base_with_run")),
        ("FROM jupyter/scipy-notebook:2023-10-20\nRUN x\n", (100, "pinned_base_with_run")),
        ("FROM rocker/r-ver:4.2.1\nRUN x\n", (100, "pinned_base_with_run")),
        ("from python:3.11.4-slim\nrun pip install .\n", (100, "pinned_base_with_run")),
        ("  FROM python:3.11\n    RUN x\n", (100, "pinned_base_with_run")),
        ("FROM ubuntu:22.04\nCMD [\"bash\"]\n", (50, "from_only")),
        ("RUN echo no base\n", (20, "malformed")),
        ("", (20, "malformed")),
        ("# only a comment\n", (20, "malformed")),
    ],
)
def test_score_levels(text, expected):
    assert score_dockerfile(parse_dockerfile(text))[:2] == expected


def test_score_returns_a_reason():
    value, label, reason = score_dockerfile(parse_dockerfile("FROM ubuntu\nRUN x\n"))
    assert (value, label) == (80, "run_unpinned")
    assert "ubuntu" in reason and "line 1" in reason


def test_final_stage_decides_the_pin():
    text = "FROM python:3.10 AS build\nRUN pip wheel .\nFROM ubuntu\nCOPY --from=build /w /w\nRUN x\n"
    df = parse_dockerfile(text)
    assert df.final_base() == ("ubuntu", df.stages[1])
    assert score_dockerfile(df)[0] == 80


def test_final_base_follows_aliases_back_to_an_external_image():
    text = (
        "FROM python:3.11-slim AS base\n"
        "FROM base AS deps\n"
        "RUN pip install -r requirements.txt\n"
        "FROM DEPS AS final\n"  # stage names are case-insensitive
        "CMD python run.py\n"
    )
    df = parse_dockerfile(text)
    assert df.final_base() == ("python:3.11-slim", df.stages[0])
    assert score_dockerfile(df)[0] == 100


def test_final_base_without_from():
    assert Dockerfile().final_base() == (None, None)


def test_a_stage_cannot_refer_to_a_later_alias():
    df = parse_dockerfile("FROM later\nRUN x\nFROM python:3.10 AS later\n")
    # The final stage is external; the first FROM names an image called 'later'.
    assert df.final_base() == ("python:3.10", df.stages[1])
    df = parse_dockerfile("FROM python:3.10 AS later\nFROM x AS x\nRUN y\n")
    assert df.final_base()[0] == "x"


# --------------------------------------------------------------------------- parsing


def test_instructions_continuations_comments_and_case():
    text = (
        "# syntax=docker/dockerfile:1\n"
        "FROM python:3.10\n"
        "\n"
        "run apt-get update && \\\n"
        "    # a comment inside the continuation\n"
        "\n"
        "    apt-get install -y git\n"
        "ENV A=1 \\  \n"
        "    B=2\n"
    )
    df = parse_dockerfile(text)
    assert df.instructions == [
        Instruction("FROM", "python:3.10", 2, 2),
        Instruction("RUN", "apt-get update &&     apt-get install -y git", 4, 7),
        Instruction("ENV", "A=1     B=2", 8, 9),
    ]
    assert [r.line_start for r in df.runs()] == [4]
    assert df.problems == []


def test_escape_directive_backtick():
    text = "# escape=`\nFROM mcr.microsoft.com/windows/servercore:ltsc2022\nRUN dir `\n    C:\\\\\n"
    df = parse_dockerfile(text)
    assert df.instructions[1] == Instruction("RUN", "dir     C:\\\\", 3, 4)


def test_directive_after_an_instruction_is_a_comment():
    df = parse_dockerfile("FROM x\n# escape=`\nRUN a `\nRUN b\n")
    assert [i.keyword for i in df.instructions] == ["FROM", "RUN", "RUN"]


def test_heredoc_body_is_not_parsed_as_instructions():
    text = "FROM python:3.10\nRUN <<EOF\nFROM evil:latest\npip install x\nEOF\nCMD run\n"
    df = parse_dockerfile(text)
    assert [i.keyword for i in df.instructions] == ["FROM", "RUN", "CMD"]
    assert df.instructions[1].line_end == 5
    assert "pip install x" in df.instructions[1].args
    assert len(df.stages) == 1


def test_unterminated_heredoc_is_a_problem():
    df = parse_dockerfile("FROM x\nRUN <<EOF\necho\n")
    assert any("unterminated heredoc" in p for p in df.problems)


def test_arg_defaults_resolve_in_from():
    text = (
        "ARG PY=3.10\n"
        'ARG VARIANT="slim"\n'
        "ARG BASE=python:${PY}-$VARIANT\n"
        "ARG UNSET\n"
        "FROM ${BASE}\n"
        "FROM python:${UNSET:-3.9}\n"
        "FROM --platform=$BUILDPLATFORM ubuntu:${PY:+22.04}\n"
        "ARG PY=2.7\n"  # after FROM: stage-scoped, not visible to later FROMs
        "FROM python:${PY}\n"
    )
    df = parse_dockerfile(text)
    assert df.args == {"PY": "3.10", "VARIANT": "slim", "BASE": "python:3.10-slim"}
    assert [s.image for s in df.stages] == [
        "python:3.10-slim",
        "python:3.9",
        "ubuntu:22.04",
        "python:3.10",
    ]
    assert df.stages[2].platform is None  # BUILDPLATFORM is provided by the builder
    assert df.problems == []


def test_arg_without_default_in_from_is_a_problem():
    df = parse_dockerfile("ARG TAG\nFROM python:${TAG}\nRUN x\n")
    assert df.stages[0].image == "python:"
    assert df.problems == ["line 2: ARG TAG has no default"]
    assert score_dockerfile(df)[0] == 80


def test_platform_flag():
    df = parse_dockerfile("FROM --platform=linux/amd64 python:3.10 AS app\n")
    assert df.stages == [Stage("python:3.10", "app", 1, "linux/amd64")]


def test_bad_lines_are_problems():
    df = parse_dockerfile("FROM\nBOGUS thing\n123 nope\nRUN ok\n")
    assert df.stages == []
    assert df.problems == [
        "line 1: FROM without an image",
        "line 2: unknown instruction 'BOGUS'",
        "line 3: not an instruction: '123 nope'",
    ]
    assert score_dockerfile(df)[:2] == (20, "malformed")


@pytest.mark.parametrize(
    "text",
    ["", "\x00\x01\xff\xfe", "\\\n\\\n\\", "FROM " + "$" * 1000, "RUN <<", "ARG 'unterminated\nFROM x\n", "\ufeffFROM x\n"],
)
def test_never_raises(text):
    assert isinstance(parse_dockerfile(text), Dockerfile)


def test_problem_list_is_capped():
    df = parse_dockerfile("BOGUS x\n" * 200)
    assert len(df.problems) == 51


@settings(max_examples=200, deadline=None)
@given(st.text())
def test_parse_dockerfile_never_raises(text):
    df = parse_dockerfile(text)
    assert score_dockerfile(df)[0] in (20, 50, 80, 100)


# --------------------------------------------------------------------------- image references


@pytest.mark.parametrize(
    ("ref", "expected"),
    [
        ("python", ("python", None, None)),
        ("python:3.10", ("python", "3.10", None)),
        ("library/python:3.10-slim", ("library/python", "3.10-slim", None)),
        ("registry:5000/org/name", ("registry:5000/org/name", None, None)),
        ("registry:5000/org/name:1.2", ("registry:5000/org/name", "1.2", None)),
        (f"registry:5000/org/name:1.2@{DIGEST}", ("registry:5000/org/name", "1.2", DIGEST)),
        (f"ubuntu@{DIGEST}", ("ubuntu", None, DIGEST)),
        ("python:", ("python", None, None)),
    ],
)
def test_split_image(ref, expected):
    assert split_image(ref) == expected


@pytest.mark.parametrize(
    ("ref", "pinned"),
    [
        ("python:3.10", True),
        ("python:3.11.4-slim", True),
        ("rocker/r-ver:4.2.1", True),
        (f"ubuntu@{DIGEST}", True),
        (f"ubuntu:latest@{DIGEST}", True),
        ("jupyter/scipy-notebook:2023-10-20", True),
        ("nightly:20231020", True),
        ("continuumio/miniconda3:23.5.2-0", True),
        ("registry:5000/img:1.2", True),
        ("python:3", False),
        ("python", False),
        ("ubuntu:latest", False),
        ("ubuntu:jammy", False),
        ("registry:5000/img", False),
        ("img:12345678", False),
        ("python:${TAG}", False),
        ("ubuntu@sha256:short", False),
    ],
)
def test_is_pinned_image(ref, pinned):
    assert is_pinned_image(ref) is pinned


@pytest.mark.parametrize(
    ("ref", "versioned"),
    [
        ("python:3.10", True),
        ("python:3.10-slim", True),
        ("rocker/r-ver:4.2.1", True),
        ("python:3", False),
        ("python", False),
        (f"python@{DIGEST}", False),
        ("jupyter/scipy-notebook:2023-10-20", False),
        ("jupyter/scipy-notebook:python-3.10", True),
    ],
)
def test_versioned_tag(ref, versioned):
    assert versioned_tag(ref) is versioned


# --------------------------------------------------------------------------- Singularity

SINGULARITY = """\
# Apptainer definition
BootStrap: docker
From: ubuntu:22.04

%labels
    Author me

%post
    apt-get update
    From: not-a-header
"""


def test_parse_singularity():
    definition = parse_singularity(SINGULARITY)
    assert definition == SingularityDef("docker", "ubuntu:22.04", 3, True, 8)
    assert score_singularity(definition)[:2] == (100, "pinned_base_with_run")


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Bootstrap: docker\nFrom: ubuntu\n%post\n  x\n", 80),
        ("Bootstrap: docker\nFrom: ubuntu:22.04\n%runscript\n  x\n", 80),
        ("Bootstrap: scratch\n%post\n  x\n", 80),
    ],
)
def test_score_singularity_other_container(text, expected):
    definition = parse_singularity(text)
    assert definition is not None
    assert score_singularity(definition)[:2] == (expected, "other_container")


@pytest.mark.parametrize(
    "text",
    [
        "",
        "LIBRARY mylib\nEXPORTS\n  f @1\n",
        "%post\nBootstrap: docker\n",  # a header after a section is not a header
        "\x00\xff\xfe",
    ],
)
def test_parse_singularity_requires_bootstrap_header(text):
    assert parse_singularity(text) is None


def test_stage_records_the_arg_lines_its_image_takes():
    df = parse_dockerfile(
        "ARG REGISTRY=docker.io\n"          # 1
        "# the base\n"                      # 2
        "ARG BASE=python:3.12.3-slim\n"     # 3
        "FROM ${REGISTRY}/library/${BASE} AS build\n"  # 4
        "FROM debian:12.5\n"                # 5
    )
    assert [(s.image, s.line, s.arg_lines) for s in df.stages] == [
        ("docker.io/library/python:3.12.3-slim", 4, (1, 3)),
        ("debian:12.5", 5, ()),
    ]


def test_container_paths_are_the_workdirs_and_copy_destinations_the_build_makes():
    df = parse_dockerfile(
        "ARG APP=/opt/app\n"
        "FROM python:3.11 AS build\n"
        "WORKDIR /work/app\n"
        "COPY requirements.txt .\n"                 # the WORKDIR itself
        "COPY --chown=me:me src/ ./src/\n"
        'ADD ["data.tar", "/data/raw/"]\n'
        "WORKDIR sub\n"                             # relative to the WORKDIR before it
        "COPY <<EOF /etc/app.conf\nkey = 1\nEOF\n"
        "FROM rocker/r-ver:4.3\n"
        "COPY . $APP\n"                             # an ARG default
        "WORKDIR $HOME/x\n"                         # a variable nothing sets: unknown
        "COPY . /\n"                                # the root is no place of its own
        "COPY only-one-word\n"
    )
    assert df.container_paths() == ("/work/app", "/work/app/src", "/data/raw", "/work/app/sub", "/etc/app.conf",
                                    "/opt/app")
