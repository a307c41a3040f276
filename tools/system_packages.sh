#!/bin/sh
# The Debian packages a make target needs, installed before anything else runs:
#   sh tools/system_packages.sh PROGRAM:PACKAGE ...     e.g. bwrap:bubblewrap chromium:chromium
# Every PROGRAM already on PATH: nothing to do. Otherwise the missing PACKAGEs are installed with apt-get (as
# root, or with sudo), and where that is impossible the target stops here with one message naming the one
# command to run.
missing=""
for pair in "$@"; do
    command -v "${pair%%:*}" >/dev/null 2>&1 || missing="$missing ${pair#*:}"
done
[ -z "$missing" ] && exit 0
if [ "$(id -u)" = 0 ]; then
    sudo=""
elif command -v sudo >/dev/null 2>&1; then
    sudo="sudo"
else
    sudo="none"
fi
if [ "$sudo" != none ] && command -v apt-get >/dev/null 2>&1; then
    echo "installing the Debian packages$missing (see README: bubblewrap isolates graded notebooks, chromium runs the browser test)"
    if $sudo apt-get update -qq && $sudo apt-get install -y -qq $missing >/dev/null; then
        ok=1
        for pair in "$@"; do
            command -v "${pair%%:*}" >/dev/null 2>&1 || ok=""
        done
        [ -n "$ok" ] && exit 0
    fi
fi
echo "missing system packages:$missing. Install them once, then run make again: sudo apt-get install -y$missing" >&2
exit 1
