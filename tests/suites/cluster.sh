# A class graded on a real SLURM cluster (sourced by tests/run_tests.sh; also on its own:
# `bash tests/suites/cluster.sh`, or `make test-cluster`). No GPU needed.
#
# It starts a one-node cluster of Debian's SLURM 22.05 (slurmctld, slurmd) and its own munged,
# configured entirely in a temporary folder (slurm.conf: tests/fixtures/cluster/slurm.conf),
# listening on 127.0.0.1 only, on ports no socket of this machine uses. The node declares three
# stand-in GPUs (gres.conf: links to /dev/null), so grading/slurm/grade-array.sbatch runs
# unchanged, with its own --gres=gpu:1 request; the grading is --compile-only, which needs no
# GPU. Then:
#   1. grading/slurm/submit.sh grades lab 01's reference, its starter and four corpus cases
#      (tests/grading/01/*.patch) as a job array of 3 shards and a dependent merge job; every task
#      must have asked for a GPU and ended well, and the merged gradebook, feedback and summary
#      must be those of one grading/grade run with the same seed, byte for byte, its audit log too
#      but for each line's graded_at, and its results/ but for each submission's execution_time;
#   2. the same class submitted again with the partition down, shard 1 cancelled before it runs:
#      the merge job must still run (afterany), fail (exit 2) and name shard 1; the rerun command
#      submit.sh prints, run as printed, and the merge it prints then give the single run's files;
#   3. the cluster is stopped (jobs cancelled, daemons ended, any process left of it killed) and
#      nothing of it may be left. It is stopped whatever happens: a failure, a time-out, Ctrl-C.
# Every wait has a time limit: the cluster part has CLUSTER_WAIT seconds in all (240 by default;
# it takes about 45), each command 60; then the cluster is stopped.
# Needs root (the daemons and the jobs run as root) and tools/deps/cluster.txt
# (bash tools/install-deps.sh cluster); without either it is skipped (missing packages fail
# in CI, which installs them). The class, the results and the daemons' logs are kept in
# $BUILD/test-logs/cluster/.

if ! declare -F expect > /dev/null; then
    . "$(dirname "${BASH_SOURCE[0]}")/../standalone.sh"
fi

cluster_tmp="" cluster_pids="" cluster_conf="" cluster_logs="" cluster_error="" cluster_job=""
cluster_ctld_port="" cluster_slurmd_port="" cluster_deadline=0

# cluster_port [OTHER]: a TCP port that no socket of this machine uses (IPv4 or IPv6), not OTHER.
cluster_port() {
    local used=" " addr port i
    while read -r _ addr _; do
        [[ $addr == *:* ]] && used+="$((16#${addr##*:})) "
    done < <(tail -q -n +2 /proc/net/tcp /proc/net/tcp6 2> /dev/null)
    for i in $(seq 100); do
        port=$((20000 + RANDOM % 12000))  # below the usual ephemeral ports (32768 on)
        if [[ $used != *" $port "* ]] && [ "$port" != "${1:-}" ]; then echo "$port"; return 0; fi
    done
    return 1
}

# cluster_listeners PORT...: the local addresses (hex, as /proc/net/tcp writes them) that listen
# on these ports.
cluster_listeners() {
    local p addr state
    for p in "$@"; do
        while read -r _ addr _ state _; do
            [ "$state" = 0A ] && [ "$((16#${addr##*:}))" = "$p" ] && echo "${addr%:*}"
        done < <(tail -q -n +2 /proc/net/tcp /proc/net/tcp6 2> /dev/null)
    done
}

# cluster_run CMD...: a SLURM command against the test cluster, with a time limit.
cluster_run() { timeout --kill-after=5 20 env SLURM_CONF="$cluster_conf" "$@"; }

