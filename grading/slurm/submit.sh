#!/usr/bin/env bash
# Grades a class on a SLURM cluster: N shards as a job array (one GPU each), then a merge job
# that runs once they have all ended, whatever their fate (grading/README.md, "Grading on a SLURM
# cluster").
#   grading/slurm/submit.sh LAB SUBMISSIONS OUT [N]      (N: 4 by default)
# OUT gets shard-0/ ... shard-(N-1)/, logs/, and the merged class in OUT/class/.
# GRADE_SEED: the seed (default: a fresh one, printed). GRADE_OPTIONS: more grading/grade
# options (e.g. --compile-only). sbatch's own variables choose the rest (SBATCH_PARTITION,
# SBATCH_ACCOUNT, SBATCH_TIMELIMIT...).
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
export BUILD=${BUILD:-build}
if ! command -v nvcc > /dev/null && [ -x /usr/local/cuda/bin/nvcc ]; then export PATH="$PATH:/usr/local/cuda/bin"; fi
make -s --no-print-directory -C "$root" grader grading-info LAB="$lab" BUILD="$BUILD" > /dev/null
export GRADE_ROOT=$root GRADE_LAB=$lab GRADE_SUBMISSIONS=$subs GRADE_OUT=$out GRADE_SEED=$seed GRADE_SHARDS=$n
export GRADE_OPTIONS=${GRADE_OPTIONS:-}
array=$(sbatch --parsable --array=0-$((n - 1)) --export=ALL --output="$out/logs/shard-%a-%A.out" "$root/grading/slurm/grade-array.sbatch")
array=${array%%;*}
merge=$(sbatch --parsable --dependency=afterany:"$array" --job-name=grade-merge --ntasks=1 --export=ALL \
    --output="$out/logs/merge-%j.out" --wrap "\"$root/grading/grade\" merge \"$out/class\" \"$out\"/shard-*")
merge=${merge%%;*}
cat << MSG
lab $lab: $n shards (job array $array), merge (job $merge) into $out/class; seed $seed
logs: $out/logs/
rerun shard K (one that failed): GRADE_ROOT=$root GRADE_LAB=$lab GRADE_SUBMISSIONS=$subs GRADE_OUT=$out \\
  GRADE_SEED=$seed GRADE_SHARDS=$n GRADE_OPTIONS="$GRADE_OPTIONS" BUILD=$BUILD sbatch --array=K --export=ALL $root/grading/slurm/grade-array.sbatch
then merge: $root/grading/grade merge $out/class $out/shard-*
MSG
