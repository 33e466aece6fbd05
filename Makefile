# cudalabs -- build the labs, their reference solutions and the tests.
#
#   make lab01 && ./lab01     your starter file for lab 01, with the lab's driver
#   make check LAB=01         a preview of your grade (the visible tests, at the sizes ./lab01 shows)
#   make sol01                the reference solution of lab 01, same driver
#   make all                  every starter and every solution
#   make test                 unit tests, build checks, and the GPU suite where there is a GPU
#   make test-cluster         grade a class through grading/slurm/ on a one-node SLURM cluster (root)
#   make bench                every solution's benchmark sizes; JSON + Markdown in bench/results/
#   make help                 this list, with the labs
#
# The GPU architecture: the visible GPU's own where nvidia-smi reports one that this nvcc
# supports, else a portable set (sm_75 sm_80 sm_86 sm_89 sm_90 + compute_90 PTX, which the
# driver compiles for newer GPUs). Override: make ARCH=sm_90, make ARCH="sm_75 sm_86",
# make ARCH=native, make ARCH=multi. A change of ARCH or flags rebuilds what that compiler built.

SHELL := /bin/bash
.DEFAULT_GOAL := all
.SUFFIXES:

# ---- toolchain ------------------------------------------------------------------------------
NVCC_ON_PATH := $(shell command -v nvcc 2>/dev/null)
CUDA_HOME ?= $(if $(NVCC_ON_PATH),$(patsubst %/bin/nvcc,%,$(realpath $(NVCC_ON_PATH))),/usr/local/cuda)
NVCC ?= $(CUDA_HOME)/bin/nvcc
CXX := $(if $(filter default,$(origin CXX)),g++,$(CXX))
BUILD ?= build
# Without nvcc nothing CUDA builds: the goals that need it stop at once, in one sentence.
NVCC_FOUND := $(shell command -v $(NVCC) 2>/dev/null)
NVCC_GOALS := all labs solutions test test-cluster bench lab% sol% profile% grade grading-info audit-info
ifeq ($(NVCC_FOUND),)
  ifneq ($(filter $(NVCC_GOALS),$(or $(MAKECMDGOALS),$(.DEFAULT_GOAL))),)
    $(error nvcc not found (looked for $(NVCC)): install the CUDA Toolkit 12.x or 13.x (README.md, "Getting the CUDA Toolkit") or put its bin folder on PATH)
  endif
endif

# make test needs Debian packages (tools/deps/*.txt; the cluster test's are optional): a missing
# one stops it here, before anything is built, with the one command that installs them all.
# DEPS_CHECK=0 skips the check (the suites then skip what lacks its tools, and say so).
TEST_DEP_LISTS := core handouts grading release
ifneq ($(filter test,$(MAKECMDGOALS)),)
  ifneq ($(DEPS_CHECK),0)
    DEPS_MISSING := $(shell bash tools/install-deps.sh --check $(TEST_DEP_LISTS) 2>/dev/null)
    ifneq ($(DEPS_MISSING),)
      $(error make test needs Debian packages that are missing ($(DEPS_MISSING)): run  bash tools/install-deps.sh  first (or make test DEPS_CHECK=0 to skip what needs them))
    endif
  endif
endif

# ---- GPU architecture -----------------------------------------------------------------------
MULTI_ARCHS := 75 80 86 89 90
ifeq ($(origin ARCH),undefined)
  GPU_CC := $(shell nvidia-smi --query-gpu=compute_cap --format=csv,noheader 2>/dev/null | head -n1 | tr -d ' .')
  NVCC_ARCHS := $(shell $(NVCC) --list-gpu-arch 2>/dev/null)
  ARCH := $(if $(and $(GPU_CC),$(filter compute_$(GPU_CC),$(NVCC_ARCHS))),sm_$(GPU_CC),multi)
endif
ifeq ($(strip $(ARCH)),multi)
  ARCH_FLAGS := $(foreach a,$(MULTI_ARCHS),-gencode=arch=compute_$(a),code=sm_$(a)) \
                -gencode=arch=compute_90,code=compute_90
