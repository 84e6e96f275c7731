# irgrad: `make demo` and `make test` each set everything up (idempotently) and run.
PY := .venv/bin/python
EXTRAS ?= dev,all

.PHONY: setup demo test lint bench clean

setup:
	@bash scripts/setup.sh $(EXTRAS)

demo: setup
	@$(PY) examples/demo.py

lint: setup
	@.venv/bin/ruff check src tests bench examples
	@.venv/bin/lint-imports

test: setup lint
	@$(PY) -m pytest -q -n 2 --dist loadgroup

bench: setup
	@$(PY) bench/parse.py

clean:
	rm -rf .venv build dist src/*.egg-info .pytest_cache .ruff_cache .hypothesis