# cluster_strays: the processes of the cluster: every one carries CUDALABS_TEST_CLUSTER=DIR (the
# daemons and the job steps they start) or SLURM_CONF=DIR/slurm.conf (the jobs) in its environment.
cluster_strays() {
    local p
    [ -n "$cluster_tmp" ] || return 0
    for p in /proc/[0-9]*; do
        [ "${p#/proc/}" = "$$" ] || [ "${p#/proc/}" = "$BASHPID" ] && continue
        { tr '\0' '\n' < "$p/environ"; } 2> /dev/null \
            | grep -qxF -e "CUDALABS_TEST_CLUSTER=$cluster_tmp" -e "SLURM_CONF=$cluster_conf" && echo "${p#/proc/}"
    done
}

# cluster_alive: slurmctld answers.
cluster_alive() { cluster_run scontrol ping 2> /dev/null | grep -q 'is UP'; }

# cluster_errors N: the last N errors of the daemons' logs, on one line (not the MPI plugins'
# complaints about a missing PMIx, which every start logs and which no job here needs).
cluster_errors() {
    grep -h -i -E 'error|fatal' "$cluster_tmp"/*.out "$cluster_tmp"/*.log 2> /dev/null | grep -v -i pmix | tail -n "$1" \
        | tr '\n' ' ' | head -c 400
}

# cluster_start: munged, slurmctld and slurmd in $cluster_tmp; returns once the node is idle.
# On failure, $cluster_error says why.
cluster_start() {
    local d=$cluster_tmp i p state
    cluster_error=""
    mkdir -p "$d/state" "$d/spool" "$d/gpus" || { cluster_error="cannot write $d"; return 1; }
    cluster_ctld_port=$(cluster_port) && cluster_slurmd_port=$(cluster_port "$cluster_ctld_port") \
        || { cluster_error="no free TCP port found"; return 1; }
    dd if=/dev/urandom of="$d/munge.key" bs=1024 count=1 status=none && chmod 400 "$d/munge.key"
    # Three stand-in GPUs: slurmd wants a device file per GPU, and a job gets CUDA_VISIBLE_DEVICES.
    for i in 0 1 2; do ln -s /dev/null "$d/gpus/gpu$i"; done
    # slurm.conf: tests/fixtures/cluster/slurm.conf with this cluster's folder and ports.
    sed -e "s|@DIR@|$d|g; s|@CTLD_PORT@|$cluster_ctld_port|; s|@SLURMD_PORT@|$cluster_slurmd_port|" \
        tests/fixtures/cluster/slurm.conf > "$cluster_conf"
    echo "NodeName=localhost Name=gpu File=$d/gpus/gpu[0-2]" > "$d/gres.conf"

    CUDALABS_TEST_CLUSTER=$d setsid munged -F --force --socket="$d/munge.socket" --key-file="$d/munge.key" \
        --log-file="$d/munged.log" --pid-file="$d/munged.pid" --seed-file="$d/munge.seed" > "$d/munged.out" 2>&1 < /dev/null &
    cluster_pids=$!
    for i in $(seq 50); do [ -S "$d/munge.socket" ] && break; sleep 0.2; done
    if ! timeout 10 munge -n -S "$d/munge.socket" 2> /dev/null | timeout 10 unmunge -S "$d/munge.socket" > /dev/null 2>&1; then
        cluster_error="munged does not answer: $(tail -n 2 "$d/munged.out" "$d/munged.log" 2> /dev/null | tr '\n' ' ' | head -c 300)"
        return 1
    fi
    CUDALABS_TEST_CLUSTER=$d SLURM_CONF=$cluster_conf setsid slurmctld -D -f "$cluster_conf" > "$d/slurmctld.out" 2>&1 < /dev/null &
    cluster_pids+=" $!"
    CUDALABS_TEST_CLUSTER=$d SLURM_CONF=$cluster_conf setsid slurmd -D -f "$cluster_conf" -N localhost > "$d/slurmd.out" 2>&1 < /dev/null &
    cluster_pids+=" $!"
    for i in $(seq 60); do
        state=$(cluster_run sinfo -h -n localhost -o %t 2> /dev/null)
        [ "$state" = idle ] && return 0
        for p in $cluster_pids; do
            kill -0 "$p" 2> /dev/null && continue
            cluster_error="a daemon stopped: $(cluster_errors 3)"
            return 1
        done
        sleep 1
    done
    cluster_error="the node is not idle after 60 s (state '${state:-unknown}'): $(cluster_errors 2)"
    return 1
}

# cluster_stop: cancels every job, ends the daemons and kills what is left of the cluster, keeps the
# logs in $cluster_logs and removes the temporary folder. Does nothing the second time.
cluster_stop() {
    local d=$cluster_tmp p i left
    [ -n "$d" ] || return 0
    if cluster_alive; then
        cluster_run scancel --user="$(id -un)" > /dev/null 2>&1
        for i in $(seq 15); do [ -z "$(cluster_run squeue -h 2> /dev/null)" ] && break; sleep 1; done
    fi
    # slurmd first (it ends the jobs it still runs), then slurmctld, then munged.
    for p in $(echo "$cluster_pids" | tr ' ' '\n' | tac); do
        kill -TERM "$p" 2> /dev/null || continue
        for i in $(seq 50); do kill -0 "$p" 2> /dev/null || break; sleep 0.2; done
        kill -KILL "$p" 2> /dev/null
    done
    left=$(cluster_strays)
    if [ -n "$left" ]; then
        kill -TERM $left 2> /dev/null
        for i in $(seq 25); do [ -z "$(cluster_strays)" ] && break; sleep 0.2; done
        left=$(cluster_strays)
        [ -z "$left" ] || kill -KILL $left 2> /dev/null
    fi
    wait $cluster_pids 2> /dev/null
    if [ -n "$cluster_logs" ]; then
        mkdir -p "$cluster_logs"
        cp "$d"/*.log "$d"/*.out "$d"/slurm.conf "$d"/gres.conf "$cluster_logs"/ 2> /dev/null
    fi
    rm -rf "$d"
    cluster_tmp="" cluster_pids=""
}

# The states of a job that has not ended.
cluster_active="PENDING|RUNNING|CONFIGURING|COMPLETING|SUSPENDED|REQUEUED|RESIZING|SIGNALING|STAGE_OUT"

# cluster_wait_job ID: waits until the job (every task of an array) has ended; sets $cluster_job
# to its records (scontrol -o show job: one line per task). Fails when $cluster_deadline (in
# $SECONDS) has passed or when the controller stops answering.
cluster_wait_job() {
    local id=$1
    while :; do
        cluster_job=$(cluster_run scontrol -o show job "$id" 2> /dev/null)
        [ -n "$cluster_job" ] && ! grep -qE "JobState=($cluster_active)" <<< "$cluster_job" && return 0
        cluster_alive || { cluster_job="the controller stopped answering"; return 1; }
        [ "$SECONDS" -lt "$cluster_deadline" ] || break
        sleep 1
    done
    cluster_job="job $id has not ended within CLUSTER_WAIT (${CLUSTER_WAIT:-240} s for the whole cluster part):
        $(grep -oE 'JobId=[0-9]+|ArrayTaskId=[^ ]+|JobState=[A-Z_]+|Reason=[^ ]+' <<< "$cluster_job" | tr '\n' ' ')"
    cluster_job=$(tr -s ' \n' '  ' <<< "$cluster_job")
    return 1
}

# cluster_field NAME: each record's NAME=value of $cluster_job, one a line.
cluster_field() { grep -oE "(^| )$1=[^ ]*" <<< "$cluster_job" | sed "s/^ *$1=//"; }

# cluster_differences A B: what differs between two runs' results (nothing when they agree):
# gradebook, summary and feedback byte for byte, the audit log but for its dates (graded_at),
# results/ but for execution_time.
cluster_differences() {
    local a=$1 b=$2 f
    [ -d "$b" ] || { echo "no $b"; return; }
    for f in gradebook.csv summary.txt; do
        cmp -s "$a/$f" "$b/$f" || echo "$f: $(diff "$a/$f" "$b/$f" 2>&1 | head -n 3 | tr '\n' ' ' | head -c 300)"
    done
    same_audit_but_dates "$a/audit.jsonl" "$b/audit.jsonl" ||
        echo "audit.jsonl: $(diff <(audit_dates_masked "$a/audit.jsonl") <(audit_dates_masked "$b/audit.jsonl") 2>&1 | head -n 3 | tr '\n' ' ' | head -c 300)"
    diff -r "$a/feedback" "$b/feedback" > /dev/null 2>&1 || echo "feedback/ differs"
    [ "$(ls "$a/results" 2> /dev/null)" = "$(ls "$b/results" 2> /dev/null)" ] || echo "results/ holds other files"
    for f in "$a"/results/*.json; do
        diff <(grep -v '"execution_time":' "$f") <(grep -v '"execution_time":' "$b/results/${f##*/}" 2> /dev/null) > /dev/null \
            || echo "results/${f##*/} differs"
    done
}