else ifeq ($(strip $(ARCH)),native)
  ARCH_FLAGS := -arch=native
else
  ARCH_FLAGS := $(foreach a,$(subst sm_,,$(subst compute_,,$(ARCH))),-gencode=arch=compute_$(a),code=sm_$(a))
endif

# ---- flags ----------------------------------------------------------------------------------
CXXSTD := -std=c++17
NVCCFLAGS ?= -O3 -lineinfo
CXXFLAGS ?= -O2
ALL_NVCCFLAGS := $(CXXSTD) $(NVCCFLAGS) $(ARCH_FLAGS) -Xcompiler -Wall -Icommon
ALL_CXXFLAGS := $(CXXSTD) $(CXXFLAGS) -Wall -Wextra -Icommon
LDLIBS := -lcublas

# Rebuild what a compiler built when its flags change: a stamp file for each compiler that changes
# only with its command line. Another nvcc or ARCH rebuilds the CUDA objects, not the host-only
# ones (the grader, the unit tests); another g++ or CXXFLAGS, the host-only ones.
NVCC_STAMP := $(BUILD)/nvcc-flags.stamp
CXX_STAMP := $(BUILD)/cxx-flags.stamp
NVCC_NOW := $(NVCC) $(ALL_NVCCFLAGS)
CXX_NOW := $(CXX) $(ALL_CXXFLAGS)
# $(call write_stamp,FILE,VARIABLE): FILE holds VARIABLE's value, rewritten only when it differs.
write_stamp = $(shell mkdir -p $(BUILD) && { [ -f $(1) ] && [ "$$(cat $(1))" = '$($(2))' ] || echo '$($(2))' > $(1); })
$(call write_stamp,$(NVCC_STAMP),NVCC_NOW)
$(call write_stamp,$(CXX_STAMP),CXX_NOW)

# ---- the shared harness ---------------------------------------------------------------------
COMMON_HOST_SRC := common/args.cpp common/shape.cpp common/validate.cpp common/stats.cpp common/report.cpp common/todo_hint.cpp \
                   common/run_hooks.cpp
