#!/usr/bin/env python3
"""bench/targets.json holds what the built programs declare: exits 0 when NOW (bench/targets.py
snapshot of ./solNN) differs from SAVED for no lab, else names the labs and how to refresh it.

  check_targets_snapshot.py NOW.json bench/targets.json      (run in the course tree)

Called by the bench suite.
"""
import json, sys
sys.path.insert(0, "bench")
from targets import stale
now, saved = (json.load(open(p)) for p in sys.argv[1:])
bad = [nn for nn in now if stale(saved, nn, now[nn])]
sys.exit(print("differs for lab(s) " + " ".join(bad) + ": python3 bench/targets.py snapshot ./sol* > bench/targets.json") if bad else 0)
