# Lab 02 (pitched 2D): the prologue shows the pitch chosen for several widths and types.
expect "sol02 shows the pitches cudaMallocPitch chose" 0 'The pitch cudaMallocPitch chose' ./sol02 --size 3x5
