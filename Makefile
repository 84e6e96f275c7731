# irgrad: `make demo` and `make test` each set everything up (idempotently) and run.
PY := .venv/bin/python
EXTRAS ?= dev,all

.PHONY: setup demo test lint bench fuzz clean

setup:
	@bash scripts/setup.sh $(EXTRAS)

demo: setup
	@$(PY) examples/demo.py

lint: setup
	@.venv/bin/ruff check src tests bench examples
	@.venv/bin/lint-imports

test: setup lint
	@$(PY) -m pytest -q -n 2 --dist loadgroup --durations=30 --durations-min=10

bench: setup
	@$(PY) bench/parse.py

# differential fuzzing (tests/fuzz): make fuzz N=2000 SEED=1000 [FUZZFLAGS="--levels 02
# --sanitize --reduce 5"]; outcomes in build/fuzz/results.jsonl (a rerun resumes)
N ?= 200
SEED ?= 1000
FUZZFLAGS ?=
fuzz: setup
	@$(PY) -m tests.fuzz run -n $(N) --seed $(SEED) $(FUZZFLAGS)

clean:
	rm -rf .venv build dist src/*.egg-info .pytest_cache .ruff_cache .hypothesis
