# The grading tool (grading/): included by the Makefile.
#
#   make grader                                  build the grader and its kernel-trace library
#   make grade-check                             build the check of grading/grade's command line
#   make grade LAB=01 SUBMISSIONS=dir            grade a class (grading/grade --help for more)
#   make grading-info LAB=01                     (used by the grader) build the lab's trusted
#                                                objects and print what a student build needs
#   make bench-grading                           submissions per hour on one GPU and on every GPU
#                                                (grading/grade --gpus all), labs 01 and 13
#   make bench-starts LAB=13                     what a graded run's start costs, alone and with
#                                                many at once on one GPU or two
#   make bench-runner                            runs a second the grader's process runner starts
#                                                from 8 threads (host only)

# How grading/src/ is compiled (GRADING_INC, the objects' rule) is grading/audit.mk's, which the
# Makefile includes first.
GRADING_LIB_SRC := $(filter-out %/kernel_trace.cpp,$(wildcard grading/src/*/*.cpp))
GRADING_LIB_OBJS := $(GRADING_LIB_SRC:grading/src/%.cpp=$(BUILD)/grading/%.o)
GRADER := $(BUILD)/grading/grader
UNIT_EXTRA_OBJS += $(GRADING_LIB_OBJS)
UNIT_EXTRA_FLAGS += $(GRADING_INC)

$(GRADER): $(BUILD)/grading/grader.o $(GRADING_LIB_OBJS) $(BUILD)/common/todo_hint.o $(BUILD)/common/args.o $(BUILD)/common/run_hooks.o
	$(CXX) -o $@ $^ -pthread -ldl

# grading/grade's first step: its command line checked (the lab, the submissions, the files it
# reads and writes) before anything else is built, so that a mistake is said in seconds, in a
# fresh clone too. Only the command line's own sources: no JSON, no sandbox.
GRADE_CHECK := $(BUILD)/grading/grade_check
GRADE_CHECK_OBJS := $(addprefix $(BUILD)/grading/,grade_check.o intake/command_line.o intake/submissions.o util/files.o util/text.o util/sha256.o) \
                    $(BUILD)/common/args.o $(BUILD)/common/run_hooks.o
$(GRADE_CHECK): $(GRADE_CHECK_OBJS)
	$(CXX) -o $@ $^
.PHONY: grade-check
grade-check: $(GRADE_CHECK)

# ---- the grading harness (grading/harness/) --------------------------------------------------
# The RunHooks (common/run_hooks.h) that make a lab program gradable: the grader's options
# (--channel, --verify-outputs, --fresh-inputs), the result channel's writer, the checks of timed
# repetitions, fresh inputs, the watch of host round trips. Linked only into the programs the
# grader builds ($(BUILD)/grading/solNN, and a student's program: OBJS in grading-info), never
# into the course tree's ./labNN and ./solNN. They export the channel's writer, so that the
# kernel-trace library finds it with dlsym.
HARNESS_INC := -Igrading/harness $(GRADING_PROTOCOL_INC)
HARNESS_HOST_SRC := $(wildcard grading/harness/*.cpp)
HARNESS_CUDA_SRC := $(filter-out %/grading_shims.cu,$(wildcard grading/harness/*.cu))
HARNESS_OBJS := $(HARNESS_HOST_SRC:%.cpp=$(BUILD)/%.o) $(HARNESS_CUDA_SRC:%.cu=$(BUILD)/%.o)
HARNESS_LDFLAGS := -Xlinker --dynamic-list=$(abspath grading/harness/exports.list)
UNIT_EXTRA_OBJS += $(HARNESS_HOST_SRC:%.cpp=$(BUILD)/%.o)

$(BUILD)/grading/harness/%.o: grading/harness/%.cpp $(CXX_STAMP)
	@mkdir -p $(@D)
	$(CXX) $(ALL_CXXFLAGS) $(HARNESS_INC) -MMD -MP -c $< -o $@

$(BUILD)/grading/harness/%.o: grading/harness/%.cu $(NVCC_STAMP)
	@mkdir -p $(@D)
	$(NVCC) $(ALL_NVCCFLAGS) $(HARNESS_INC) -MMD -MP -c $< -o $@

# The reference solution of lab NN as the grader runs it: ./solNN's objects and the harness.
define GRADED_SOLUTION_RULE
$(BUILD)/grading/sol$(1): $(BUILD)/$(1)/driver.o $(BUILD)/sol$(1)/student.o $(BUILD)/sol$(1)/student_source.o $$(LAB$(1)_HOST_OBJS) $(COMMON_OBJS) $(HARNESS_OBJS)
	$(NVCC) $(ARCH_FLAGS) $(HARNESS_LDFLAGS) -o $$@ $$^ $(LDLIBS)
endef
$(if $(HAVE_SOLUTIONS),$(foreach n,$(LAB_NUMS),$(eval $(call GRADED_SOLUTION_RULE,$(n)))))

# The kernel trace: a CUPTI injection library (CUPTI ships with the CUDA Toolkit; its place
# differs between the toolkit's layouts). Without CUPTI the grader runs only with --no-trace.
CUPTI_INC := $(firstword $(foreach d,$(CUDA_HOME)/extras/CUPTI/include $(CUDA_HOME)/include $(wildcard $(CUDA_HOME)/targets/*/include),$(if $(wildcard $(d)/cupti.h),$(d))))
CUPTI_LIBDIR := $(firstword $(foreach d,$(CUDA_HOME)/extras/CUPTI/lib64 $(CUDA_HOME)/lib64 $(CUDA_HOME)/lib $(wildcard $(CUDA_HOME)/targets/*/lib),$(if $(wildcard $(d)/libcupti.so),$(d))))
TRACE_LIB := $(if $(and $(CUPTI_INC),$(CUPTI_LIBDIR)),$(BUILD)/grading/libkernel_trace.so)

$(BUILD)/grading/libkernel_trace.so: grading/src/runs/kernel_trace.cpp $(CXX_STAMP) $(NVCC_STAMP)
	@mkdir -p $(@D)
	$(CXX) $(ALL_CXXFLAGS) $(GRADING_PROTOCOL_INC) -fPIC -shared -fvisibility=hidden -I$(CUPTI_INC) -I$(CUDA_HOME)/include -MMD -MP $< -o $@ \
	  -L$(CUPTI_LIBDIR) -lcupti -ldl -Wl,-rpath,$(realpath $(CUPTI_LIBDIR))

# The grading shims: stand-ins for the CUDA copy and host-allocation calls, which record each call
# in the result channel and forward it. The grader renames the student object's imports to them
# (objcopy --redefine-sym, table in grading/shimmed-imports.txt) and links this object in.
SHIM_OBJECT := $(BUILD)/grading/grading_shims.o
$(SHIM_OBJECT): grading/harness/grading_shims.cu $(NVCC_STAMP)
	@mkdir -p $(@D)
	$(NVCC) $(ALL_NVCCFLAGS) $(HARNESS_INC) -MMD -MP -c $< -o $@

# A decoder of the result channel for people (tests/tools/channel_dump.cpp): runs a lab program
# built by the grader ($(BUILD)/grading/solNN) with --channel and prints what it sent (cases, outputs, repetitions, kernels, transfers).
CHANNEL_DUMP := $(BUILD)/tools/channel_dump
$(CHANNEL_DUMP): tests/tools/channel_dump.cpp $(BUILD)/grading/runs/channel.o $(CXX_STAMP)
	@mkdir -p $(@D)
	$(CXX) $(ALL_CXXFLAGS) -I. $(GRADING_INC) -MMD -MP $< $(BUILD)/grading/runs/channel.o -o $@ -pthread
.PHONY: channel-dump
channel-dump: $(CHANNEL_DUMP)

.PHONY: grader grade grading-info bench-grading bench-starts bench-runner
grader: $(GRADER) $(TRACE_LIB)

# Writes bench/results/<device>.grading.{md,json}; LABS="01 12 13", GRADING_BENCH_N and the others
# in bench/grading_throughput.sh choose what is timed.
bench-grading: grader
	+@BUILD=$(BUILD) bash bench/grading_throughput.sh

# Writes bench/results/<device>.starts.md for LAB (13 when not given).
OPEN_PHASES := $(BUILD)/bench/gpu_open_phases
bench-starts: $(OPEN_PHASES)
	+@$(MAKE) --no-print-directory grading-info LAB=$(or $(LAB),13) > /dev/null
	+@BUILD=$(BUILD) LAB=$(or $(LAB),13) bash bench/process_starts.sh

# The GPU open, phase by phase.
$(OPEN_PHASES): bench/gpu_open_phases.cu $(NVCC_STAMP)
	@mkdir -p $(@D)
	$(NVCC) $(ALL_NVCCFLAGS) -o $@ $<

# The grader's process runner, timed on the host (bench/runner_starts.cpp).
RUNNER_STARTS := $(BUILD)/bench/runner_starts
$(RUNNER_STARTS): bench/runner_starts.cpp $(GRADING_LIB_OBJS) $(BUILD)/common/todo_hint.o $(BUILD)/common/args.o $(BUILD)/common/run_hooks.o
	@mkdir -p $(@D)
	$(CXX) $(ALL_CXXFLAGS) $(GRADING_INC) -MMD -MP $(filter %.cpp %.o,$^) -o $@ -pthread -ldl
bench-runner: $(RUNNER_STARTS)
	$(RUNNER_STARTS)

grade: grader
	@[ -n "$(LAB)" ] && [ -n "$(SUBMISSIONS)" ] || { echo "usage: make grade LAB=NN SUBMISSIONS=folder"; exit 2; }
	BUILD=$(BUILD) grading/grade --lab $(LAB) $(SUBMISSIONS)

ifneq ($(LAB),)
# The student program's TODO hints name the file only (the grader's feedback gives the lines).
$(BUILD)/grading/lab$(LAB)/student_source.o: common/student_source.cpp $(CXX_STAMP)
	@mkdir -p $(@D)
	$(CXX) $(ALL_CXXFLAGS) -c $< -o $@ -DSTUDENT_SOURCE_PATH='"$(GRADE_TOPIC)"' -DSTUDENT_SOURCE_DISPLAY='"$(GRADE_TOPIC)"'

grading-info: $(if $(GRADE_LAB_DIR),$(BUILD)/grading/sol$(LAB) $(BUILD)/grading/lab$(LAB)/student_source.o) $(TRACE_LIB) $(SHIM_OBJECT)
	$(LAB_BUILD_INFO)
	@echo "grading-info:LDLIBS=$(HARNESS_LDFLAGS) $(LDLIBS)"
	@echo "grading-info:SOL=$(BUILD)/grading/sol$(LAB)"
	@echo "grading-info:SOL_OBJECT=$(BUILD)/sol$(LAB)/student.o"
	@echo "grading-info:STUDENT_SOURCE_OBJECT=$(BUILD)/grading/lab$(LAB)/student_source.o"
	@echo "grading-info:OBJS=$(LAB_TRUSTED_OBJS) $(HARNESS_OBJS)"
	@echo "grading-info:TRACE_LIB=$(TRACE_LIB)"
	@echo "grading-info:SHIM_OBJECT=$(SHIM_OBJECT)"
endif
