#@title Course files and GPU check: run this cell first (you need not read it)
# Writes the lab's course files (the harness, the lab's driver, interface and CPU reference, the
# Makefile, and the tools of make check, make profileNN and make scorecard) into the folder
# cudalabs/ and works there; your own file comes from the cell below.
# REPO_URL: empty, the files carried by this notebook are used. A course that hosts its
# repository may set it to a git address, or to a .zip or .tar.gz of the course (a top folder
# inside the archive is fine).
REPO_URL = ""
COURSE_FILES = ""
import base64, io, os, shutil, stat, subprocess, tarfile, tempfile, urllib.request, zipfile


def unpack_archive(data, dest):
    """A zip or tar archive into dest, executable bits kept; a single top folder is dropped."""
    tmp = tempfile.mkdtemp()
    if data[:2] == b"PK":
        with zipfile.ZipFile(io.BytesIO(data)) as z:
            for info in z.infolist():
                path = z.extract(info, tmp)
                mode = info.external_attr >> 16
                if mode and not info.is_dir():
                    os.chmod(path, stat.S_IMODE(mode))
    else:
        with tarfile.open(fileobj=io.BytesIO(data)) as t:
            t.extractall(tmp, **({"filter": "data"} if hasattr(tarfile, "data_filter") else {}))
    entries = os.listdir(tmp)
    top = os.path.join(tmp, entries[0]) if len(entries) == 1 else tmp
    if not os.path.isdir(top):
        top = tmp
    shutil.copytree(top, dest, dirs_exist_ok=True)
    shutil.rmtree(tmp)


def run(command):
    """A shell command, its output shown in the notebook; returns its exit status."""
    result = subprocess.run(command, shell=True, capture_output=True, text=True)
    print((result.stdout + result.stderr).rstrip())
    return result.returncode


def fetch_course(dest):
    if not REPO_URL:
        unpack_archive(base64.b64decode(COURSE_FILES), dest)
    elif REPO_URL.split("?")[0].endswith((".zip", ".tar.gz", ".tgz")):
        with urllib.request.urlopen(REPO_URL) as response:
            unpack_archive(response.read(), dest)
    else:
        if run(f"git clone --depth 1 '{REPO_URL}' '{dest}'") != 0:
            raise RuntimeError(f"git clone of {REPO_URL} failed (above): check REPO_URL")


def in_course(folder):
    return os.path.isfile(os.path.join(folder, "Makefile")) and os.path.isdir(os.path.join(folder, "labs"))


if not in_course("."):
    if not in_course("cudalabs"):
        fetch_course("cudalabs")
    os.chdir("cudalabs")
print("Course folder:", os.getcwd())
if run("nvidia-smi -L") != 0:
    print("No GPU in this runtime: the lab builds, but runs only on a GPU (on Colab: Runtime ->"
          " Change runtime type -> a GPU such as T4, then run this cell again).")
# make check audits your file as the grader does (grading/audit), which builds with nlohmann-json.
if not os.path.isfile("/usr/include/nlohmann/json.hpp") and shutil.which("apt-get") and os.geteuid() == 0:
    run("(apt-get -qq update && apt-get -qq install -y nlohmann-json3-dev) > /dev/null 2>&1"
        " || echo 'nlohmann-json3-dev could not be installed: make check will say its audit was not run.'")
if shutil.which("nvcc"):
    run("nvcc --version | tail -n 2")
else:
    print("nvcc not found: this notebook needs the CUDA Toolkit (Colab's GPU runtimes have it).")