# cluster_class DIR: the class in DIR/submissions (DIR made afresh): lab 01's reference, its starter
# and four corpus cases (tests/grading/01/*.patch), a folder each. Fails, naming the case, where a
# patch no longer applies.
cluster_class() {
    local subs=$1/submissions case
    rm -rf "$1"
    mkdir -p "$subs/reference" "$subs/starter"
    cp solutions/01-vector-add/vector_add.cu "$subs/reference/"
    cp labs/01-vector-add/vector_add.cu "$subs/starter/"
    for case in wrong_answer compile_error defines_main forbidden_cublas; do
        mkdir -p "$subs/$case"
        cp solutions/01-vector-add/vector_add.cu "$subs/$case/"
        if ! patch --batch --forward --fuzz=0 --no-backup-if-mismatch --reject-file=- -s "$subs/$case/vector_add.cu" \
                < "tests/grading/01/$case.patch" > /dev/null 2>&1; then
            fail "cluster grading: the class" "tests/grading/01/$case.patch no longer applies"
            return 1
        fi
    done
}

# cluster_stop_on_exit DIR: from now on the cluster in a new temporary folder (its daemons' logs
# kept in DIR/daemons) is stopped on every way out (return, exit, Ctrl-C, kill); the traps it
# replaces are kept in saved_exit, saved_int, saved_term and saved_hup (the caller's).
cluster_stop_on_exit() {
    local exit_cmd=""
    saved_exit=$(trap -p EXIT) saved_int=$(trap -p INT) saved_term=$(trap -p TERM) saved_hup=$(trap -p HUP)
    cluster_tmp=$(mktemp -d /tmp/cudalabs-cluster.XXXXXX)
    cluster_conf=$cluster_tmp/slurm.conf cluster_logs=$1/daemons
    if [ -n "$saved_exit" ]; then eval "set -- $saved_exit"; exit_cmd=$3; fi
    # shellcheck disable=SC2064  # the previous EXIT trap, as it is now
    trap "cluster_stop; $exit_cmd" EXIT
    trap 'fail "cluster grading" "interrupted (SIGINT): the cluster is stopped"; exit 130' INT
    trap 'fail "cluster grading" "terminated (SIGTERM): the cluster is stopped"; exit 143' TERM
    trap 'fail "cluster grading" "hung up (SIGHUP): the cluster is stopped"; exit 129' HUP
}

