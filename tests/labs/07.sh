# Lab 07 (coalescing): the explanation of sectors per request before the table, and the SoA
# contrasts after it.
run_capture "sol07 explains the access patterns and compares SoA with AoS" ./sol07 --size 65537
if [ "$rc" -eq 0 ] && printf '%s\n' "$out" | grep -q '^What one warp-wide load' &&
    printf '%s\n' "$out" | grep -q '^SoA against the 16-byte AoS: soa over aos16$'; then
    pass "sol07 explains the access patterns and compares SoA with AoS"
else
    fail "sol07 explains the access patterns and compares SoA with AoS" \
        "exit $rc, explanation or contrast missing"
fi
