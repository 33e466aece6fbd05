#!/usr/bin/env bash
# The result channel end to end, on a machine with a GPU (nothing here runs without one):
# the harness's records, the CUPTI trace's KERNEL records filed per case and per timed
# repetition, the grading shims' TRANSFER records, the verifier reading what the grader stored,
# and the checks of timed repetitions (tests/tools/replaying_vector_add.cu replays or spoils
# its result after the first launch). Prints what it sees; read it, nothing is asserted here.
# The programs are the grader's builds (build/grading/solNN: the solution with the grading
# harness, which alone knows --channel and --verify-outputs); ./solNN is run only to show that
# it is unchanged.
#
#   BUILD=build-dev bash tests/tools/channel_gpu_check.sh
set -u
B=${BUILD:-build-dev}
G=$B/grading
make -s BUILD="$B" -j"$(nproc)" sol01 "$G/sol01" "$G/sol02" "$G/sol04" "$G/sol13" "$G/libkernel_trace.so" \
    "$B/tools/channel_dump" "$G/grading_shims.o" || exit 1
TRACE=$PWD/$G/libkernel_trace.so
DUMP=$B/tools/channel_dump
# What the grader links a lab's programs with: the driver, the lab's host objects, common/ and
# the grading harness (OBJS), and its flags.
info() { make -s BUILD="$B" grading-info LAB="$1" | sed -n "s/^grading-info:$2=//p"; }
NVCC=$(info 01 NVCC)
NVCCFLAGS=$(info 01 NVCCFLAGS)
LDLIBS=$(info 01 LDLIBS)
step() { printf '\n### %s\n' "$*"; }

step "sol01 fast at 1000 and 4097, 3 repetitions (+1 warm-up), with the trace"
$DUMP --out "$B/out01" --trace "$TRACE" -- $G/sol01 --variant fast --size 1000,4097 --reps 3
ls "$B/out01"
step "the verifier on what was stored"
$G/sol01 --verify-outputs "$B/out01" --variant fast --size 1000,4097 --reps 1 | tail -4

step "sol02 pitched and packed at 33x129, with the trace"
$DUMP --out "$B/out02" --trace "$TRACE" -- $G/sol02 --variant pitched,packed --size 33x129 --reps 2 | grep -v '^  '
$G/sol02 --verify-outputs "$B/out02" --variant pitched,packed --size 33x129 --reps 1 | tail -4

step "sol13 every variant at 1000x700, with the trace"
$DUMP --out "$B/out13" --trace "$TRACE" -- $G/sol13 --size 1000x700 --reps 2 | grep -E '^(==|--|   (error|output|timed|fault|repetition|kernels))'
$G/sol13 --verify-outputs "$B/out13" --size 1000x700 --reps 1 | tail -4

step "grading shims: lab 01 and 04 solutions with their imports renamed"
RENAME=$(grep -v '^#' grading/shimmed-imports.txt | awk 'NF == 2 { printf "--redefine-sym=%s=%s ", $1, $2 }')
for n in 01 04; do
    objcopy $RENAME "$B/sol$n/student.o" "$B/shimmed$n.o"
    nm -u "$B/shimmed$n.o" | grep shim
    # shellcheck disable=SC2086
    $NVCC $NVCCFLAGS -o "$B/shimmed$n" $(info $n OBJS) "$B/shimmed$n.o" "$B/sol$n/student_source.o" \
        "$G/grading_shims.o" $LDLIBS || exit 1
done
$DUMP --trace "$TRACE" -- "$B/shimmed01" --variant host,fast --size 1000 --reps 1 | grep -E '^(==|--|   (error|transfer|fault))'
$DUMP --trace "$TRACE" -- "$B/shimmed04" --size 1000 --reps 1 | grep -E '^(==|--|   (error|transfer|fault))'

step "timed repetitions that replay (simple) or spoil (fast) the first result"
# shellcheck disable=SC2086
$NVCC $NVCCFLAGS -Ilabs/01-vector-add -c tests/tools/replaying_vector_add.cu -o "$B/replaying.o" &&
    $NVCC $NVCCFLAGS -o "$B/replaying01" $(info 01 OBJS) "$B/replaying.o" "$B/sol01/student_source.o" $LDLIBS || exit 1
for v in simple fast; do
    rm -rf "$B/outr"
    $DUMP --out "$B/outr" --trace "$TRACE" -- "$B/replaying01" --variant $v --size 5000 --reps 3 | grep -E '^(==|--|   (error|output|timed|fault|repetition))'
    ls "$B/outr"
    $G/sol01 --verify-outputs "$B/outr" --variant $v --size 5000 --reps 1 | grep -E 'FAIL|PASS|Verdict'
done

step "cost of the checks: sol02 pitched at 8192x8192, 10 repetitions, without and with --channel"
for with in no yes; do
    start=$(date +%s%N)
    if [ $with = yes ]; then
        $DUMP --brief --trace "$TRACE" -- $G/sol02 --variant pitched --size 8192x8192 --reps 10 | grep -E 'pitched|^== |timed\)'
    else
        $G/sol02 --variant pitched --size 8192x8192 --reps 10 | grep -E 'pitched'
    fi
    echo "channel $with: $(( ($(date +%s%N) - start) / 1000000 )) ms wall"
done

step "without --channel nothing changed (the grader's build, and the course tree's ./sol01)"
$G/sol01 --size 1000,4097 --reps 2 | tail -2
./sol01 --size 1000,4097 --reps 2 | tail -2
