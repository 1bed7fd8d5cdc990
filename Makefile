# reproscore — developer entry points. Every target sets up what it needs.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed
BENCH_TREES ?= ../corpus

.PHONY: install system-packages test bench demo lint calibrate clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[dev]'
	touch $(STAMP)

install: $(STAMP) ## A .venv with the project and its test dependencies

system-packages: ## The Debian packages the tests need (bubblewrap, chromium, fonts): installed when missing and permitted, else one line naming them
	sh tests/system-packages.sh

test: $(STAMP) system-packages ## The whole test suite (installs its system packages first)
	$(BIN)/python -m pytest

bench: $(STAMP) ## Benchmarks: scorer cost vs reading every file once; rescoring 100,000 stored snapshots; harvest rate and memory; the audit report of 100,000 scored deposits; trees per second on 1 and 2 local workers and a 2-worker Dask LocalCluster, Dask's cost per task; on the real repositories of tests/benchmarks/real_repositories.txt checked out under BENCH_TREES=DIR (default ../corpus): reproscore against the read-and-parse floor, re-measuring a changed version, MB/s of each language frontend
	@# every benchmark runs and prints its figures even when an earlier one misses its target;
	@# the misses are listed at the end and make the target fail
	@log=$$(mktemp); status=0; \
	for bench in bench_scorer.py bench_rescore.py bench_harvest.py bench_report.py bench_scale.py \
	             "bench_facts.py --trees $(BENCH_TREES)"; do \
	  echo "== $$bench"; \
	  { $(BIN)/python tests/benchmarks/$$bench 2>&1 || echo "exit status $$? (below target or failed)" >$$log.rc; } | tee -a $$log; \
	  [ ! -e $$log.rc ] || { status=1; cat $$log.rc >>$$log; rm -f $$log.rc; }; \
	done; \
	missed=$$(grep -E 'FAIL|BELOW TARGET|exit status' $$log); rm -f $$log; \
	if [ -n "$$missed" ] || [ $$status -ne 0 ]; then \
	  echo; echo "make bench: targets missed:"; echo "$$missed"; exit 1; \
	fi; echo; echo "make bench: every target met"

demo: $(STAMP) ## The nightly run against a replayed Zenodo (local server), then the samples scored directly; offline
	$(BIN)/python -m reproscore.demo

calibrate: $(STAMP) ## Score real repositories checked out under CALIBRATION_TREES=DIR (DIR/<kind>/<repo>/) against the curator's expectations in tests/calibration/
	@test -n "$(CALIBRATION_TREES)" || { echo "make calibrate needs CALIBRATION_TREES=DIR holding <kind>/<repo>/ checkouts (tests/calibration/README.md)"; exit 2; }
	$(BIN)/python tests/calibration/run.py $(CALIBRATION_TREES)

lint: $(STAMP) ## Static checks
	$(BIN)/ruff check .

clean:
	rm -rf $(VENV) demo-out bench-out .pytest_cache
