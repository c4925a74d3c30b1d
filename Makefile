# Two commands: `make run` and `make test`. Everything they need is installed from here.
PYTHON ?= python3
HOST ?= 127.0.0.1
PORT ?= 5000
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
DEV_STAMP := $(VENV)/.installed-dev

.PHONY: run test lint format bench clean

PIP := $(BIN)/python -m pip install --quiet

UV := $(BIN)/python -m uv pip install --quiet --python $(BIN)/python

# uv (pinned in constraints.txt) installs in seconds what takes pip a minute; where uv cannot be
# had or fails, pip installs alone. Compiled as pip does: each process would compile every module
# at each start where Python writes no bytecode (PYTHONDONTWRITEBYTECODE).
define install
	($(BIN)/python -m uv --version >/dev/null 2>&1 || $(PIP) -c constraints.txt uv) \
	  && $(UV) --compile-bytecode -c constraints.txt -e '$(1)' \
	  || ($(PIP) --upgrade pip && $(PIP) -c constraints.txt -e '$(1)')
endef

$(STAMP): pyproject.toml constraints.txt
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(call install,.)
	touch $@

$(DEV_STAMP): $(STAMP)
	$(call install,.[dev])
	touch $@

# Debian's chromium for the browser tests; Playwright never downloads a browser here.
/usr/bin/chromium:
	(apt-get update -qq && apt-get install -y -qq chromium) >/dev/null

# One process: serve migrates, and loads the demo data into an empty database (not with DEMO=no).
DEMO ?= yes

# The project's own modules compiled too (only those changed since): where Python writes no
# bytecode (PYTHONDONTWRITEBYTECODE) every process would compile them at each start (0.8 s).
COMPILE := $(BIN)/python -m compileall -q webapp

run: $(STAMP)
	$(COMPILE)
	$(BIN)/furrow serve $(if $(filter yes,$(DEMO)),--demo) --host $(HOST) --port $(PORT)

# The suite in parallel, a test file per process (each has its own database, Redis and queue).
PYTEST_PARALLEL ?= -n auto --maxprocesses=4 --dist loadfile

test: $(DEV_STAMP) /usr/bin/chromium
	$(COMPILE)
	$(BIN)/pytest $(PYTEST_PARALLEL)

lint: $(DEV_STAMP)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .

format: $(DEV_STAMP)
	$(BIN)/ruff format .
	$(BIN)/ruff check --fix .

bench: $(DEV_STAMP)
	for f in bench/*.py; do $(BIN)/python $$f || exit 1; done

clean:
	rm -rf $(VENV) instance .pytest_cache
