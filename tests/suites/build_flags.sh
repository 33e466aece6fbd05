# The build's flag stamps (Makefile, "flags"), sourced by tests/run_tests.sh; alone: bash
# tests/suites/build_flags.sh. No GPU and no compiler run: in a build folder of its own, objects
# made up to date by hand, make -q says what a change of flags would rebuild. Another ARCH (or
# nvcc) rebuilds the CUDA objects and not the host-only ones, the grader's among them; other
# host flags rebuild the host-only ones.

if ! declare -F expect > /dev/null; then
    . "$(dirname "${BASH_SOURCE[0]}")/../standalone.sh"
fi

# build_flags_stale BUILD SETTINGS... TARGET: "rebuilt" or "kept", what make would do to TARGET
# with SETTINGS (make -q: 0 up to date, 1 to rebuild; anything else is said as it is).
build_flags_stale() {
    local dir=$1 target=${*: -1} settings=("${@:2:$#-2}") rc
    make -q --no-print-directory BUILD="$dir" "${settings[@]}" "$dir/$target" > /dev/null 2>&1
    rc=$?
    case $rc in 0) echo kept;; 1) echo rebuilt;; *) echo "make exit $rc";; esac
}

build_flags_suite() {
    local tmp host=common/args.o cuda=common/check.o got want
    tmp=$(mktemp -d)
    # make writes the stamps as it reads the Makefile; objects touched after them are up to date.
    build_flags_stale "$tmp" ARCH=sm_75 "$host" > /dev/null
    mkdir -p "$tmp/common" && touch "$tmp/$host" "$tmp/$cuda"
    got="$(build_flags_stale "$tmp" ARCH=sm_75 "$host") $(build_flags_stale "$tmp" ARCH=sm_75 "$cuda")"
    got+=" | $(build_flags_stale "$tmp" ARCH=sm_90 "$host") $(build_flags_stale "$tmp" ARCH=sm_90 "$cuda")"
    touch "$tmp/$cuda"
    got+=" | $(build_flags_stale "$tmp" ARCH=sm_90 NVCC=/usr/local/cuda-12.4/bin/nvcc "$host")"
    got+=" $(build_flags_stale "$tmp" ARCH=sm_90 NVCC=/usr/local/cuda-12.4/bin/nvcc "$cuda")"
    touch "$tmp/$cuda"
    got+=" | $(build_flags_stale "$tmp" ARCH=sm_90 NVCC=/usr/local/cuda-12.4/bin/nvcc CXXFLAGS=-O1 "$host")"
    got+=" $(build_flags_stale "$tmp" ARCH=sm_90 NVCC=/usr/local/cuda-12.4/bin/nvcc CXXFLAGS=-O1 "$cuda")"
    want="kept kept | kept rebuilt | kept rebuilt | rebuilt kept"
    if [ "$got" = "$want" ]; then
        pass "make: another ARCH or nvcc rebuilds the CUDA objects only, other host flags the host-only ones ($got)"
    else fail "make: what a change of flags rebuilds" "host and CUDA object at: same flags | ARCH | nvcc | CXXFLAGS: $got (expected: $want)"; fi
    rm -rf "$tmp"
}
build_flags_suite
