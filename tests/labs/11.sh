# Lab 11 (A * A^T): padding the transposed tile must at least halve the time at 2048 x 2048
# with 32 x 32 tiles (the lab's target on an H100 or H200). The contrast after the table gives
# the gain of padded over unpadded at each size.
run_capture "sol11 padded at least 2x unpadded" ./sol11 --variant unpadded,padded --size 2048
ratio=$(printf '%s\n' "$out" | awk '/^Padding, 32 x 32 tiles: padded over unpadded$/ { on = 1; next }
    /^[^ ]/ { on = 0 } on && $1 == "2048" { sub("x$", "", $2); print $2 }')
if [ "$rc" -eq 0 ] && [ -n "$ratio" ] && awk -v r="$ratio" 'BEGIN { exit !(r >= 2.0) }'; then
    pass "sol11 padded at least 2x unpadded (${ratio}x)"
else
    fail "sol11 padded at least 2x unpadded" "exit $rc, padded over unpadded = ${ratio:-not printed} (want >= 2)"
fi
