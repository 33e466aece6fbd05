#!/usr/bin/env python3
"""Runs a lab's notebook the way a student does, top to bottom in a real Jupyter kernel, in a
fresh folder, until the cell that builds and runs the lab; for tests/suites/notebooks.sh.

  run_notebook.py NOTEBOOK.ipynb WORKDIR [--expect-exit N] [--expect-text TEXT]

Only Colab's own module (google.colab) is replaced, by an empty stand-in: everything else is
the notebook's real code (the setup cell writes the course files, the %%writefile cell the
student's file, `!make labNN && ./labNN` builds with the project's Makefile; ARCH and BUILD
from the environment reach make). Checks, each failure printed with its reason (exit 1):
  - no cell ends in a Python error;
  - the setup cell names the course folder, and the lab's files are there;
  - the build-and-run cell is reached, the lab's program exits with --expect-exit (default 77,
    no GPU) and its output's last line holds --expect-text (default "no usable CUDA GPU");
  - then the scorecard cell (the notebook's last) runs and shows an SVG scorecard of the lab
    inline: without a GPU (exit 77), drawn from a reference run carried by the notebook (a
    fixture), and saying so.
Needs nbclient and ipykernel (Debian: python3-nbclient python3-ipykernel).
"""
import argparse
import os
import re
import sys
import time


def outputs_text(cell):
    text = []
    for out in cell.get("outputs", []):
        if out.get("output_type") == "stream":
            text.append(out.get("text", ""))
        elif out.get("output_type") in ("execute_result", "display_data"):
            text.append(out.get("data", {}).get("text/plain", ""))
        elif out.get("output_type") == "error":
            text.append(f"{out.get('ename')}: {out.get('evalue')}")
    return "".join(text)


def colab_stand_in(folder):
    """An importable google.colab that does nothing: a notebook must not need it to run."""
    pkg = os.path.join(folder, "google", "colab")
    os.makedirs(pkg, exist_ok=True)
    open(os.path.join(folder, "google", "__init__.py"), "w").close()
    with open(os.path.join(pkg, "__init__.py"), "w") as f:
        f.write('"""Stand-in for Colab\'s module in tests: using it is an error."""\n'
                "def __getattr__(name):\n"
                "    raise RuntimeError(f'google.colab.{name} used: the notebook needs Colab')\n")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("notebook")
    ap.add_argument("workdir")
    ap.add_argument("--expect-exit", type=int, default=77)
    ap.add_argument("--expect-text", default="no usable CUDA GPU")
    ap.add_argument("--timeout", type=int, default=900, help="seconds per cell")
    args = ap.parse_args()

    import nbformat
    from nbclient import NotebookClient
    from nbclient.exceptions import CellExecutionError

    nb = nbformat.read(args.notebook, as_version=4)
    nn = re.search(r"(\d\d)-[^/]*\.ipynb$", args.notebook)
    if not nn:
        sys.exit(f"run_notebook.py: {args.notebook} is not named NN-topic.ipynb")
    nn = nn.group(1)
    os.makedirs(args.workdir, exist_ok=True)
    stub = os.path.join(args.workdir, ".stand-ins")
    colab_stand_in(stub)
    env = dict(os.environ)
    env["PYDEVD_DISABLE_FILE_VALIDATION"] = "1"  # ipykernel's debugger warns about frozen modules
    env["PYTHONPATH"] = stub + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    kernel_dir = os.path.join(args.workdir, "content")  # Colab's working folder is /content
    os.makedirs(kernel_dir, exist_ok=True)

    client = NotebookClient(nb, timeout=args.timeout, kernel_name="python3",
                            resources={"metadata": {"path": kernel_dir}})
    problems, ran, run_cell, exit_code = [], [], None, None
    started = time.time()
    with client.setup_kernel(env=env, cwd=kernel_dir):
        for index, cell in enumerate(nb.cells):
            if cell.cell_type != "code":
                continue
            try:
                client.execute_cell(cell, index)
            except CellExecutionError as e:
                problems.append(f"cell {index} ({cell.metadata.get('cudalabs', 'code')}) ends in a "
                                f"Python error: {str(e).strip().splitlines()[-1]}")
                break
            ran.append(index)
            if cell.metadata.get("cudalabs") == "run" and f"./lab{nn}" in cell.source:
                run_cell = cell
                probe = nbformat.v4.new_code_cell("print('exit code', _exit_code)")
                nb.cells.append(probe)
                client.execute_cell(probe, len(nb.cells) - 1)
                m = re.search(r"exit code (-?\d+)", outputs_text(probe))
                exit_code = int(m.group(1)) if m else None
                break
        cards = [i for i, c in enumerate(nb.cells) if c.get("metadata", {}).get("cudalabs") == "scorecard"]
        if run_cell is not None and not problems:
            if not cards:
                problems.append("no scorecard cell (cudalabs: scorecard)")
            else:
                card = nb.cells[cards[0]]
                try:
                    client.execute_cell(card, cards[0])
                except CellExecutionError as e:
                    problems.append(f"the scorecard cell ends in a Python error: {str(e).strip().splitlines()[-1]}")
                svgs = [o.get("data", {}).get("image/svg+xml", "") for o in card.get("outputs", [])
                        if o.get("output_type") == "display_data"]
                svg = "".join(svgs if isinstance(svgs[0] if svgs else "", str) else ["".join(x) for x in svgs])
                if f'data-lab="{nn}"' not in svg:
                    problems.append("the scorecard cell shows no scorecard SVG of the lab: "
                                    + outputs_text(card).strip()[-200:])
                elif args.expect_exit == 77 and "An example instead" not in outputs_text(card):
                    problems.append("without a GPU the scorecard cell does not say its card is an example")
                else:
                    print(f"scorecard shown inline ({len(svg)} characters of SVG)")
    setup = next((c for c in nb.cells if c.get("metadata", {}).get("cudalabs") == "setup"), None)
    course = os.path.join(kernel_dir, "cudalabs")
    if setup is None or "Course folder:" not in outputs_text(setup):
        problems.append("the setup cell did not name the course folder")
    elif not os.path.isfile(os.path.join(course, "Makefile")) or not os.listdir(os.path.join(course, "common")):
        problems.append(f"the setup cell wrote no course files into {course}")
    if run_cell is None:
        if not problems:
            problems.append(f"no cell runs ./lab{nn}")
    else:
        lines = [l for l in outputs_text(run_cell).splitlines() if l.strip()]
        last = lines[-1] if lines else ""
        if exit_code != args.expect_exit:
            problems.append(f"./lab{nn} exited {exit_code}, expected {args.expect_exit}: {last}")
        if args.expect_text not in last:
            problems.append(f"the lab run's last line is not the expected sentence: {last!r}")
        else:
            print(f"lab{nn} run reached: {last} (exit {exit_code})")
    print(f"{args.notebook}: {len(ran)} code cells run in {time.time() - started:.0f} s")
    for p in problems:
        print(f"{args.notebook}: {p}")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