# cluster_restore_traps: the traps that cluster_stop_on_exit replaced, back as they were.
cluster_restore_traps() {
    if [ -n "$saved_exit" ]; then eval "$saved_exit"; else trap - EXIT; fi
    if [ -n "$saved_int" ]; then eval "$saved_int"; else trap - INT; fi
    if [ -n "$saved_term" ]; then eval "$saved_term"; else trap - TERM; fi
    if [ -n "$saved_hup" ]; then eval "$saved_hup"; else trap - HUP; fi
}

# cluster_submit_class DIR ARCH SEED: part 1, the class of DIR/submissions through submit.sh: a
# job array of 3 shards and the merge job, graded as DIR/single was.
cluster_submit_class() {
    local dir=$1 arch=$2 seed=$3 subs=$1/submissions array merge f d note
    run_capture "cluster grading: submit.sh" env SLURM_CONF="$cluster_conf" BUILD="$BUILD" ARCH="$arch" GRADE_SEED="$seed" \
        GRADE_OPTIONS=--compile-only grading/slurm/submit.sh 01 "$subs" "$dir/out" 3
    array=$(sed -n 's/.*(job array \([0-9]*\)).*/\1/p' <<< "$out") merge=$(sed -n 's/.*merge (job \([0-9]*\)).*/\1/p' <<< "$out")
    if [ "$rc" -ne 0 ] || [ -z "$array" ] || [ -z "$merge" ]; then
        fail "cluster grading: submit.sh submits the array and the merge" "exit $rc: $(printf '%s\n%s' "$out" "$err" | tail -n 3 | tr '\n' ' ' | head -c 300)"
    else
        pass "cluster grading: submit.sh submits the array ($array) and the merge ($merge)"
        if ! cluster_wait_job "$merge"; then
            fail "cluster grading: the array and the merge job end" "$cluster_job"
        else
            cluster_wait_job "$array"
            local tasks states codes gres ended
            tasks=$(cluster_field ArrayTaskId | sort | tr '\n' ' ') states=$(cluster_field JobState | sort -u | tr '\n' ' ')
            codes=$(cluster_field ExitCode | sort -u | tr '\n' ' ') gres=$(cluster_field TresPerNode | tr '\n' ' ')
            ended=$(cluster_field EndTime | sort | tail -n 1)
            if [ "$tasks" = "0 1 2 " ] && [ "$states" = "COMPLETED " ] && [ "$codes" = "0:0 " ] && [ "$gres" = "gres:gpu:1 gres:gpu:1 gres:gpu:1 " ]; then
                pass "cluster grading: the 3 array tasks each asked for a GPU (--gres=gpu:1) and graded their shard"
            else
                fail "cluster grading: the 3 array tasks each asked for a GPU (--gres=gpu:1) and graded their shard" \
                    "tasks: ${tasks}states: ${states}exit: ${codes}gres: ${gres}(logs: $dir/out/logs/)"
            fi
            cluster_wait_job "$merge"
            # The merge job started once the last task had ended (times to the second: ISO, sortable).
            if [ "$(cluster_field JobState)" = COMPLETED ] && [ "$(cluster_field ExitCode)" = 0:0 ] \
                && [[ ! "$(cluster_field StartTime)" < "$ended" ]] \
                && grep -q '^results: ' "$dir"/out/logs/merge-"$merge".out 2> /dev/null; then
                pass "cluster grading: the merge job ran after the array and merged the class"
            else
                fail "cluster grading: the merge job ran after the array and merged the class" \
                    "$(cluster_field JobState) exit $(cluster_field ExitCode), started $(cluster_field StartTime), last task ended $ended: $(tail -n 2 "$dir"/out/logs/merge-"$merge".out 2> /dev/null | tr '\n' ' ' | head -c 300)"
            fi
            for f in gradebook.csv feedback/ results/ audit.jsonl summary.txt; do
                d=$(cluster_differences "$dir/single" "$dir/out/class" | grep "^${f%/}" | head -n 3 | tr '\n' ' ')
                [ -d "$dir/out/class" ] || d="no merged class in $dir/out/class"
                note=""
                [ "$f" = results/ ] && note=" (but execution_time)"
                [ "$f" = audit.jsonl ] && note=" (but graded_at)"
                if [ -z "$d" ]; then pass "cluster grading: the merged $f is the single run's$note"
                else fail "cluster grading: the merged $f is the single run's$note" "$d"; fi
            done
        fi
    fi
}

