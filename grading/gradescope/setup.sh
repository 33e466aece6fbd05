#!/usr/bin/env bash
# Gradescope runs this once, as root, when it builds the autograder's image (Gradescope's
# specification: setup.sh at the root of the autograder zip, unpacked into /autograder/source).
# It installs what the grader needs (bubblewrap, in tools/deps/grading.txt, is the sandbox: the
# container must allow it user namespaces, else every run stops with the sentence that says so) and builds the grader and the lab's trusted programs, so
# that each submission only compiles the student's file. Gradescope's machines have no GPU: the
# autograder there builds and audits (grading/DESIGN.md, "Gradescope").
#   CUDA_VERSION=13-0 bash setup.sh     another CUDA Toolkit from NVIDIA's repository (default 12-8)
set -euo pipefail
cd "$(dirname "$0")"
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
# The grader's packages (tools/deps/core.txt and grading.txt), and what fetches the toolkit.
apt-get install -y -qq --no-install-recommends $(sed 's/#.*//' tools/deps/core.txt tools/deps/grading.txt) \
    ca-certificates wget python3 > /dev/null
# The CUDA Toolkit from NVIDIA's repository for this distribution (ubuntu2204, ubuntu2404,
# debian12, ...), without a driver.
if ! command -v nvcc > /dev/null && [ ! -x /usr/local/cuda/bin/nvcc ]; then
    . /etc/os-release
    repo="${ID}${VERSION_ID//./}"
    wget -q "https://developer.download.nvidia.com/compute/cuda/repos/$repo/$(uname -m | sed 's/aarch64/sbsa/')/cuda-keyring_1.1-1_all.deb"
    dpkg -i cuda-keyring_1.1-1_all.deb > /dev/null
    rm -f cuda-keyring_1.1-1_all.deb
    apt-get update -qq
    apt-get install -y -qq --no-install-recommends "cuda-toolkit-${CUDA_VERSION:-12-8}" > /dev/null
fi
bash ./run_autograder --prepare
