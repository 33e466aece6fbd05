# make check-cuda12 (tools/check-cuda12.sh), which builds everything with a CUDA 12 toolkit
# (sourced by tests/run_tests.sh; also runs on its own: `bash tests/suites/cuda12.sh`). Without
# network: it refuses a CUDA12_HOME with no nvcc or with one of another version (exit 77, one
# sentence), and a compiler that fails makes it exit 1 naming the log. The whole check fetches
# about 1.3 GB and takes minutes: it runs here only with CUDA12_CHECK=1 (then it must pass, or
# say in one sentence why no CUDA 12 toolkit could be had: a skip).

if ! declare -F expect > /dev/null; then
    . "$(dirname "${BASH_SOURCE[0]}")/../standalone.sh"
fi

cuda12_suite() {
    local dir=$BUILD/test-logs/cuda12
    if [ ! -f tools/check-cuda12.sh ] || [ ! -d solutions ]; then
        skip "check-cuda12" "a tool of the full tree (not in the student edition)"; return
    fi
    rm -rf "$dir" && mkdir -p "$dir/empty" "$dir/cuda13/bin" "$dir/broken/bin"
    printf '#!/bin/sh\necho "Cuda compilation tools, release 13.0, V13.0.88"\n' > "$dir/cuda13/bin/nvcc"
    # A CUDA 12 nvcc that compiles nothing: every build fails.
    printf '#!/bin/sh\ncase "$*" in *--version*) echo "Cuda compilation tools, release 12.4, V12.4.131"; exit 0;; esac\necho "nvcc: error: this compiler compiles nothing" >&2; exit 1\n' \
        > "$dir/broken/bin/nvcc"
    chmod +x "$dir/cuda13/bin/nvcc" "$dir/broken/bin/nvcc"
    expect "check-cuda12: a CUDA12_HOME without nvcc is refused in one sentence" 77 'CUDA12_HOME=.*has no bin/nvcc' \
        env CUDA12_HOME="$dir/empty" CUDA12_CACHE="$dir/cache" bash tools/check-cuda12.sh
    expect "check-cuda12: a CUDA 13 nvcc is refused" 77 'is CUDA 13\.0 .*, not 12\.x' \
        env CUDA12_HOME="$dir/cuda13" CUDA12_CACHE="$dir/cache" bash tools/check-cuda12.sh
    expect "check-cuda12: a build that fails exits 1 and names the log" 1 'FAILED with CUDA 12\.4 .*build\.log' \
        env CUDA12_HOME="$dir/broken" CUDA12_CACHE="$dir/cache" CUDA12_TARGETS=lab01 bash tools/check-cuda12.sh
    if [ "${CUDA12_CHECK:-0}" != 1 ]; then
        skip "check-cuda12: everything builds with CUDA 12" "set CUDA12_CHECK=1 (fetches Debian's CUDA 12.4, about 1.3 GB)"
        return
    fi
    RUN_TIMEOUT=3600 run_capture "check-cuda12" bash tools/check-cuda12.sh
    if [ "$rc" -eq 77 ]; then skip "check-cuda12: everything builds with CUDA 12" "$(printf '%s' "$out" | tail -n1)"
    elif [ "$rc" -eq 0 ]; then pass "check-cuda12: everything builds with CUDA 12 ($(printf '%s' "$out" | sed -n 's/.*built with CUDA \([0-9.]*\).*/\1/p'))"
    else fail "check-cuda12: everything builds with CUDA 12" "$(printf '%s' "$out" | tail -n 3)"; fi
}
cuda12_suite
