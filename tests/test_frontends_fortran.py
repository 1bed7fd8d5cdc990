"""Fortran frontend: exact facts from small synthetic sources."""

from __future__ import annotations

from scoring.facts import (
    AssertFact,
    CliArgFact,
    CommentFact,
    DefinitionFact,
    FileIOFact,
    ImportFact,
    RandomFact,
)
from scoring.frontends import fortran

MODULE = b"""!> Random utilities
module rng_utils
  use iso_fortran_env, only: dp => real64
  implicit none
  private
  public :: draw
  include 'consts.inc'
contains
  !> Draw uniform numbers
  subroutine draw(x)
    real, intent(out) :: x(:)
    integer :: seed(8)
    seed = 42
    call random_seed(put=seed)
    call random_number(x)
  end subroutine draw
  subroutine reset()
    call random_seed()
  end subroutine reset
  function twice(a) result(b)
    !! doubles its argument
    real :: a, b
    b = 2 * a
  end function twice
end module rng_utils
program main
  use rng_utils
  character(len=64) :: arg
  open(unit=10, file='input.nml', status='old')
  open(unit=11, file='out.dat', action='write')
  call get_command_argument(1, arg)
end program main
"""


def facts():
    return fortran.extract(MODULE, "src/rng_utils.f90")


def test_use_and_include_statements():
    assert facts().imports == (
        ImportFact("iso_fortran_env", 3, "none", "use"),
        ImportFact("consts.inc", 7, "none", "include"),
        ImportFact("rng_utils", 27, "none", "use"),
    )


def test_random_seed_with_put_is_seeded_and_without_put_is_not():
    assert facts().randoms == (
        RandomFact(14, "random_seed", "fortran.random_number", "seed", True, "argument"),
        RandomFact(15, "random_number", "fortran.random_number", "draw", False, ""),
        RandomFact(18, "random_seed", "fortran.random_number", "seed", False, "none"),
    )


def test_ford_comments_document_and_private_default_hides_unlisted_procedures():
    result = facts()
    assert result.definitions == (
        DefinitionFact("rng_utils", "module", 2, True, True),
        # a routine's last line: S1 follows a seed into the routines a file calls
        DefinitionFact("draw", "subroutine", 10, True, True, end_line=16),
        DefinitionFact("reset", "subroutine", 17, False, False, end_line=19),
        DefinitionFact("twice", "function", 20, False, True, end_line=24),
        DefinitionFact("main", "program", 26, True, False),
    )
    assert result.comments == (
        CommentFact(1, 1, "!> Random utilities", True),
        CommentFact(9, 9, "!> Draw uniform numbers", True),
        CommentFact(21, 21, "!! doubles its argument", True),
    )


def test_open_statements_and_command_arguments():
    result = facts()
    assert result.file_io == (FileIOFact(29, "read", "input.nml", "open"), FileIOFact(30, "write", "out.dat", "open"))
    assert result.cli_args == (CliArgFact(31, "get_command_argument"),)


def test_stop_statements_that_fail_the_program_are_assertions():
    # S3: a test program signals failure through its exit status
    source = (b"program t\n  integer :: n\n  if (n /= 0) stop 1\n  if (n > 2) error stop 'bad'\n  stop\n"
              b"  stop 0\n  error stop\n  stop 'done'\nend program t\n")
    assert fortran.extract(source, "test/t.f90").asserts == (AssertFact(3), AssertFact(4), AssertFact(7))
    assert fortran.extract(b"program p\n  stop\nend program p\n", "p.f90").asserts == ()


def test_fixed_form_is_read_line_for_line():
    source = (b"C     a fixed-form comment\n      PROGRAM MAIN\n      CALL RANDOM_SEED()\n"
              b"      X = 1 +\n     &    2\n      END\n")
    result = fortran.extract(source, "legacy/main.f")
    assert result.parse_error is None
    assert result.comments == (CommentFact(1, 1, "!     a fixed-form comment", False),)
    assert result.randoms == (RandomFact(3, "random_seed", "fortran.random_number", "seed", False, "none"),)
    assert result.definitions == (DefinitionFact("main", "program", 2, True, False),)


def test_parse_error_is_a_fact_and_the_rest_is_still_read():
    result = fortran.extract(b"program p\n  use m\n  x = = 1\nend program p\n", "broken.f90")
    assert result.parse_error == "syntax error at line 3"
    assert result.imports == (ImportFact("m", 2, "none", "use"),)


TYPE_BOUND = b"""module json_m
  implicit none
  private
  type, public :: core
    private
    integer :: n = 0
  contains
    private
    generic, public :: add => add_int, MAYBEWRAP(add_real)
    procedure :: add_int
    procedure :: MAYBEWRAP(add_real)
    procedure, public :: load => core_load
    procedure, public :: &
        size => core_size
    procedure(loader), deferred, public :: reload
    procedure :: hidden
  end type core
  type :: helper
  contains
    procedure :: run => helper_run
  end type helper
contains
!> Add an integer.

  subroutine add_int(me)
    class(core), intent(inout) :: me
  end subroutine add_int
  subroutine add_real(me)
    class(core), intent(inout) :: me
  end subroutine add_real
!> author: A. Writer
!  date: 2024
!
!  Load a document.

  subroutine core_load(me)
    class(core), intent(inout) :: me
  end subroutine core_load
  ! the number of members

  integer function core_size(me)
    class(core), intent(in) :: me
    core_size = me%n
  end function core_size
  subroutine hidden(me)
    class(core), intent(inout) :: me
  end subroutine hidden
  subroutine helper_run(me)
    class(helper), intent(inout) :: me
  end subroutine helper_run
end module json_m
"""


def test_procedures_bound_to_a_public_type_are_public_and_ford_blocks_reach_across_blank_lines():
    result = fortran.extract(TYPE_BOUND, "src/json_m.F90")
    assert [(d.name, d.line, d.public, d.documented) for d in result.definitions if d.kind != "module"] == [
        ("add_int", 25, True, True),        # a specific of the public generic add, FORD block over a blank line
        ("add_real", 28, True, False),      # named through a macro, MAYBEWRAP(add_real)
        ("core_load", 36, True, True),      # !> block continued by plain ! lines, then a blank line
        ("core_size", 41, True, False),     # a plain comment over a blank line documents nothing
        ("hidden", 45, False, False),       # bound privately (the contains section is private)
        ("helper_run", 48, False, False),   # bound to a private type
    ]
    assert result.frontend_version.startswith("1.1.1+")
