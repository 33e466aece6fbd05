# Device code that branches on the architecture compiles on each side of the branch (sourced by
# tests/run_tests.sh; also runs on its own: `bash tests/suites/arch_branches.sh`).
# A build for one architecture compiles one side of an `#if __CUDA_ARCH__ >= 900`: lab 12's and
# lab 13's reference use newer instructions where the GPU has them. So where ARCH leaves out the
# newest architecture of ARCH=multi (CI builds for the oldest, sm_75, alone: .ci/run), every .cu
# file of labs/, solutions/ and common/ that names __CUDA_ARCH__, or includes a header of those
# folders that does (at any depth), is compiled here for the newest too, by the Makefile's own
# rules into a build folder of its own (objects only, nothing linked).

if ! declare -F expect > /dev/null; then
    . "$(dirname "${BASH_SOURCE[0]}")/../standalone.sh"
fi

# arch_branch_files: the .cu files of labs/, solutions/ and common/ whose device code may branch
# on the architecture, one per line.
arch_branch_files() {
    local marked grew header name
    marked=$(grep -rlE '__CUDA_ARCH__' labs solutions common --include='*.h' --include='*.cuh' 2> /dev/null)
    grew=1
    while [ "$grew" = 1 ]; do  # headers that include a marked header are marked, until none is new
        grew=0
        for header in $(grep -rlE '^[[:space:]]*#[[:space:]]*include' labs solutions common --include='*.h' --include='*.cuh' 2> /dev/null); do
            grep -qxF "$header" <<< "$marked" && continue
            for name in $marked; do
                if grep -qE "#[[:space:]]*include[[:space:]]*[\"<]([^\">]*/)?$(basename "$name")[\">]" "$header"; then
                    marked=$(printf '%s\n%s' "$marked" "$header"); grew=1; break
                fi
            done
        done
    done
    {
        grep -rlE '__CUDA_ARCH__' labs solutions common --include='*.cu' 2> /dev/null
        for name in $marked; do
            grep -rlE "#[[:space:]]*include[[:space:]]*[\"<]([^\">]*/)?$(basename "$name")[\">]" labs solutions common --include='*.cu' 2> /dev/null
        done
    } | sort -u
}

# arch_branch_object BUILD FILE: the Makefile's object for a .cu file, or nothing if it has none.
arch_branch_object() {
    local build=$1 file=$2 dir nn
    dir=$(basename "$(dirname "$file")"); nn=${dir%%-*}
    case $file in
        common/*.cu) echo "$build/${file%.cu}.o" ;;
        labs/[0-9][0-9]-*/driver.cu) echo "$build/$nn/driver.o" ;;
        labs/[0-9][0-9]-*/*.cu) echo "$build/lab$nn/student.o" ;;
        solutions/[0-9][0-9]-*/*.cu) echo "$build/sol$nn/student.o" ;;
    esac
}

arch_branches_suite() {
    local newest flags files file object targets=() unknown="" tmp
    newest=$(make -s --no-print-directory arch ARCH=multi 2> /dev/null | grep -o 'code=sm_[0-9]*' | tail -n 1 | cut -d= -f2)
    flags=$(make -s --no-print-directory arch 2> /dev/null | grep '^ARCH=')
    if [ -z "$newest" ]; then fail "arch branches" "make arch ARCH=multi names no architecture"; return; fi
    if grep -q "code=$newest\b" <<< "$flags"; then
        skip "arch branches: compiled for $newest too" "ARCH already builds for $newest ($flags)"; return
    fi
    files=$(arch_branch_files)
    [ -n "$files" ] || { skip "arch branches" "no file of labs/, solutions/ or common/ names __CUDA_ARCH__"; return; }
    tmp=$(mktemp -d)
    for file in $files; do
        object=$(arch_branch_object "$tmp" "$file")
        if [ -n "$object" ]; then targets+=("$object"); else unknown="$unknown $file"; fi
    done
    [ -z "$unknown" ] || fail "arch branches: every file that branches on the architecture is a lab's, a solution's or common/'s" \
        "no Makefile rule known for:$unknown"
    run_capture "arch branches" make -s --no-print-directory BUILD="$tmp" ARCH="$newest" "${targets[@]}"
    if [ "$rc" -eq 0 ]; then pass "arch branches: compiled for $newest too ($(echo $files))"
    else fail "arch branches: compiled for $newest too" "exit $rc: $(printf '%s' "$err" | grep -m 3 -E 'error|Error')"; fi
    rm -rf "$tmp"
}
arch_branches_suite
