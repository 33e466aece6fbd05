# Lab 06 (transfers): the bar chart of the sweep. (Sizes the host cannot pin are refused by
# host_memory_problem, unit-tested in tests/unit/test_lab06.cpp.)
expect "sol06 draws its bar chart" 0 'Round-trip rate, GB/s' ./sol06 --size 1000,1048576
