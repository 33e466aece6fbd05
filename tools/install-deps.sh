#!/usr/bin/env bash
# Installs the Debian packages cudalabs needs to build and test (the CUDA Toolkit itself comes
# from NVIDIA: see README). Safe to re-run: installs only what is missing. Needs root or sudo.
set -euo pipefail
packages=(
    make g++            # the build
    doctest-dev         # host unit tests
    nlohmann-json3-dev  # the unit tests parse the JSON the labs write with a real parser
)
missing=()
for p in "${packages[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0
echo "install-deps: installing ${missing[*]}"
if [ "$(id -u)" -eq 0 ]; then SUDO=""
elif sudo -n true 2>/dev/null; then SUDO="sudo -n"
else echo "install-deps: need root to install: ${missing[*]} (run: sudo apt-get install ${missing[*]})" >&2; exit 1
fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