COMMON_CUDA_SRC := $(wildcard common/*.cu)
COMMON_OBJS := $(COMMON_HOST_SRC:%.cpp=$(BUILD)/%.o) $(COMMON_CUDA_SRC:%.cu=$(BUILD)/%.o)

$(BUILD)/common/%.o: common/%.cpp $(CXX_STAMP)
	@mkdir -p $(@D)
	$(CXX) $(ALL_CXXFLAGS) -MMD -MP -c $< -o $@

$(BUILD)/common/%.o: common/%.cu $(NVCC_STAMP)
	@mkdir -p $(@D)
	$(NVCC) $(ALL_NVCCFLAGS) -MMD -MP -c $< -o $@

# ---- the labs -------------------------------------------------------------------------------
# Each labs/NN-topic/ holds driver.cu (main, data, checks), TOPIC.h (the interface), TOPIC.cu (the
# student's file) and optional host-only *.cpp; solutions/NN-topic/TOPIC.cu is the reference.
LAB_DIRS := $(sort $(wildcard labs/[0-9][0-9]-*))
# The student edition (make release) has no solutions/: no solNN targets there.
HAVE_SOLUTIONS := $(wildcard solutions)
LAB_NUMS := $(foreach d,$(LAB_DIRS),$(firstword $(subst -, ,$(notdir $(d)))))
lab_dir = $(filter labs/$(1)-%,$(LAB_DIRS))
lab_student = $(filter-out $(1)/driver.cu,$(wildcard $(1)/*.cu))

# $(1) = NN, $(2) = labs/NN-topic, $(3) = student file name
define LAB_RULES
$(BUILD)/$(1)/driver.o: $(2)/driver.cu $(NVCC_STAMP)
	@mkdir -p $$(@D)
	$(NVCC) $(ALL_NVCCFLAGS) -I$(2) -DCUDALABS_LAB_NAME='"$(notdir $(2))"' -MMD -MP -c $$< -o $$@

$(BUILD)/$(1)/%.o: $(2)/%.cpp $(CXX_STAMP)
	@mkdir -p $$(@D)
	$(CXX) $(ALL_CXXFLAGS) -I$(2) -MMD -MP -c $$< -o $$@

$(BUILD)/lab$(1)/student.o: $(2)/$(3) $(NVCC_STAMP)
	@mkdir -p $$(@D)
	$(NVCC) $(ALL_NVCCFLAGS) -I$(2) -MMD -MP -c $$< -o $$@

$(BUILD)/sol$(1)/student.o: solutions/$(notdir $(2))/$(3) $(NVCC_STAMP)
	@mkdir -p $$(@D)
	$(NVCC) $(ALL_NVCCFLAGS) -I$(2) -MMD -MP -c $$< -o $$@

$(BUILD)/lab$(1)/student_source.o $(BUILD)/sol$(1)/student_source.o: common/student_source.cpp $(CXX_STAMP)
	@mkdir -p $$(@D)
	$(CXX) $(ALL_CXXFLAGS) -c $$< -o $$@ \
	  -DSTUDENT_SOURCE_PATH='"$$(abspath $$(if $$(findstring /lab$(1)/,$$@),$(2),solutions/$(notdir $(2))))/$(3)"' \
	  -DSTUDENT_SOURCE_DISPLAY='"$$(if $$(findstring /lab$(1)/,$$@),$(2),solutions/$(notdir $(2)))/$(3)"'

LAB$(1)_HOST_OBJS := $(patsubst $(2)/%.cpp,$(BUILD)/$(1)/%.o,$(wildcard $(2)/*.cpp))

lab$(1) $(if $(HAVE_SOLUTIONS),sol$(1)): %$(1): $(BUILD)/$(1)/driver.o $(BUILD)/%$(1)/student.o $(BUILD)/%$(1)/student_source.o $$(LAB$(1)_HOST_OBJS) $(COMMON_OBJS)
	$(NVCC) $(ARCH_FLAGS) -o $$@ $$^ $(LDLIBS)
endef
$(foreach n,$(LAB_NUMS),$(eval $(call LAB_RULES,$(n),$(call lab_dir,$(n)),$(notdir $(call lab_student,$(call lab_dir,$(n)))))))

LAB_PROGRAMS := $(addprefix lab,$(LAB_NUMS))
SOL_PROGRAMS := $(if $(HAVE_SOLUTIONS),$(addprefix sol,$(LAB_NUMS)))
ifeq ($(HAVE_SOLUTIONS),)
sol%:
	@echo "make $@: this is the student edition, without the reference solutions" >&2; exit 2
endif

# ---- parts with their own make fragments (handouts/handouts.mk, grading/grading.mk) ----------
# A fragment may add targets, and host-only objects for the unit tests to UNIT_EXTRA_OBJS.
UNIT_EXTRA_OBJS :=
UNIT_EXTRA_FLAGS :=
# grading/audit.mk first: grading/grading.mk builds on it.
-include $(wildcard grading/audit.mk) $(filter-out grading/audit.mk,$(wildcard handouts/*.mk grading/*.mk tools/*.mk))

# ---- unit tests (host-only C++, g++ and doctest) --------------------------------------------
UNIT_SRC := $(wildcard tests/unit/*.cpp)
UNIT_LAB_SRC := $(wildcard labs/*/*.cpp)
UNIT_OBJS := $(UNIT_SRC:%.cpp=$(BUILD)/%.o) $(UNIT_LAB_SRC:%.cpp=$(BUILD)/unit/%.o) \
             $(COMMON_HOST_SRC:%.cpp=$(BUILD)/%.o) $(UNIT_EXTRA_OBJS)

$(BUILD)/tests/unit/%.o: tests/unit/%.cpp $(CXX_STAMP)
	@mkdir -p $(@D)
	$(CXX) $(ALL_CXXFLAGS) -I. $(UNIT_EXTRA_FLAGS) -MMD -MP -c $< -o $@

