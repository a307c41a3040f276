# make course : build student notebooks (notebooks/) and Gradescope zips (dist/), then grade them locally
# make test   : the whole test suite (what CI runs)
PYTHON ?= python3
VENV ?= .venv
PY := $(VENV)/bin/python

.PHONY: course test clean

$(VENV)/.installed: requirements.txt pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -r requirements.txt pytest
	touch $@

course: $(VENV)/.installed
	$(PY) tools/course.py

test: $(VENV)/.installed
	MPLBACKEND=Agg $(PY) -m pytest -q

clean:
	rm -rf dist build .pytest_cache
