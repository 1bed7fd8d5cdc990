"""Harvest benchmark (``make bench``): records harvested and parsed per second from a
local OAI-PMH server with pacing off, and peak memory over a 20,000-record harvest.

A replay server (``tests/replay_server.py``, in its own process so that it does not
share the harvester's CPU or memory) serves ``--records`` oai_datacite records, 50 per
page with resumption tokens, in windows of ``--per-window`` records (a busy day at
Zenodo is a few thousand software records). Two measurements, each in a fresh process:

1. the harvester alone (``ZenodoHarvester.harvest_window``: HTTP, strict XML parse,
   DataCite parsing into DepositRecords) window after window, as ``reproscore harvest``
   does; target at least 1,000 records per second;
2. the whole ``reproscore harvest zenodo`` path, records stored in SQLite too.

Memory: the resident set size after each window and the peak (``ru_maxrss``); target
flat (it must not grow with the number of windows) and under 200 MB.

    python tests/benchmarks/bench_harvest.py [--records N] [--per-window N]
"""

from __future__ import annotations

import argparse
import json
import os
import re
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))

TARGET_PER_SECOND = 1_000
TARGET_PEAK_MB = 200
PAGE_SIZE = 50
BASE = datetime(2026, 8, 1, tzinfo=UTC)
PAGE_FILE = ROOT / "tests" / "fixtures" / "demo_zenodo" / "oai" / "window1_page1.xml"


def _template() -> tuple[str, str, str]:
    """(page head, one record with placeholders, page tail) from a demo OAI page."""
    text = PAGE_FILE.read_text(encoding="utf-8")
    head = text[: text.index("    <record>")]
    first = text[text.index("    <record>") : text.index("</record>") + len("</record>\n")]
    record = first.replace("9100001", "{id}").replace("2026-08-20T03:12:45Z", "{datestamp}")
    return head, record, "  </ListRecords>\n</OAI-PMH>\n"


