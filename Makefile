# Sabio: `make demo` and `make test` each install what they need into .venv from scratch.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
BASE   := $(VENV)/.base-installed
DEV    := $(VENV)/.dev-installed
PIP    := $(BIN)/python -m pip --disable-pip-version-check -q

QUESTIONS := "¿Cuánto cuesta Faro?" \
             "How much does Marea cost?" \
             "¿Cómo funcionan las automatizaciones de Marea?" \
             "How do I restore a database to a point in time?" \
             "¿Qué hago si Faro no recibe correos?" \
             "¿Quién puede cancelar la suscripción de Faro?" \
             "¿Cuánto tarda en restaurarse una base de datos de 50 GB con Ancla?"

.PHONY: demo test pytest lint bench bench-scale bench-permissions eval serve openapi configuration aws-local \
        first-contact clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(PIP) install --upgrade pip

$(BASE): pyproject.toml | $(BIN)/python
	$(PIP) install -e .
	touch $@

# torch 2.13.0 first: the CPU wheel on this machine's disk (a bare `torch` would pull a CUDA build)
$(DEV): pyproject.toml $(BASE)
	$(PIP) install torch==2.13.0
	$(PIP) install -e '.[dev,st,aws,infra,eval,tracing]'
	touch $@

# the translator first: Apertium's Spanish-English pair, installed when this runs as root on Debian/Ubuntu,
# else the command to run is printed (scripts/translator.sh never fails the demo)
demo: $(BASE)
	@scripts/translator.sh
	$(BIN)/sabio index examples --source-id examples
	@for q in $(QUESTIONS); do $(BIN)/sabio answer "$$q" || exit 1; done
	@echo
	@echo "Serve the API on this store:  $(BIN)/sabio serve    (http://127.0.0.1:8000, and its web page at /)"
	@echo "Then ask it:  curl -s localhost:8000/retrieve -H 'Content-Type: application/json' -d '{\"query\": \"¿Cuánto cuesta Faro?\"}'"

lint: $(DEV)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/mypy chalicelib sabio
	$(BIN)/lint-imports

test: lint
	$(BIN)/python -m pytest

# one test file (or any pytest arguments), with the dev tools installed first as make test does:
# make pytest T=tests/test_cli.py
pytest: $(DEV)
	$(BIN)/python -m pytest $(T)

# what a newcomer meets, before each release: a fresh clone, make demo, sabio serve, the README's curl, a
# question per language, the web page; fails on any traceback or 5xx (scripts/first_contact.py; minutes)
first-contact:
	$(PYTHON) scripts/first_contact.py

bench: $(BASE)
	$(BIN)/python bench/run.py

# the scale curve to 100,000 chunks, indexing against the embedder alone, the API package: the figures of
# docs/performance.md and `sabio plan` (about 6 minutes)
bench-scale: $(BASE)
	$(BIN)/python bench/run.py --only scale ceiling package --scale-sizes 1000 10000 100000

# what document permissions cost a retrieve: 10,000 chunks, 20 groups, users of 2-3 groups (about 1 minute)
bench-permissions: $(BASE)
	$(BIN)/python bench/permissions.py

# retrieval quality on ../shared/eval: every dataset x variant -> bench/results/eval + docs/evaluation.md
eval: $(DEV)
	$(BIN)/sabio eval --notes sabio/evaluation/levers.md --publish docs/evaluation.md

# the AWS pipeline on this machine: moto server -> S3 -> SQS -> worker -> DynamoDB + index -> questions
aws-local: $(DEV)
	$(BIN)/python -m sabio.aws_local demo

openapi: $(BASE)
	$(BIN)/python -c "from chalicelib.openapi import render; open('docs/openapi.json', 'w').write(render())"

# docs/configuration.md from the settings' descriptions (a test fails when it is stale)
configuration: $(BASE)
	$(BIN)/python -m sabio.configuration_doc

serve: $(BASE)
	$(BIN)/sabio serve

clean:
	rm -rf $(VENV) .sabio bench/results .pytest_cache .mypy_cache .ruff_cache .hypothesis
