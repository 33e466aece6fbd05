# Lab 10 (matmul-shared): the bank-conflict lesson shows in the numbers -- the transposed
# [32][32] tiles are clearly slower than the same tiles padded to [32][33], in float.
run_capture "sol10 bank conflicts cost time" ./sol10 --variant conflict,padded --size 1024
ratio=$(printf '%s\n' "$out" | awk '$1 == "float" && $2 == "1024" { sub("x", "", $3); print $3 }')
if [ "$rc" -eq 0 ] && [ -n "$ratio" ] && awk -v r="$ratio" 'BEGIN { exit !(r >= 1.5) }'; then
    pass "sol10 bank conflicts cost time (conflict / padded = ${ratio}x)"
else
    fail "sol10 bank conflicts cost time" "exit $rc, conflict / padded = ${ratio:-not printed} (want >= 1.5)"
fi
