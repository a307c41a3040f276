#!/bin/sh
# The reference runs of all eight notebooks on the GPU machine in one call of the device tool's `run`
# (docs/developers.md, "Reference runs on the GPU machine"). That machine reaches no network: its python3 has
# torch, numpy, matplotlib, tokenizers, transformers, sacrebleu and pyyaml, not the rest the runs need.
#
#   sh tools/device_results.sh prepare [DATA]   here, with PyPI reachable (minutes, most of them xz): .device/
#       (git-ignored through .git/info/exclude) gets the missing packages in the versions of .venv, built for
#       Python 3.12, unpacked and packed as one xz tarball (site.tar.xz: as wheels they exceed the 64 MiB the
#       tool carries), and the Multi30k and CoLA files from DATA (default $SEQCOURSE_DATA_MIRROR, else
#       ../shared/data: a folder with multi30k/ and cola/); then prints the arguments of the one `run` call
#   sh tools/device_results.sh run [SECONDS [ARGS]]  there (what that call runs): unpacks the packages into
#       /tmp/site, runs `tools/results.py --concurrent ARGS` (e.g. --only 05_subwords 07_bert_cola) on the local
#       mirror with a budget that ends the command within SECONDS (default 600, the tool's limit per command) and
#       packs results/ and the logs into $OUT
#   sh tools/device_results.sh take FOLDER       here, afterwards: FOLDER is where the tool put the files from $OUT;
#       the runs in its results.tgz that results/ lacks move in (a GPU run becomes the headline, the CPU run is
#       kept as results/runs/NN_topic-cpu.json) and docs/results.md and README's headline cells are rewritten
set -eu
cd "$(dirname "$0")/.."
DEV=.device
# what tools/results.py and the notebooks import that the GPU machine lacks (its package list: the device tool's
# KINDS.md), with everything they need that it lacks too; not jedi and debugpy, which IPython and ipykernel
# import only where they are installed
PACKAGES="nbclient nbconvert nbformat ipykernel jupyter_client jupyter_core traitlets pyzmq tornado comm ipython
ipython_pygments_lexers matplotlib_inline nest_asyncio2 pexpect ptyprocess prompt_toolkit wcwidth stack_data executing
asttokens pure_eval platformdirs fastjsonschema jsonschema jsonschema_specifications referencing rpds_py beautifulsoup4
soupsieve bleach tinycss2 webencodings defusedxml jupyterlab_pygments mistune pandocfilters datasets dill multiprocess
fsspec spacy spacy_legacy spacy_loggers thinc blis cymem preshed murmurhash srsly catalogue wasabi confection weasel
cloudpathlib smart_open pydantic pydantic_core annotated_types typing_inspection"

# a wheel unpacked as pip installs it into a --target folder: NAME.data/purelib and platlib into the folder,
# NAME.data/data (nbconvert's templates: share/jupyter/) beside them; scripts left out
UNPACK='
import sys, zipfile
from pathlib import Path
for wheel in sorted(Path(sys.argv[1]).glob("*.whl")):
    with zipfile.ZipFile(wheel) as z:
        for info in z.infolist():
            top, _, rest = info.filename.partition("/")
            if top.endswith(".data"):
                kind, _, rest = rest.partition("/")
                if kind == "scripts" or not rest:
                    continue
                info.filename = rest
            z.extract(info, sys.argv[2])
'

PREFLIGHT='
import datasets, ipykernel, nbclient, nbconvert, pyarrow, spacy, torch
spacy.blank("de"), spacy.blank("en"), nbconvert.HTMLExporter()
print("torch", torch.__version__, "CUDA:", torch.cuda.is_available() and torch.cuda.get_device_name(0), "| datasets",
      datasets.__version__, "pyarrow", pyarrow.__version__, "spacy", spacy.__version__, "nbconvert", nbconvert.__version__)
'

case "${1:-}" in
prepare)
    data=${2:-${SEQCOURSE_DATA_MIRROR:-../shared/data}}
    exclude=$(git rev-parse --git-path info/exclude)
    grep -qx "/$DEV/" "$exclude" 2>/dev/null || echo "/$DEV/" >>"$exclude"
    rm -rf "$DEV" && mkdir -p "$DEV/wheels" "$DEV/data/multi30k" "$DEV/data/cola"
    cp "$data"/multi30k/*.gz "$DEV/data/multi30k/" && cp "$data"/cola/*.gz "$DEV/data/cola/"
    pins=$(.venv/bin/python -c "import importlib.metadata as m, sys; print(' '.join(f'{n}=={m.version(n)}' for n in sys.argv[1:]))" $PACKAGES)
    # shellcheck disable=SC2086
    .venv/bin/python -m pip download -q --no-deps --only-binary=:all: --python-version 3.12 --implementation cp \
        --platform manylinux_2_28_x86_64 --platform manylinux_2_27_x86_64 --platform manylinux_2_17_x86_64 \
        --platform manylinux2014_x86_64 --platform manylinux1_x86_64 -d "$DEV/wheels" $pins
    .venv/bin/python -c "$UNPACK" "$DEV/wheels" "$DEV/site"
    tar cf - -C "$DEV/site" . | xz -T0 -6 >"$DEV/site.tar.xz"
    rm -rf "$DEV/wheels" "$DEV/site"
    echo "$(git rev-parse --short HEAD)$(git diff --quiet HEAD -- . ':!results' || echo ' with local changes')" >"$DEV/commit"
    du -sh "$DEV/site.tar.xz" "$DEV/data" && du -sh "$DEV"
    echo "the device tool's run: command \"sh tools/device_results.sh run\", carry [\"$DEV\"], timeout_s 600"
    ;;
run)
    shift
    end=$(($(date +%s) + ${1:-600}))
    [ $# -eq 0 ] || shift
    [ -f "$DEV/site.tar.xz" ] || { echo "no $DEV/site.tar.xz: run 'sh tools/device_results.sh prepare' here first" >&2; exit 2; }
    python3 -c "import sys, tarfile; tarfile.open(sys.argv[1]).extractall('/tmp/site', filter='data')" "$DEV/site.tar.xz"
    export PYTHONPATH=/tmp/site:$PWD JUPYTER_PATH=/tmp/site/share/jupyter PYTHONUNBUFFERED=1 HF_HUB_OFFLINE=1
    export SEQCOURSE_DATA_MIRROR=$PWD/$DEV/data SEQCOURSE_DATA_DIR=/tmp/seqcourse-data SEQCOURSE_COMMIT="$(cat "$DEV/commit")"
    nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader || true
    # fails in seconds, not after the budget, where a carried package does not fit the machine's own
    python3 -c "$PREFLIGHT"
    out=${OUT:-build/device-out}
    mkdir -p "$out"
    # what is left of the command's limit, less 40 s for packing up and the tool's own margin
    rc=0
    python3 tools/results.py --concurrent --budget $((end - $(date +%s) - 40)) "$@" || rc=$?
    tar czf "$out/results.tgz" --exclude=results/html results
    tar czf "$out/html-and-logs.tgz" results/html build/results-logs || true
    exit $rc
    ;;
take)
    rm -rf build/device-results && mkdir -p build/device-results
    tar xzf "$2/results.tgz" -C build/device-results
    tar xzf "$2/html-and-logs.tgz" -C build/device-results || true  # the executed notebooks, and what they printed
    .venv/bin/python tools/results.py --take build/device-results/results
    ;;
*)
    sed -n '2,17p' "$0" >&2
    exit 2
    ;;
esac
