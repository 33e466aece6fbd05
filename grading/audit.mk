# The grader's build and audit of one file, alone (grading/src/audit_only.cpp): what make check
# previews with where the grader is not there. Included by the Makefile before grading/grading.mk,
# which builds on it; the student edition and every lab's notebook carry it, with the sources
# of AUDIT_SRC and grading/allowed-imports.txt and shimmed-imports.txt (tools/release/release.py).
#
#   make audit-only                              build $(BUILD)/grading/audit_only
#   make audit-info LAB=01                       (used by audit_only) build the lab's driver and
#                                                common/ objects and print what its build needs

# grading/src/ has a folder per concern (grading/DESIGN.md, "Layout"); its files include each
# other by folder ("intake/rubric.h"), so everything that includes them gets -Igrading/src.
# grading/protocol/ holds the result channel's format, which the grader, the grading harness and
# the kernel-trace library share.
GRADING_PROTOCOL_INC := -Igrading/protocol
GRADING_INC := -Igrading/src $(GRADING_PROTOCOL_INC)

$(BUILD)/grading/%.o: grading/src/%.cpp $(CXX_STAMP)
	@mkdir -p $(@D)
	$(CXX) $(ALL_CXXFLAGS) $(GRADING_INC) -MMD -MP -c $< -o $@

# Only what a build and its audit need: no runs, no sandbox of its own (sandbox.cpp runs the
# tools), no class. nlohmann-json (tools/deps/core.txt) at build time; binutils at run time.
AUDIT_SRC := grading/src/audit_only.cpp $(addprefix grading/src/compile/,audit.cpp build.cpp build_cache.cpp lab_build.cpp line_directives.cpp) \
             $(addprefix grading/src/intake/,lab_info.cpp questions.cpp rubric.cpp) grading/src/isolation/isolation.cpp \
             grading/src/process/process.cpp $(addprefix grading/src/util/,breakdown.cpp files.cpp locks.cpp sha256.cpp text.cpp)
AUDIT_ONLY := $(BUILD)/grading/audit_only

$(AUDIT_ONLY): $(AUDIT_SRC:grading/src/%.cpp=$(BUILD)/grading/%.o) $(BUILD)/common/args.o $(BUILD)/common/run_hooks.o
	$(CXX) -o $@ $^ -pthread

.PHONY: audit-only audit-info
audit-only: $(AUDIT_ONLY)

ifneq ($(LAB),)
GRADE_LAB_DIR := $(call lab_dir,$(LAB))
GRADE_TOPIC := $(notdir $(call lab_student,$(GRADE_LAB_DIR)))
# The objects the student's file is built beside (the grader adds its harness): the interface the
# file must define is what they call and do not define.
LAB_TRUSTED_OBJS := $(if $(GRADE_LAB_DIR),$(BUILD)/$(LAB)/driver.o $(LAB$(LAB)_HOST_OBJS) $(COMMON_OBJS))
# What the build of a file of lab LAB needs, as "grading-info:KEY=VALUE" lines (intake/lab_info.h);
# grading-info (grading/grading.mk) adds the grader's own.
define LAB_BUILD_INFO
@echo "grading-info:LABDIR=$(GRADE_LAB_DIR)"
@echo "grading-info:STUDENT=$(GRADE_TOPIC)"
@echo "grading-info:NVCC=$(NVCC)"
@echo "grading-info:NVCCFLAGS=$(ALL_NVCCFLAGS)"
@echo "grading-info:ARCH_FLAGS=$(ARCH_FLAGS)"
@echo "grading-info:CUDA_HOME=$(CUDA_HOME)"
@echo "grading-info:DRIVER_OBJECT=$(BUILD)/$(LAB)/driver.o"
endef

audit-info: $(LAB_TRUSTED_OBJS)
	$(LAB_BUILD_INFO)
	@echo "grading-info:OBJS=$(LAB_TRUSTED_OBJS)"
endif

# The sources of the audit, for tools/release/release.py (which adds the headers they include).
.PHONY: audit-sources
audit-sources:
	@echo $(AUDIT_SRC)