$(BUILD)/unit/labs/%.o: labs/%.cpp $(CXX_STAMP)
	@mkdir -p $(@D)
	$(CXX) $(ALL_CXXFLAGS) -I$(dir $<) -MMD -MP -c $< -o $@

$(BUILD)/unit_tests: $(UNIT_OBJS)
	$(CXX) -o $@ $^ -pthread -ldl

# ---- top-level targets ----------------------------------------------------------------------
.PHONY: all labs solutions unit-tests test test-cluster bench clean help list-labs arch check-cuda12 scorecard

all: labs solutions
labs: $(LAB_PROGRAMS)
solutions: $(SOL_PROGRAMS)
unit-tests: $(BUILD)/unit_tests

test: all unit-tests
	+@BUILD=$(BUILD) bash tests/run_tests.sh

# Only the cluster suite (make test runs it too): a one-node SLURM cluster started in a temporary
# folder grades a class through grading/slurm/ and is stopped. Needs root and tools/deps/cluster.txt.
test-cluster:
	@[ -f tests/suites/cluster.sh ] || { echo "make test-cluster: this is the student edition, without the grader it tests" >&2; exit 2; }
	+@BUILD=$(BUILD) bash tests/suites/cluster.sh

bench: solutions labs
	@[ -n "$(HAVE_SOLUTIONS)" ] || { echo "make bench: this is the student edition, without the reference solutions it times" >&2; exit 2; }
	+@BUILD=$(BUILD) bash bench/run.sh

# make profileNN: a lab's Nsight Compute recipe, labs/NN-topic/profile.sh, on ./solNN (on your
# ./labNN in the student edition): counters said as hints (tools/profile_hints.py). PROGRAM=lab:
# on your ./labNN, each hint beside the reference's number (./solNN, where there is one). The
# script is looked for first: a lab without one builds nothing. (PROFILED is set before the
# PROGRAM ?= lab below, so that only a PROGRAM given on the command line counts.)
PROFILED := $(if $(filter undefined,$(origin PROGRAM)),$(if $(HAVE_SOLUTIONS),sol,lab),$(PROGRAM))
PROFILE_REFERENCE = $(if $(and $(HAVE_SOLUTIONS),$(filter-out sol,$(PROFILED))),sol$(1))
# The hints' table and python3 are looked for next, each missing one named; then, before ncu,
# whether the program finds a GPU: without one it says so in one sentence (exit 77).
profile%:
	@[ -f "$(call lab_dir,$*)/profile.sh" ] || { echo "lab $* has no profile.sh"; exit 2; }
	@[ -f tools/profile_hints.py ] || { echo "make profile$*: this copy of the course has no" \
	  "tools/profile_hints.py, the table the hints come from (the course's files, the student" \
	  "edition and every lab's notebook have it)" >&2; exit 2; }
	@command -v python3 > /dev/null || { echo "make profile$*: the hints need python3, which is" \
	  "not installed (sudo apt-get install python3)" >&2; exit 2; }
	+@$(MAKE) --no-print-directory $(PROFILED)$* $(call PROFILE_REFERENCE,$*)
	@$(call stop_without_gpu,profile$*,./$(PROFILED)$*)
	@bash "$(call lab_dir,$*)/profile.sh" ./$(PROFILED)$* $(addprefix ./,$(call PROFILE_REFERENCE,$*))

# $(call stop_without_gpu,GOAL,PROGRAM): where PROGRAM finds no usable CUDA GPU (exit 77 from one
# variant at its quick sizes, which opens the GPU as every run does), its one sentence, exit 77.
stop_without_gpu = rc=0; why=$$($(2) --quick --reps 1 --variant "$$($(2) --list | head -n1)" 2>&1 > /dev/null) \
	|| rc=$$?; [ $$rc -ne 77 ] || { echo "make $(1): no counters to read without a GPU; $$(printf '%s' "$$why" | tail -n1)" >&2; exit 77; }

list-labs:
	@echo $(LAB_NUMS)

