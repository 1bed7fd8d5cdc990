"""The demo database (``make demo`` writes it to demo-out/demo.db): the nightly run
against the replayed Zenodo and Software Heritage, then the two recorded outcomes
imported. Built here into a test's folder, offline, in a few seconds."""

from __future__ import annotations

import contextlib
import io
from pathlib import Path

from reproscore import demo


def build(out_dir: Path) -> Path:
    """Write ``out_dir/demo.db`` as ``make demo`` does (without the exports and report)
    and return its path."""
    out_dir.mkdir(parents=True, exist_ok=True)
    with contextlib.redirect_stdout(io.StringIO()):
        status = demo.run_nightly_demo(out_dir)
        demo.import_demo_outcomes(out_dir)
    assert status == 0, "the demo run failed"
    return out_dir / "demo.db"
