# make course [ONLY=01_rnn_lstm NO_GRADE=1 TRIAL=dir]: build student notebooks (notebooks/), Gradescope zips and their lock
#   file (dist/), grade them locally, write the public release (dist/public/, course.yml's published and
#   answers_released). Only notebooks whose sources changed are rebuilt and regraded (dist/.build-hashes.json).
#   ONLY: one notebook (tools/course.py --only); NO_GRADE: skip grading; TRIAL: a trial build in dir/
# make publish PUBLIC=path/to/clone: write the public release into a git clone of the public repository (its .git
#   kept, on course.yml's branch), list every new and changed file; commits and pushes nothing
# make test [TESTS=tests/test_x.py ...] [VENV=.venv-cpu]: the whole test suite (what CI runs, .ci/run), or some of its files
# make results [ONLY=01_rnn_lstm ABLATIONS=1 CONCURRENT=1 BUDGET=540]: reference runs of the masters in full on this machine
#   -> results/ and README; CONCURRENT: all at once, each in its own process, any unfinished after BUDGET s stopped
#   (the GPU machine's run: tools/device_results.sh)
# make grade NOTEBOOK=01 SUBMISSIONS=folder [JOBS=n TIMEOUT=s MEMORY=mb OUT=csv FEEDBACK=dir FORCE=1]: grade a class (sandboxed) into
#   grades/NOTEBOOK.csv (each student's newest notebook), .summary.txt and .feedback/ (what Gradescope would show each);
#   an earlier grading is replaced only with FORCE=1; JOBS defaults to what cores and free memory allow
# TORCH=cpu (when .venv is first made): PyTorch's CPU-only build, about half the memory per grading (README)
PYTHON ?= python3
VENV ?= .venv
PY := $(VENV)/bin/python

.PHONY: course publish test grade results clean system-course system-test

# Debian packages, checked (and installed with apt-get where possible) before anything else runs: bubblewrap
# isolates every graded notebook (make course, make grade, make test); chromium runs the browser test.
system-course:
	@sh tools/system_packages.sh bwrap:bubblewrap

system-test:
	@sh tools/system_packages.sh bwrap:bubblewrap chromium:chromium

$(VENV)/.installed: requirements.txt pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(if $(filter cpu,$(TORCH)),$(PY) -m pip install torch --index-url https://download.pytorch.org/whl/cpu)
	$(PY) -m pip install -r requirements.txt
	touch $@

$(VENV)/.installed-tests: $(VENV)/.installed requirements-tests.txt
	$(PY) -m pip install -r requirements-tests.txt
	touch $@

course: system-course $(VENV)/.installed
	$(PY) tools/course.py $(if $(ONLY),--only $(ONLY)) $(if $(NO_GRADE),--no-grade) $(if $(TRIAL),--out $(TRIAL))

publish: $(VENV)/.installed
	$(if $(PUBLIC),,$(error make publish needs PUBLIC=path/to/a/git/clone/of/the/public/repository))$(PY) tools/course.py --publish $(PUBLIC)

grade: system-course $(VENV)/.installed
	$(PY) -m grader $(NOTEBOOK) $(SUBMISSIONS) $(if $(JOBS),--jobs $(JOBS)) $(if $(TIMEOUT),--timeout $(TIMEOUT)) $(if $(MEMORY),--memory-mb $(MEMORY)) \
		$(if $(OUT),--out $(OUT)) $(if $(FEEDBACK),--feedback $(FEEDBACK)) $(if $(FORCE),--force)

results: $(VENV)/.installed
	$(PY) tools/results.py $(if $(ONLY),--only $(ONLY)) $(if $(ABLATIONS),--ablations) $(if $(CONCURRENT),--concurrent) $(if $(BUDGET),--budget $(BUDGET))

test: system-test $(VENV)/.installed-tests
	$(VENV)/bin/ruff check .
	MPLBACKEND=Agg $(PY) -m pytest -q -n 2 --dist loadfile $(TESTS)

clean:
	rm -rf dist build .pytest_cache