# make scorecard LAB=NN: your lab's speeds beside the reference solution's on every GPU it was
# measured on, the targets marked (tools/scorecard.py): runs ./labNN --bench --json (a GPU), or
# draws RESULTS=file.json (any lab's --json output, no GPU needed). Writes
# $(BUILD)/scorecard/labNN.svg and .png. PROGRAM=sol: the reference solution's own run.
SCORECARD_PYTHON ?= python3
PROGRAM ?= lab
scorecard:
	@[ -n "$(LAB)" ] || { echo "usage: make scorecard LAB=NN [RESULTS=results.json]" >&2; exit 2; }
	@[ -n "$(call lab_dir,$(LAB))" ] || { echo "make scorecard: no lab $(LAB) (labs: $(LAB_NUMS))" >&2; exit 2; }
	@mkdir -p $(BUILD)/scorecard
	+@set -e; out=$(BUILD)/scorecard/$(PROGRAM)$(LAB); results='$(RESULTS)'; describe=""; \
	  if [ -z "$$results" ] || [ -n "$(NVCC_FOUND)" ]; then \
	    $(MAKE) --no-print-directory $(PROGRAM)$(LAB); \
	    ./$(PROGRAM)$(LAB) --describe > $$out.describe.json && describe="--describe $$out.describe.json"; \
	  fi; \
	  if [ -z "$$results" ]; then \
	    results=$$out.json; rc=0; ./$(PROGRAM)$(LAB) --bench --json $$results || rc=$$?; \
	    [ $$rc -le 1 ] || exit $$rc; \
	  fi; \
	  $(SCORECARD_PYTHON) tools/scorecard.py "$$results" --lab $(LAB) $$describe --out $$out.svg --png

# make check LAB=NN (or make checkNN): a preview of your grade (tools/grade_preview.py): builds
# ./labNN, runs the rubric's visible correctness tests at the sizes ./labNN shows, adds up their
# points, has the grader (where this copy has it) audit the file and run those tests at those
# sizes, or else the grader's audit alone (grading/audit, which the student edition and the
# notebooks carry) audit it, and names the file to hand in. The grader also uses sizes and seeds it does not show.
# Without a GPU: the build and the audit only, the rules named, one sentence that the tests need a
# GPU; exit 77 (1 where the audit refuses the file).
define check_recipe
@[ -n "$(1)" ] || { echo "usage: make check LAB=NN (or make checkNN)" >&2; exit 2; }
@[ -n "$(call lab_dir,$(1))" ] || { echo "make check: no lab $(1) (labs: $(LAB_NUMS))" >&2; exit 2; }
@[ -f tools/grade_preview.py ] && { [ -f grading/rubrics/$(1).rubric ] || [ -f tools/preview/$(1).tests ]; } || { echo "make check: this copy has no tools/grade_preview.py, or no tests of lab $(1) to preview with" >&2; exit 2; }
+@$(MAKE) --no-print-directory $(PROGRAM)$(1)
@BUILD='$(BUILD)' ARCH='$(ARCH)' $(SCORECARD_PYTHON) tools/grade_preview.py --lab $(1) --program ./$(PROGRAM)$(1)
endef
.PHONY: check
check:
	$(call check_recipe,$(LAB))
check%:
	$(call check_recipe,$*)

# Everything built with a CUDA 12 toolkit (students' Colab and clusters run 12.x): CUDA12_HOME,
# or Debian's nvidia-cuda-toolkit 12.4 fetched into $(BUILD)/cuda12 (tools/check-cuda12.sh).
check-cuda12:
	@[ -f tools/check-cuda12.sh ] || { echo "make check-cuda12: a tool of the full tree, not of the student edition" >&2; exit 2; }
	+@BUILD=$(BUILD) bash tools/check-cuda12.sh

arch:
	@echo "nvcc: $(if $(NVCC_FOUND),$(NVCC_FOUND),not found (looked for $(NVCC)))$(if $(NVCC_FOUND),$$($(NVCC) --version | sed -n 's/.*release \([0-9.]*\).*/ (CUDA \1)/p'))"
	@echo "CUDA_HOME=$(CUDA_HOME) ($(if $(filter environment% command%,$(origin CUDA_HOME)),set in the $(origin CUDA_HOME): it wins over the nvcc on PATH,$(if $(NVCC_ON_PATH),from the nvcc on PATH,the default: no nvcc on PATH)))"
	@echo "ARCH=$(ARCH) -> $(ARCH_FLAGS)"

