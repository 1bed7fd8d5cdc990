#!/bin/sh
# The Debian packages the test suite needs beyond Python: `make test` runs this first.
#   bubblewrap  the execution tier's sandbox (tests/test_execution.py runs deposits in it)
#   chromium    the report's browser test (tests/test_report_browser.py, via playwright)
#   fonts       fonts-dejavu-core, so chromium lays out and prints the report with real glyphs
# Installs what is missing when it may (root, or sudo without a password); otherwise it
# stops with one line naming what to install. Nothing is downloaded outside apt.
set -u

CHROMIUM="${REPROSCORE_CHROMIUM:-/usr/bin/chromium}"
FONT_DIR="${REPROSCORE_FONT_DIR:-/usr/share/fonts/truetype/dejavu}"

missing=""
command -v bwrap >/dev/null 2>&1 || missing="$missing bubblewrap"
[ -x "$CHROMIUM" ] || missing="$missing chromium"
[ -d "$FONT_DIR" ] || missing="$missing fonts-dejavu-core"
missing="${missing# }"
[ -z "$missing" ] && exit 0

if [ "$(id -u)" -eq 0 ]; then
    as_root=""
elif command -v sudo >/dev/null 2>&1 && sudo -n true >/dev/null 2>&1; then
    as_root="sudo"
else
    echo "make test needs the Debian packages: $missing (install them as root: apt-get install -y --no-install-recommends $missing)" >&2
    exit 1
fi
if ! command -v apt-get >/dev/null 2>&1; then
    echo "make test needs: $missing (no apt-get here: install them with this system's package manager)" >&2
    exit 1
fi

echo "installing the test suite's system packages: $missing" >&2
# $as_root is empty or one word: word splitting is wanted here.
# shellcheck disable=SC2086
$as_root apt-get update -qq >/dev/null || { echo "apt-get update failed: cannot install $missing" >&2; exit 1; }
# shellcheck disable=SC2086
$as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $missing >/dev/null \
    || { echo "apt-get install failed for: $missing" >&2; exit 1; }
