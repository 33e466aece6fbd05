# Lab 05 (device-side malloc): extra GPU checks, sourced by tests/run_tests.sh (expect/pass/fail/
# skip, $SANITIZER). The book's command line, a heap too small for the request (a clear message
# and exit 1, never a crash), bad arguments, and memcheck watching the device heap.
expect "sol05 8 24 (the book's command line) passes" 0 'Verdict: PASS' ./sol05 8 24
expect "sol05 with a 1 MiB heap reports the exhaustion clearly" 1 \
    'device heap exhausted: [0-9]+ of 100000 threads got NULL from malloc\(1000\)' ./sol05 100000 1000 1
# The runtime rounds the heap size up: a heap that was set reads back larger than asked, and the
# solution must not be told it did not set it; a starter that never sets it is told so.
expect "sol05 with a heap the runtime rounds up is not told it did not set it" 0 'Verdict: PASS' ./sol05 --reps 1 100000 1000
no_false_alarm "sol05 --reps 1 100000 1000"
expect "sol05 with an odd heap size (3 MiB asked, rounded) passes" 0 'Verdict: PASS' ./sol05 97 13 3
no_false_alarm "sol05 97 13 3"
expect "lab05 starter that never sets the heap is told so" 1 'set_device_heap did not set it \(see TODO\(lab05\) device\)' ./lab05 100000 1000
expect "sol05 rejects a non-numeric <nthreads>" 2 'error: <nthreads>' ./sol05 abc 24
expect "sol05 rejects <nthreads> without <size>" 2 'error: expected <nthreads> <size>' ./sol05 8
expect "sol05 rejects a block over 16 MiB" 2 'error: .*16777216' ./sol05 8 20000000
if [ -n "$SANITIZER" ]; then
    expect "sol05 memcheck --check-device-heap yes clean" 0 'ERROR SUMMARY: 0 errors' \
        "$SANITIZER" --tool memcheck --check-device-heap yes --leak-check full --error-exitcode 99 ./sol05 --quick
    # An exhausted heap is a FAIL row (exit 1), not an illegal address (memcheck would exit 99).
    expect "sol05 memcheck: an exhausted heap causes no memory error" 1 'ERROR SUMMARY: 0 errors' \
        "$SANITIZER" --tool memcheck --check-device-heap yes --error-exitcode 99 ./sol05 2000 10000 1
else
    skip "sol05 memcheck --check-device-heap" "compute-sanitizer not found"
fi
