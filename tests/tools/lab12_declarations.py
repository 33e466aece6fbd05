#!/usr/bin/env python3
"""Two changed copies of lab 12's declaration (./sol12 --describe), each as DIR/NAME/12.json:
extra, with a rung on top of the ladder that nothing else names (and the step targets the driver
gives it); dropped, with the top rung (fast) dropped and the first target changed.

  lab12_declarations.py 12.json DIR

Called by the lab_data suite.
"""
import copy, json, os, sys
d = json.load(open(sys.argv[1]))
# A rung on top of the ladder, with the step targets the driver gives it: nothing else names it.
extra = copy.deepcopy(d)
extra["variants"].append({"name": "extra", "description": "a new rung", "yardstick": False, "compare_with": "", "element": ""})
extra["targets"].append({"variant": "extra", "size": "4096", "min_ratio": 1.0, "against": "fast"})
# The top rung dropped (the rubric and the hints name it) and a listed target changed.
dropped = copy.deepcopy(d)
dropped["variants"] = [v for v in d["variants"] if v["name"] != "fast"]
dropped["targets"][0]["min_ratio"] += 0.01
for name, desc in (("extra", extra), ("dropped", dropped)):
    os.makedirs(os.path.join(sys.argv[2], name), exist_ok=True)
    json.dump(desc, open(os.path.join(sys.argv[2], name, "12.json"), "w"))
