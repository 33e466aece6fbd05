# Lab 04 (constant memory): a table larger than the 64 KB of constant memory is a usage error
# with a readable reason, and a run prints how the constant variants compare with global memory
# (the contrasts after the table).
expect "sol04 refuses coefficients that exceed 64 KB of constant memory" 2 \
    'error: .*more than the 64 KB' ./sol04 --size 1000x513
expect "sol04 compares constant and global memory" 0 \
    '^Coefficients from __constant__, same address in every lane: constant over global$' \
    ./sol04 --size 100000x64
