"""S2 notebook_exec_order: Jupyter notebooks were executed top to bottom."""

from __future__ import annotations

from scoring.detectors.signals._common import MAX_EVIDENCE, _join_names
from scoring.model import Evidence
from scoring.registry import Result, detector
from scoring.tree import TreeIndex


@detector("notebook_exec_order", version="2.1.0")
def notebook_exec_order(tree: TreeIndex) -> Result:
    """Jupyter notebooks were executed top to bottom (execution counts strictly increase).

    What it checks:
        Every .ipynb file (nbformat 3 worksheets and nbformat 4) outside excluded folders
        such as .ipynb_checkpoints, whatever its size up to 64 MiB: a notebook is capped on
        the code of its cells, not on its stored outputs (METRICS.md §0.2.5; 2.1.0). The execution counts of its code cells, in cell order
        and skipping cells never run, must strictly increase (gaps allowed, repeats not).
        A notebook with fewer than two counts, never executed included, is ordered.
        Value = 100 · ordered / parsed notebooks. Notebooks that are not valid JSON
        notebooks are counted as unparseable and left out of the denominator; with no
        parsed notebook the metric is not applicable and scores 100.
    Why it matters:
        Cells run out of order leave results that a top-to-bottom rerun may not
        reproduce: the stored outputs depend on a hidden kernel state.
    Evidence:
        For each out-of-order notebook, its first out-of-order cell (cell index, its
        count and the previous one); each unparseable notebook. Counts: parsed, ordered,
        out of order, unexecuted, unparseable and unreadable notebooks.
    How to fix:
        Restart the kernel and run all cells in order (Kernel → Restart & Run All), then
        save the notebook; or clear all outputs before committing.
    Known false positives:
        A notebook deliberately re-executed in part (for example a cell re-run to show a
        changing value) is out of order although its final state may be reproducible;
        notebooks executed by papermill or nbconvert in order always pass, whatever their
        content.
    """
    parsed = ordered = unexecuted = unparseable = unreadable = 0
    evidence: list[Evidence] = []
    out_of_order: list[str] = []
    for path in tree.by_type("notebook"):
        facts = tree.facts(path)
        if facts is None:
            unreadable += 1
            continue
        if facts.parse_error is not None and facts.parse_error.startswith("NotebookError"):
            unparseable += 1
            evidence.append(Evidence(path, "not a valid notebook; left out of the ratio", rule="notebook_exec_order.unparseable"))
            continue
        parsed += 1
        executed = [cell for cell in facts.cells if cell.kind == "code" and cell.execution_count is not None]
        if not executed:
            unexecuted += 1
        previous = None
        bad = None
        for cell in executed:
            if previous is not None and cell.execution_count <= previous.execution_count:
                bad = (previous, cell)
                break
            previous = cell
        if bad is None:
            ordered += 1
            continue
        before, cell = bad
        out_of_order.append(path)
        evidence.append(
            Evidence(
                path,
                f"cell {cell.index} ran as [{cell.execution_count}] after cell {before.index} ran as [{before.execution_count}]",
                rule="notebook_exec_order.out_of_order",
                line_start=1,
                line_end=max(cell.line_count, 1),
                snippet=tree.snippet(path, 1, cell.index) or "",
                cell=cell.index,
            )
        )
    counts = {
        "notebooks_parsed": parsed,
        "ordered": ordered,
        "out_of_order": parsed - ordered,
        "unexecuted": unexecuted,
        "unparseable": unparseable,
        "unreadable": unreadable,
    }
    if parsed == 0:
        reason = "no parseable Jupyter notebook" + (f" ({unparseable} unparseable)" if unparseable else "")
        return Result(100, applicable=False, evidence=evidence[:MAX_EVIDENCE], counts=counts, reason=reason)
    fix = None
    if out_of_order:
        fix = (
            f"Restart the kernel and run all cells in order (Restart & Run All), then save "
            f"{_join_names(out_of_order)}."
        )
    return Result(
        100 * ordered / parsed,
        evidence=evidence[:MAX_EVIDENCE],
        fix=fix,
        counts=counts,
        reason=f"{ordered} of {parsed} notebooks have strictly increasing execution counts",
    )
