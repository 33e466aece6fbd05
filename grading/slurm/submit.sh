#!/usr/bin/env bash
# Grades a class on a SLURM cluster: N shards as a job array (one GPU each), then a merge job
# that runs once they have all ended, whatever their fate (grading/DESIGN.md, "Grading on a SLURM
# cluster").
#   grading/slurm/submit.sh LAB SUBMISSIONS OUT [N]      (N: 4 by default)
# OUT gets shard-0/ ... shard-(N-1)/, logs/, and the merged class in OUT/class/.
# GRADE_SEED: the seed (default: a fresh one, printed). GRADE_OPTIONS: more grading/grade
# options (e.g. --compile-only). sbatch's own variables choose the rest (SBATCH_PARTITION,
# SBATCH_ACCOUNT, SBATCH_TIMELIMIT...; SBATCH_GRES=none for --compile-only on nodes without GPUs).
# ARCH: the GPU architectures to build for (default multi: every GPU from 7.5 on).
set -euo pipefail
[ $# -ge 3 ] && [ $# -le 4 ] || { echo "usage: grading/slurm/submit.sh LAB SUBMISSIONS OUT [N]" >&2; exit 2; }
root=$(cd "$(dirname "$0")/../.." && pwd)
lab=$1 n=${4:-4}
[[ $n =~ ^[1-9][0-9]*$ ]] || { echo "submit: N must be a positive number, not '$n'" >&2; exit 2; }
[ -e "$2" ] || { echo "submit: no such file or folder: $2" >&2; exit 2; }
command -v sbatch > /dev/null || { echo "submit: no sbatch here: run this on a SLURM login node" >&2; exit 2; }
subs=$(cd "$(dirname "$2")" && pwd)/$(basename "$2")
mkdir -p "$3/logs"
out=$(cd "$3" && pwd)
seed=${GRADE_SEED:-$(( (RANDOM << 15 | RANDOM) % 2147483646 + 1 ))}
# Built once here, so that the tasks find everything up to date (and do not build one folder at once).
# One ARCH for every node: left to itself, make picks the GPU of the machine it runs on (none on a
# login node, another on each kind of node), and every task would rebuild the shared build folder
# at once for its own GPU. multi runs on every GPU from compute capability 7.5 on.
export BUILD=${BUILD:-build} ARCH=${ARCH:-multi}
if ! command -v nvcc > /dev/null && [ -x /usr/local/cuda/bin/nvcc ]; then export PATH="$PATH:/usr/local/cuda/bin"; fi
make -s --no-print-directory -C "$root" grader grading-info LAB="$lab" BUILD="$BUILD" > /dev/null
export GRADE_ROOT=$root GRADE_LAB=$lab GRADE_SUBMISSIONS=$subs GRADE_OUT=$out GRADE_SEED=$seed GRADE_SHARDS=$n
export GRADE_OPTIONS=${GRADE_OPTIONS:-}
array=$(sbatch --parsable --array=0-$((n - 1)) --export=ALL --output="$out/logs/shard-%a-%A.out" "$root/grading/slurm/grade-array.sbatch")
array=${array%%;*}
# q WORD: WORD quoted for a shell (the merge job's /bin/sh, the commands printed below).
q() { printf '%q' "$1"; }
merge=$(sbatch --parsable --dependency=afterany:"$array" --job-name=grade-merge --ntasks=1 --export=ALL \
    --output="$out/logs/merge-%j.out" --wrap "$(q "$root/grading/grade") merge $(q "$out/class") $(q "$out")/shard-*")
merge=${merge%%;*}
cat << MSG
lab $lab: $n shards (job array $array), merge (job $merge) into $out/class; seed $seed
logs: $out/logs/
rerun shard K (one that failed): GRADE_ROOT=$(q "$root") GRADE_LAB=$(q "$lab") GRADE_SUBMISSIONS=$(q "$subs") GRADE_OUT=$(q "$out") \\
  GRADE_SEED=$seed GRADE_SHARDS=$n GRADE_OPTIONS=$(q "$GRADE_OPTIONS") BUILD=$(q "$BUILD") ARCH=$(q "$ARCH") \\
  sbatch --array=K --export=ALL --output=$(q "$out/logs")/shard-%a-%A.out $(q "$root/grading/slurm/grade-array.sbatch")
then merge: $(q "$root/grading/grade") merge $(q "$out/class") $(q "$out")/shard-*
MSG
