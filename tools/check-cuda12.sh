#!/usr/bin/env bash
# make check-cuda12: builds every starter, every solution, the grader and its kernel-trace library
# with a CUDA 12 toolkit, for the architectures students have (ARCH=multi: sm_75, Colab's T4, up
# to sm_90), so that code written against CUDA 13 cannot quietly stop building for them.
#
# The toolkit: CUDA12_HOME when set (a real install, /usr/local/cuda-12.4 say); otherwise Debian
# 13's nvidia-cuda-toolkit 12.4 (non-free), fetched with `apt-get download` through a private
# sources list (nothing is installed, no root needed; about 1.3 GB) and unpacked with dpkg -x
# (3.3 GB, kept in CUDA12_CACHE, default $BUILD/cuda12, for the next run) into a toolkit folder of
# the usual layout. Debian splits libcu++ (cuda/std/..., which cooperative_groups includes) into
# libcu++-dev; it is fetched too.
# It builds in a copy of the tree ($BUILD/cuda12/src), apart from the usual build; nothing is
# run (no GPU needed).
#
# CUDA12_TARGETS: the make targets built (default: all grader grading-info).
# Exit: 0 everything built, 1 something did not (the compiler's messages are printed),
# 77 no CUDA 12 toolkit could be had (said in one sentence).
set -uo pipefail
export LC_ALL=C
cd "$(dirname "$0")/.." || exit 1
BUILD=${BUILD:-build}
cache=${CUDA12_CACHE:-$BUILD/cuda12}
mkdir -p "$cache" && cache=$(cd "$cache" && pwd) || { echo "check-cuda12: cannot make $cache"; exit 1; }
suite=${CUDA12_SUITE:-trixie}
arch=${ARCH:-multi}
targets=${CUDA12_TARGETS:-all grader grading-info}  # what is built (grading-info: the trace library)
# Debian's packages for nvcc, its headers and the libraries the labs and the grader link.
packages="nvidia-cuda-toolkit nvidia-cuda-dev libcudart12 libnvvm4 libcublas12 libcublaslt12 libcupti12 libcupti-dev libcu++-dev"

unavailable() { echo "check-cuda12: $*"; exit 77; }

# debian_toolkit DIR: Debian's CUDA 12 unpacked under DIR/root, and DIR/toolkit laid out as
# /usr/local/cuda is (bin, include, lib64), with an nvcc.profile that points there.
debian_toolkit() {
    local dir=$1 root=$1/root tk=$1/toolkit keyring=/usr/share/keyrings/debian-archive-keyring.gpg
    if [ ! -x "$tk/bin/nvcc" ]; then
        command -v apt-get > /dev/null && command -v dpkg > /dev/null \
            || unavailable "no CUDA12_HOME, and no apt-get and dpkg to fetch Debian's nvidia-cuda-toolkit 12 (set CUDA12_HOME to a CUDA 12 install)"
        [ -f "$keyring" ] || unavailable "no $keyring to check Debian's packages with (Debian package debian-archive-keyring), and no CUDA12_HOME"
        mkdir -p "$dir/lists/partial" "$dir/cache/archives/partial" "$dir/debs"
        echo "deb [signed-by=$keyring] http://deb.debian.org/debian $suite main contrib non-free" > "$dir/sources.list"
        local apt=(-o "Dir::Etc::sourcelist=$dir/sources.list" -o Dir::Etc::sourceparts=- -o "Dir::State::Lists=$dir/lists"
                   -o "Dir::Cache=$dir/cache")
        echo "check-cuda12: fetching Debian $suite's CUDA 12 toolkit ($packages) into $dir..."
        apt-get "${apt[@]}" -qq update > "$dir/apt.log" 2>&1 \
            || unavailable "apt-get update of Debian $suite (non-free) failed, no network? ($(tail -n1 "$dir/apt.log")); or set CUDA12_HOME"
        (cd "$dir/debs" && apt-get "${apt[@]}" -qq download $packages) >> "$dir/apt.log" 2>&1 \
            || unavailable "apt-get download failed: $(tail -n1 "$dir/apt.log") (see $dir/apt.log); or set CUDA12_HOME"
        rm -rf "$root" "$tk"
        for deb in "$dir"/debs/*.deb; do dpkg -x "$deb" "$root" || { echo "check-cuda12: dpkg -x $deb failed"; exit 1; }; done
        rm -rf "$dir/debs" "$dir/cache"  # unpacked: 1.3 GB less to keep
        local nvcc_dir=$root/usr/lib/nvidia-cuda-toolkit/bin f
        [ -x "$nvcc_dir/nvcc" ] || { echo "check-cuda12: Debian's package has no $nvcc_dir/nvcc: its layout changed"; exit 1; }
        mkdir -p "$tk/bin"
        # Debian's /usr/bin/nvcc is a wrapper that sets PATH; the real driver is copied so that
        # nvcc.profile beside it (_HERE_) is ours. cicc, crt and the gcc/g++ wrappers (which pick
        # a host compiler this CUDA supports) live beside it; ptxas, fatbinary... in /usr/bin.
        cp "$nvcc_dir/nvcc" "$tk/bin/nvcc"
        for f in "$nvcc_dir"/*; do case ${f##*/} in nvcc | nvcc.profile) ;; *) ln -s "$(realpath "$f")" "$tk/bin/" ;; esac; done
        for f in "$root"/usr/bin/*; do [ -e "$tk/bin/${f##*/}" ] || ln -s "$(realpath "$f")" "$tk/bin/"; done
        ln -s "$(realpath "$root/usr/include")" "$tk/include"
        ln -s "$(realpath "$root/usr/lib/x86_64-linux-gnu")" "$tk/lib64"
        cat > "$tk/bin/nvcc.profile" << EOF