# cluster_cancelled_shard DIR ARCH SEED: part 2, a shard that never ran: the partition is down
# while the class is submitted, shard 1 is cancelled, then the partition comes back.
cluster_cancelled_shard() {
    local dir=$1 arch=$2 seed=$3 subs=$1/submissions submit array merge line rerun merge_cmd job d
    cluster_run scontrol update PartitionName=test State=DOWN > /dev/null 2>&1
    run_capture "cluster grading: submit.sh (a shard will be cancelled)" env SLURM_CONF="$cluster_conf" BUILD="$BUILD" ARCH="$arch" \
        GRADE_SEED="$seed" GRADE_OPTIONS=--compile-only grading/slurm/submit.sh 01 "$subs" "$dir/cancelled" 3
    submit=$out
    array=$(sed -n 's/.*(job array \([0-9]*\)).*/\1/p' <<< "$out") merge=$(sed -n 's/.*merge (job \([0-9]*\)).*/\1/p' <<< "$out")
    [ -n "$array" ] && cluster_run scancel "${array}_1" > /dev/null 2>&1
    cluster_run scontrol update PartitionName=test State=UP > /dev/null 2>&1
    if [ "$rc" -ne 0 ] || [ -z "$array" ] || [ -z "$merge" ]; then
        fail "cluster grading: a cancelled shard" "submit.sh: exit $rc: $(printf '%s\n%s' "$out" "$err" | tail -n 3 | tr '\n' ' ' | head -c 300)"
    elif ! cluster_wait_job "$merge"; then
        fail "cluster grading: a cancelled shard: the merge job ends" "$cluster_job"
    else
        line=$(tail -n 3 "$dir"/cancelled/logs/merge-"$merge".out 2> /dev/null | tr '\n' ' ')
        if [ "$(cluster_field JobState)" = FAILED ] && [ "$(cluster_field ExitCode)" = 2:0 ] \
            && [[ $line == *"shard 1 of 3 is missing"* ]] && [ ! -e "$dir/cancelled/class" ]; then
            pass "cluster grading: with shard 1 cancelled, the merge job still runs, refuses (exit 2) and names shard 1"
        else
            fail "cluster grading: with shard 1 cancelled, the merge job still runs, refuses (exit 2) and names shard 1" \
                "$(cluster_field JobState) exit $(cluster_field ExitCode): ${line:0:300}"
        fi
        # The rerun and the merge exactly as submit.sh printed them.
        rerun=$(sed -n '/^rerun shard K/,/grade-array\.sbatch$/p' <<< "$submit" | sed '1s/^rerun shard K[^:]*: *//; s/\\$//' | tr '\n' ' ')
        merge_cmd=$(sed -n 's/^then merge: //p' <<< "$submit")
        if [[ $rerun != *"--array=K "* ]] || [ -z "$merge_cmd" ]; then
            fail "cluster grading: submit.sh prints how to rerun a shard and merge" "$(tail -n 4 <<< "$submit" | tr '\n' ' ')"
        else
            run_capture "cluster grading: the printed rerun of shard 1" env SLURM_CONF="$cluster_conf" bash -c "${rerun/--array=K /--array=1 }"
            job=$(sed -n 's/^Submitted batch job \([0-9]*\).*/\1/p' <<< "$out")
            if [ "$rc" -ne 0 ] || [ -z "$job" ]; then
                fail "cluster grading: the rerun command submit.sh printed" "exit $rc: $(printf '%s\n%s' "$out" "$err" | tail -n 2 | tr '\n' ' ')"
            elif ! cluster_wait_job "$job" || [ "$(cluster_field JobState)" != COMPLETED ]; then
                fail "cluster grading: the rerun command submit.sh printed" "${cluster_job:0:300}"
            else
                run_capture "cluster grading: the printed merge" env BUILD="$BUILD" ARCH="$arch" bash -c "$merge_cmd"
                d=$(cluster_differences "$dir/single" "$dir/cancelled/class" | head -n 3 | tr '\n' ' ')
                if [ "$rc" -ne 0 ]; then fail "cluster grading: the printed rerun and merge give the single run's files" "merge: exit $rc: $(tail -n 2 <<< "$err" | tr '\n' ' ')"
                elif [ -n "$d" ]; then fail "cluster grading: the printed rerun and merge give the single run's files" "$d"
                elif ls "$dir"/cancelled/logs/shard-1-"$job".out > /dev/null 2>&1; then pass "cluster grading: the printed rerun and merge give the single run's files"
                else fail "cluster grading: the printed rerun and merge give the single run's files" "the rerun's log is not in $dir/cancelled/logs/"; fi
            fi
        fi
    fi
}

