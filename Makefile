# make course : build student notebooks (notebooks/) and Gradescope zips (dist/), then grade them locally
# make test   : the whole test suite (what CI runs)
# make results [ONLY=01_rnn_lstm ABLATIONS=1]: reference runs of the masters in full on this machine -> results/ and README
# make grade NOTEBOOK=01_rnn_lstm SUBMISSIONS=folder [JOBS=n TIMEOUT=s]: grade a class (sandboxed) into grades/NOTEBOOK.csv
PYTHON ?= python3
VENV ?= .venv
PY := $(VENV)/bin/python

.PHONY: course test grade results clean

# transformers: for the tests only (they run notebook 07's optional section offline on a tiny BERT)
$(VENV)/.installed: requirements.txt pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -r requirements.txt pytest pytest-xdist playwright transformers
	touch $@

course: $(VENV)/.installed
	$(PY) tools/course.py

grade: $(VENV)/.installed
	$(PY) tools/grade.py $(NOTEBOOK) $(SUBMISSIONS) $(if $(JOBS),--jobs $(JOBS)) $(if $(TIMEOUT),--timeout $(TIMEOUT))

results: $(VENV)/.installed
	$(PY) tools/results.py $(if $(ONLY),--only $(ONLY)) $(if $(ABLATIONS),--ablations)

test: $(VENV)/.installed
	MPLBACKEND=Agg $(PY) -m pytest -q -n 2 --dist loadfile

clean:
	rm -rf dist build .pytest_cache
