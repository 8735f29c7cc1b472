#!/bin/sh
# Install the Debian packages ckptnet needs, only when one is missing.
set -e
# gnuplot-nox renders the plots of --report (SVG, no X11); clang builds the
# overflow-sanitizer tests (make test-overflow); OpenMPI builds build/ckptnet-mpi
# and runs the `mpirun ckptnet-mpi sweep` tests (the plain build needs no MPI);
# tshark dissects the --pcap captures in the CLI tests; yajl (libyajl-dev)
# streams topology files (fabric.topology_file) without building a tree; jq
# reads the JSON results in tests/cli.sh and bench/hybrid.sh
pkgs="libyaml-dev libjansson-dev libyajl-dev pkg-config gnuplot-nox clang openmpi-bin libopenmpi-dev tshark jq"
missing=""
for p in $pkgs; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" ||
        missing="$missing $p"
done
[ -z "$missing" ] && exit 0
echo "deps: installing$missing" >&2
if [ "$(id -u)" -eq 0 ]; then sudo=""; else sudo="sudo"; fi
$sudo apt-get update -qq || true
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq $missing
