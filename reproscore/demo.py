"""``make demo``: score the bundled sample repositories end to end, offline.

Writes one JSON result per sample to ``demo-out/`` and prints each score with its
category profile and top fixes. Later stages of the nightly pipeline (harvest, store,
export) join this demo as they are built.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from .api import score_tree
from .cli import render_text

ROOT = Path(__file__).resolve().parents[1]
SAMPLES = ROOT / "tests" / "fixtures" / "samples"


def run(out_dir: Path = ROOT / "demo-out") -> int:
    out_dir.mkdir(parents=True, exist_ok=True)
    samples = sorted(p for p in SAMPLES.iterdir() if p.is_dir())
    print(f"reproscore demo: scoring {len(samples)} bundled sample repositories (offline)\n")
    summary = []
    for sample in samples:
        scored = score_tree(sample, "default")
        (out_dir / f"{sample.name}.json").write_text(json.dumps(scored.result, indent=2, ensure_ascii=False) + "\n")
        print(render_text(scored, top=3).replace(str(sample), sample.name, 1))
        print()
        summary.append((sample.name, scored.result["rrs"]))
    print("summary (RRS under rubric default):")
    for name, rrs in summary:
        print(f"  {rrs:6.2f}  {name}")
    print(f"\nfull JSON results with evidence: {out_dir.relative_to(ROOT) if out_dir.is_relative_to(ROOT) else out_dir}/")
    return 0


if __name__ == "__main__":
    sys.exit(run())
