#@title Your scorecard: your run beside the reference solution's (run it after the lab's cell)
# Runs this lab at its benchmark sizes with --json and draws the card of tools/scorecard.py
# (make scorecard): each variant's ratio to its yardstick beside the reference solution's on
# every GPU it was measured on, your GPU named, the speed targets marked, the variants your run
# lacks named. Without a GPU it draws the reference's own run instead, as an example.
NN = ""
import glob, os, subprocess
from IPython.display import SVG, display

build = os.environ.get("BUILD", "build")
card = os.path.join(build, "scorecard", f"lab{NN}.svg")


def make_card(extra=""):
    result = subprocess.run(f"make -s --no-print-directory scorecard LAB={NN} {extra}", shell=True,
                            capture_output=True, text=True)
    print((result.stdout + result.stderr).rstrip())
    return result.returncode


if make_card() != 0:
    examples = sorted(glob.glob(f"reference/*.d/{NN}.json") + glob.glob(f"bench/results/*.d/{NN}.json"))
    if not examples:
        raise RuntimeError(f"no run of lab {NN} to draw: neither yours (above) nor a reference run")
    print(f"\nNo run of yours to draw (above). An example instead: the reference solution's run "
          f"in {examples[0]} (a fixture, not your GPU).")
    if make_card(f"RESULTS={examples[0]}") != 0:
        raise RuntimeError("tools/scorecard.py failed (above)")
display(SVG(filename=card))
