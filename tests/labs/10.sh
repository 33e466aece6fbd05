# Lab 10 (matmul-shared): the bank-conflict lesson shows in the numbers -- the transposed
# [32][32] tiles are clearly slower than the same tiles padded to [32][33], in float. The
# contrast after the table gives the gain of padded over conflict at each size.
run_capture "sol10 bank conflicts cost time" ./sol10 --variant conflict,padded --size 1024
ratio=$(printf '%s\n' "$out" | awk '/^Bank conflicts, float: padded over conflict$/ { on = 1; next }
    /^[^ ]/ { on = 0 } on && $1 == "1024" { sub("x$", "", $2); print $2 }')
if [ "$rc" -eq 0 ] && [ -n "$ratio" ] && awk -v r="$ratio" 'BEGIN { exit !(r >= 1.5) }'; then
    pass "sol10 bank conflicts cost time (padded over conflict = ${ratio}x)"
else
    fail "sol10 bank conflicts cost time" "exit $rc, padded over conflict = ${ratio:-not printed} (want >= 1.5)"
fi
