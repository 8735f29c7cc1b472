#!/bin/sh
# make check-report: render an HTML report in headless Chromium (Debian's
# chromium package, installed when missing) at 1280 px and check that it
# loads without errors, shows all six plots, hides nothing past the right
# edge (a copy of the page with a measuring script: no pre, table or
# paragraph scrolls or ends outside the window) and fetches nothing; leaves
# a screenshot of the whole page, 1280 px wide.
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
# a run with PFC pauses and per-transfer rates, so that every plot has data,
# and per-port figures, so that the busiest links are named
"$bin" run --quiet --set cluster.nodes=32 --set fabric.hosts_per_leaf=8 \
    --set storage.nodes=2 --set workload.bytes_per_writer=2MB --set fabric.buffer=8MB \
    --set telemetry.flows=true --set telemetry.ports=true --report "$out/report.html"
# the measuring copy: the script writes what it found into the DOM it dumps
sed 's#</body></html>#<script>var W=document.documentElement.clientWidth,bad=[];\
document.querySelectorAll("pre,table,p,h1,h2").forEach(function(e){\
var r=e.getBoundingClientRect();if(!r.width)return;\
if(e.scrollWidth>e.clientWidth+1)bad.push(e.tagName+"."+e.className+" scrolls "+e.scrollWidth+" px in "+e.clientWidth);\
if(r.right>W+1)bad.push(e.tagName+"."+e.className+" ends at "+Math.round(r.right)+" px of "+W);});\
document.body.setAttribute("data-clipped",bad.join("; ")||"none");</script></body></html>#' \
    "$out/report.html" >"$out/measure.html"
# an isolated browser: no network, no first-run, no sandbox (CI runs as root)
flags="--headless --no-sandbox --disable-gpu --disable-background-networking
    --disable-component-update --disable-sync --no-first-run --hide-scrollbars
    --enable-logging=stderr --v=0 --user-data-dir=$out/profile"
url="file://$(cd "$out" && pwd)/report.html"
# shellcheck disable=SC2086
timeout 120 "$browser" $flags --window-size=1280,1200 --dump-dom "$url" >"$out/dom.html" \
    2>"$out/console.log"
# shellcheck disable=SC2086
timeout 120 "$browser" $flags --window-size=1280,1200 --dump-dom \
    "file://$(cd "$out" && pwd)/measure.html" >"$out/measure-dom.html" 2>"$out/measure.log"
# shellcheck disable=SC2086
timeout 120 "$browser" $flags --window-size=1280,6600 --screenshot="$out/report.png" "$url" \
    >/dev/null 2>>"$out/console.log"
fail=0
svgs=$(grep -o '<svg' "$out/dom.html" | wc -l)
if [ "$svgs" -ne 6 ]; then echo "FAIL check-report: $svgs plots in the DOM, want 6"; fail=1; fi
clipped=$(sed -n 's/.*data-clipped="\([^"]*\)".*/\1/p' "$out/measure-dom.html")
if [ "$clipped" != none ]; then
    echo "FAIL check-report: at 1280 px, hidden past the right edge: ${clipped:-(not measured)}"
    fail=1
fi
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
echo "check-report: ok, $svgs plots rendered, nothing clipped at 1280 px, no load errors;" \
    "screenshot $out/report.png"