# cluster_left_nothing: part 3, the cluster stopped, and nothing of it left.
cluster_left_nothing() {
    local left listen
    local strays_tmp=$cluster_tmp ports="$cluster_ctld_port $cluster_slurmd_port"
    cluster_stop
    cluster_tmp=$strays_tmp cluster_conf=$strays_tmp/slurm.conf
    left=$(cluster_strays | tr '\n' ' ')
    cluster_tmp=""
    listen=$(cluster_listeners $ports)
    if [ -z "$left" ] && [ -z "$listen" ] && [ ! -e "$strays_tmp" ]; then
        pass "cluster grading: the cluster is stopped and nothing of it is left (processes, ports, $strays_tmp)"
    else
        fail "cluster grading: the cluster is stopped and nothing of it is left" "processes: ${left:-none}; listening: ${listen:-none}"
    fi
}

cluster_suite() {
    local dir seed=5151 missing="" tool started arch saved_exit saved_int saved_term saved_hup listen

    if [ ! -f solutions/01-vector-add/vector_add.cu ] || [ ! -x grading/grade ]; then
        skip "cluster grading" "needs the grader and lab 01's reference solution (not in the student edition)"
        return
    fi
    if [ "$(id -u)" -ne 0 ]; then
        skip "cluster grading" "the SLURM daemons and their jobs run as root: run it as root (sudo make test-cluster)"
        return
    fi
    # The daemons are in /usr/sbin, which a root shell may not have on its PATH.
    local -x PATH=$PATH:/usr/sbin:/sbin
    for tool in munged munge unmunge slurmctld slurmd sbatch squeue scontrol scancel sinfo setsid; do
        command -v "$tool" > /dev/null || missing="$missing $tool"
    done
    lacks_tools "cluster grading (SLURM)" cluster "$missing" && return
    command -v patch > /dev/null || { fail "cluster grading" "the class is made with GNU patch (Debian package patch)"; return; }
    started=$SECONDS

    dir=$(mkdir -p "$BUILD/test-logs" && cd "$BUILD/test-logs" && pwd)/cluster
    cluster_class "$dir" || return

    # One ARCH for everything here (what make picks), so that submit.sh builds nothing new.
    arch=${ARCH:-$(make -s --no-print-directory arch BUILD="$BUILD" 2> /dev/null | sed -n 's/^ARCH=\(.*\) -> .*/\1/p')}
    # Built before the cluster starts, so that no wait below includes the build.
    expect "cluster grading: the grader and lab 01's trusted programs build" 0 '' \
        env BUILD="$BUILD" ARCH="$arch" make -s --no-print-directory grader grading-info LAB=01 BUILD="$BUILD"
    [ "$rc" -eq 0 ] || return
    expect "cluster grading: the class graded in one run (the reference for the cluster's)" 0 'results: ' \
        env BUILD="$BUILD" ARCH="$arch" grading/grade --lab 01 --compile-only --seed "$seed" --out "$dir/single" "$dir/submissions"
    [ "$rc" -eq 0 ] || return

    # From here on the cluster runs: it is stopped on every way out (return, exit, Ctrl-C, kill).
    cluster_stop_on_exit "$dir"

    # The whole cluster part, jobs and commands, has CLUSTER_WAIT seconds; a command 60 at most.
    cluster_deadline=$((SECONDS + ${CLUSTER_WAIT:-240}))
    local RUN_TIMEOUT=60
    if ! cluster_start; then
        fail "cluster grading: a one-node SLURM cluster starts" "$cluster_error (logs: $cluster_logs/)"
    else
        pass "cluster grading: a one-node SLURM cluster starts (slurmctld port $cluster_ctld_port, slurmd port $cluster_slurmd_port, 3 stand-in GPUs)"
        listen=$(cluster_listeners "$cluster_ctld_port" "$cluster_slurmd_port" | sort -u | tr '\n' ' ')
        if [ "$listen" = "0100007F " ]; then pass "cluster grading: the daemons listen on 127.0.0.1 only"
        else fail "cluster grading: the daemons listen on 127.0.0.1 only" "listening addresses (hex): ${listen:-none}"; fi

        cluster_submit_class "$dir" "$arch" "$seed"
        cluster_cancelled_shard "$dir" "$arch" "$seed"
    fi
    cluster_left_nothing
    cluster_restore_traps
    say "cluster grading: $((SECONDS - started)) s"
}

cluster_suite