clean:
	rm -rf $(BUILD) $(LAB_PROGRAMS) $(SOL_PROGRAMS)

# make new-lab NN=14 NAME=topic: a new lab from tools/new-lab/template/ (starter, solution,
# driver, rubric, handout; README.md, "Adding a lab or a rung"). Refuses a number in use (exit 2).
.PHONY: new-lab
new-lab:
	@[ -f tools/new-lab/new-lab.sh ] || { echo "make new-lab: a tool of the full tree, not of the student edition" >&2; exit 2; }
	@bash tools/new-lab/new-lab.sh '$(NN)' '$(NAME)'

help:
	@echo "cudalabs targets:"
	@echo "  make labNN            build your starter for lab NN into ./labNN (then run ./labNN)"
	$(if $(HAVE_SOLUTIONS),@echo "  make solNN            build the reference solution of lab NN into ./solNN")
	@echo "  make all              every starter$(if $(HAVE_SOLUTIONS), and every solution)"
	@echo "  make test             unit tests, build checks, and the GPU suite when a GPU is present"
	$(if $(GRADER),@echo "  make test-cluster     grade a class through grading/slurm/ on a one-node SLURM cluster (root)")
	$(if $(HAVE_SOLUTIONS),@echo "  make bench            benchmark every solution; writes bench/results/<device>.json and .md")
	$(if $(HAVE_SOLUTIONS),@echo "                       (LABS=\"08 13\": only those labs; the others keep their results)")
	$(if $(HANDOUT_DIR),@echo "  make handouts         the handouts' student edition (also: make handouts-instructor; make handout-NN)")
	$(if $(GRADER),@echo "  make grade LAB=NN SUBMISSIONS=DIR   grade a class's submissions (see grading/README.md)")
	$(if $(GRADER),@echo "  make bench-grading    submissions graded per hour on one GPU and on all (grading/grade --gpus all)")
	$(if $(GRADER),@echo "  make bench-starts     what a graded run's start costs: alone and many at once (LAB=NN; default 13)")
	$(if $(GRADER),@echo "  make bench-runner     processes a second the grader starts from 8 threads (host only)")
	$(if $(RELEASE_DIR),@echo "  make release          the student edition: build/release/cudalabs-student/ and .zip")
	$(if $(RELEASE_DIR),@echo "  make gradescope LAB=NN   Gradescope's autograder zip of lab NN (see grading/README.md)")
	@echo "  make check LAB=NN     a preview of your grade: the visible tests at the sizes ./labNN shows$(if $(GRADER), (and the grader's audit and runs of your file),$(if $(AUDIT_ONLY), (and the grader's audit of your file)))"
	@echo "  make scorecard LAB=NN [RESULTS=r.json]   your run beside the reference's, as SVG and PNG"
	@echo "  make unit-tests       only build the host unit tests ($(BUILD)/unit_tests)"
	@echo "  make profileNN        Nsight Compute hints for lab NN's $(if $(HAVE_SOLUTIONS),solution (PROGRAM=lab: yours beside its numbers),kernels) (labs with profile.sh)"
	@echo "  make arch             which nvcc and CUDA version, and the GPU architecture flags (ARCH=sm_90)"
	$(if $(wildcard tools/check-cuda12.sh),@echo "  make check-cuda12     build everything with CUDA 12 too (CUDA12_HOME, or Debian's 12.4 fetched)")
	$(if $(wildcard tools/new-lab/new-lab.sh),@echo "  make new-lab NN=14 NAME=topic   a new lab from the template (README.md, \"Adding a lab or a rung\")")
	@echo "  make clean            remove build outputs"
	@echo "labs:"
	@$(foreach d,$(LAB_DIRS),echo "  $(notdir $(d))";)

-include $(shell find $(BUILD) -name '*.d' -type f 2>/dev/null)
