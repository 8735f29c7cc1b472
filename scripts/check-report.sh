#!/bin/sh
# make check-report: render an HTML report in headless Chromium (Debian's
# chromium package, installed when missing) and check that it loads without
# errors, shows all five plots, and fetches nothing; leaves a screenshot.
# Usage: scripts/check-report.sh [path/to/ckptnet] [output dir]
set -e
bin=${1:-./build/ckptnet}
out=${2:-build/report-check}
browser=$(command -v chromium || true)
if [ -z "$browser" ]; then
    echo "check-report: installing chromium" >&2
    if [ "$(id -u)" -eq 0 ]; then sudo=""; else sudo="sudo"; fi
    $sudo apt-get update -qq || true
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq chromium >/dev/null
    browser=$(command -v chromium)
fi
mkdir -p "$out"
rm -rf "$out/profile"
# a run with PFC pauses, so that every plot has data
"$bin" run --quiet --set cluster.nodes=32 --set fabric.hosts_per_leaf=8 \
    --set storage.nodes=2 --set workload.bytes_per_writer=2MB --set fabric.buffer=8MB \
    --report "$out/report.html"
# an isolated browser: no network, no first-run, no sandbox (CI runs as root)
flags="--headless --no-sandbox --disable-gpu --disable-background-networking
    --disable-component-update --disable-sync --no-first-run --hide-scrollbars
    --enable-logging=stderr --v=0 --user-data-dir=$out/profile"
url="file://$(cd "$out" && pwd)/report.html"
# shellcheck disable=SC2086
timeout 120 "$browser" $flags --dump-dom "$url" >"$out/dom.html" 2>"$out/console.log"
# shellcheck disable=SC2086
timeout 120 "$browser" $flags --window-size=1100,5200 --screenshot="$out/report.png" "$url" \
    >/dev/null 2>>"$out/console.log"
fail=0
svgs=$(grep -o '<svg' "$out/dom.html" | wc -l)
if [ "$svgs" -ne 5 ]; then echo "FAIL check-report: $svgs plots in the DOM, want 5"; fail=1; fi
if grep -q 'No plot:' "$out/dom.html"; then echo "FAIL check-report: a plot is missing"; fail=1; fi
if grep -E 'CONSOLE|Uncaught|Failed to load|net::ERR' "$out/console.log"; then
    echo "FAIL check-report: errors while loading (see $out/console.log)"
    fail=1
fi
if grep -Eq "(src|href)=[\"']?(https?:|//)" "$out/report.html"; then
    echo "FAIL check-report: the report refers to a network resource"
    fail=1
fi
if [ ! -s "$out/report.png" ]; then echo "FAIL check-report: no screenshot"; fail=1; fi
[ "$fail" -eq 0 ] || exit 1
echo "check-report: ok, $svgs plots rendered, no load errors; screenshot $out/report.png"
