# The times the handouts predict for GPUs nobody measured (sourced by tests/run_tests.sh; also
# runs on its own: `bash tests/suites/predictions.sh`). No GPU needed. The model of
# handouts/tools/predictions.py on made-up runs whose answer is known (a row bound by memory, by
# arithmetic, by each on one GPU, rows without counts, a GPU without figures, a lab bound by the
# host link), then every lab's generated results: a table for each GPU of handouts/data/gpus.json
# to predict, marked as predictions (lab 06: its note alone).

if ! declare -F expect > /dev/null; then
    . "$(dirname "${BASH_SOURCE[0]}")/../standalone.sh"
fi

predictions_gen=$(mktemp -d "${TMPDIR:-/tmp}/cudalabs-predictions.XXXXXX")
expect "predictions: the model on runs whose answer is known" 0 '' \
    python3 tests/tools/check_predictions.py model
expect "predictions: the results of every lab are generated" 0 '' \
    python3 handouts/tools/results.py --bench-dir bench/results --out "$predictions_gen" \
    01 02 03 04 05 06 07 08 09 10 11 12 13
expect "predictions: every lab with counts has its table for each GPU to predict, marked" 0 '' \
    python3 tests/tools/check_predictions.py handouts "$predictions_gen"
rm -rf "$predictions_gen"
