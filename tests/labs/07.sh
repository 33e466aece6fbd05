# Lab 07 (coalescing): the explanation of sectors per request and the SoA comparison.
expect "sol07 explains the access patterns and compares SoA with AoS" 0 \
    'What one warp-wide load.*|SoA speed-up' ./sol07 --size 65537