TOP = \$(_HERE_)/..
NVVMIR_LIBRARY_DIR = $(realpath "$root/usr/lib/nvidia-cuda-toolkit/libdevice")
PATH += \$(_HERE_):
INCLUDES += "-I\$(TOP)/include" \$(_SPACE_)
LIBRARIES =+ \$(_SPACE_) "-L\$(TOP)/lib64/stubs" "-L\$(TOP)/lib64"
EOF
    fi
    home=$(realpath "$tk")
}

if [ -n "${CUDA12_HOME:-}" ]; then
    [ -x "$CUDA12_HOME/bin/nvcc" ] || unavailable "CUDA12_HOME=$CUDA12_HOME has no bin/nvcc"
    home=$(cd "$CUDA12_HOME" && pwd)
else
    debian_toolkit "$cache"
fi
version=$("$home/bin/nvcc" --version | sed -n 's/.*release \([0-9.]*\), \(V[0-9.]*\).*/\1 (\2)/p')
case $version in
    12.*) ;;
    *) unavailable "$home/bin/nvcc is CUDA ${version:-of unknown version}, not 12.x" ;;
esac
echo "check-cuda12: building with CUDA $version from $home, ARCH=$arch"

# In a copy of the tree: make links ./labNN and ./solNN in the tree it runs in, and those here
# stay the usual toolkit's programs.
src=$cache/src
log=$cache/build.log
rm -rf "$src" && mkdir -p "$src" && cp -r Makefile common labs solutions grading tools "$src/" || { echo "check-cuda12: cannot copy the tree to $src"; exit 1; }
labs=$(make -s --no-print-directory list-labs)
status=0
# -k: every program that builds is built, and every one that does not is named.
(cd "$src" && CUDA_HOME=$home PATH="$home/bin:$PATH" make -k -j"$(nproc)" --no-print-directory $targets LAB="${labs%% *}" \
    BUILD=build ARCH="$arch") > "$log" 2>&1 || status=1
warnings=$(grep -c -i 'warning' "$log")
if [ "$status" -ne 0 ]; then
    grep -E -i -B2 -A3 '(error|warning)' "$log" | head -n 60
    echo "check-cuda12: FAILED with CUDA $version: see $log"
    exit 1
fi
echo "check-cuda12: $targets: built with CUDA $version" \
    "(lab and solution programs: $(ls "$src" | grep -cE '^(lab|sol)[0-9]+$'); compiler warnings: $warnings; log: $log)"
[ "$warnings" -eq 0 ] || grep -i -A3 'warning' "$log" | head -n 30
exit 0