def serve(records: int, per_window: int) -> int:
    """Serve the synthetic OAI-PMH until stdin closes; prints the URL first."""
    from replay_server import ReplayServer, Reply

    head, record, tail = _template()
    pages_per_window = -(-per_window // PAGE_SIZE)
    windows = -(-records // per_window)

    def page(window: int, number: int) -> bytes:
        first = window * per_window + number * PAGE_SIZE
        last = min(first + PAGE_SIZE, (window + 1) * per_window, records)
        stamp = (BASE + timedelta(hours=window, seconds=1)).strftime("%Y-%m-%dT%H:%M:%SZ")
        body = [head]
        body.extend(record.format(id=10_000_000 + i, datestamp=stamp) for i in range(first, last))
        if number + 1 < pages_per_window and last < records:
            expires = (datetime.now(UTC) + timedelta(minutes=2)).strftime("%Y-%m-%dT%H:%M:%SZ")
            body.append(
                f'    <resumptionToken expirationDate="{expires}" cursor="{number * PAGE_SIZE}"'
                f' completeListSize="{last - window * per_window}">w{window}-p{number + 1}</resumptionToken>\n'
            )
        elif number > 0:
            body.append(f'    <resumptionToken cursor="{number * PAGE_SIZE}" completeListSize="{per_window}"/>\n')
        body.append(tail)
        # responseDate "now", so the token's 120 s are counted from this answer.
        now = datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
        return re.sub(r"<responseDate>[^<]*", f"<responseDate>{now}", "".join(body), count=1).encode()

    def answer(request: dict) -> bytes:
        query = request["query"]
        token = query.get("resumptionToken")
        if token:
            window, number = (int(part[1:]) for part in token.split("-"))
            return page(window, number)
        start = datetime.fromisoformat(query["from"].replace("Z", "+00:00"))
        window = int((start - BASE).total_seconds() // 3600)
        return page(window, 0)

    with ReplayServer() as server:
        server.add("GET", "/oai2d", Reply(200, answer, {"Content-Type": "text/xml"}))
        print(server.url, flush=True)
        sys.stdin.read()
    assert windows > 0
    return 0


def _rss_mb() -> float:
    with open("/proc/self/statm") as handle:
        return int(handle.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 1e6


def child(url: str, mode: str, records: int, per_window: int, db: str) -> int:
    """One measurement in this fresh process; prints a JSON line."""
    windows = -(-records // per_window)
    start = BASE
    until = BASE + timedelta(hours=windows)
    rss = []
    if mode == "harvester":
        from harvester.http import HttpClient, user_agent
        from harvester.zenodo import ZenodoHarvester

        client = HttpClient(user_agent=user_agent("bench@example.org"), per_minute=None)
        harvester = ZenodoHarvester(client, oai_url=f"{url}/oai2d", api_url=f"{url}/api")
        seen = 0
        started = time.perf_counter()
        for k in range(windows):
            got, _pages = harvester.harvest_window(start + timedelta(hours=k), start + timedelta(hours=k + 1))
            seen += len(got)
            del got
            rss.append(_rss_mb())
        seconds = time.perf_counter() - started
    else:
        from reproscore import api
        from reproscore.config import Config
        from reproscore.pipeline import Progress

        config = Config().with_overrides("http", pacing=False).with_overrides("zenodo", window_hours=1)

        class Sampling(Progress):
            def log(self, message: str) -> None:  # one line per window: sample RSS there
                if message.startswith("window "):
                    rss.append(_rss_mb())

        started = time.perf_counter()
        summary = api.harvest_zenodo(
            db, config=config, start=start.isoformat(), until=until.isoformat(),
            oai_url=f"{url}/oai2d", progress=Sampling(quiet=False),
        )
        seconds = time.perf_counter() - started
        seen = summary.records_seen
    print(json.dumps({
        "records": seen, "seconds": seconds, "rss_mb": rss,
        "peak_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024 * 1.048576,
    }))
    return 0


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--records", type=int, default=20_000)
    parser.add_argument("--per-window", type=int, default=1_000)
    parser.add_argument("--serve", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--child", metavar="URL", help=argparse.SUPPRESS)
    parser.add_argument("--mode", default="harvester", help=argparse.SUPPRESS)
    parser.add_argument("--db", default="", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.serve:
        return serve(args.records, args.per_window)
    if args.child:
        return child(args.child, args.mode, args.records, args.per_window, args.db)

    workdir = Path(tempfile.mkdtemp(prefix="reproscore-bench-harvest-"))
    server = subprocess.Popen(
        [sys.executable, __file__, "--serve", "--records", str(args.records), "--per-window", str(args.per_window)],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
    )
    try:
        url = server.stdout.readline().strip()
        print(f"harvest benchmark: {args.records:,} oai_datacite records, {PAGE_SIZE} per page,"
              f" {args.per_window:,} per window, from a local server (pacing off)")
        results = {}
        for mode in ("harvester", "store"):
            proc = subprocess.run(
                [sys.executable, __file__, "--child", url, "--mode", mode, "--records", str(args.records),
                 "--per-window", str(args.per_window), "--db", str(workdir / "bench.db")],
                capture_output=True, text=True, check=True,
            )
            results[mode] = data = json.loads(proc.stdout.strip().splitlines()[-1])
            rss = data["rss_mb"]
            label = "harvested and parsed" if mode == "harvester" else "harvested, parsed and stored"
            print(f"  {label}: {data['records']:,} records in {data['seconds']:.2f} s"
                  f" = {data['records'] / data['seconds']:,.0f} records/s")
            print(f"    RSS after window 1 / {len(rss) // 2} / {len(rss)}: {rss[0]:.0f} / {rss[len(rss) // 2 - 1]:.0f}"
                  f" / {rss[-1]:.0f} MB; peak {data['peak_mb']:.0f} MB")
        harvester = results["harvester"]
        rate = harvester["records"] / harvester["seconds"]
        peak = max(r["peak_mb"] for r in results.values())
        growth = max(r["rss_mb"][-1] - r["rss_mb"][0] for r in results.values())
        print(f"  records per second (harvest + parse): {rate:,.0f} (target >= {TARGET_PER_SECOND:,});"
              f" peak memory {peak:.0f} MB (target < {TARGET_PEAK_MB}); growth from the first to the"
              f" last window {growth:+.0f} MB (target: flat)")
        ok = (rate >= TARGET_PER_SECOND and peak < TARGET_PEAK_MB and growth < 20
              and all(r["records"] == args.records for r in results.values()))
        print("  PASS" if ok else "  BELOW TARGET")
        return 0 if ok else 1
    finally:
        server.stdin.close()
        server.wait(timeout=10)
        shutil.rmtree(workdir, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
