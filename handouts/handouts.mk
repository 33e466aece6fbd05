# Handouts: handouts/NN-topic.md (one per lab) and handouts/00-course.md (the course index), built
# by Pandoc into a PDF (LuaLaTeX, A4), a self-contained HTML page and a Jupyter notebook.
#
#   make handouts              student edition  -> build/handouts/student/
#   make handouts-instructor   instructor edition (solution excerpts, answers, rubric)
#                              -> build/handouts/instructor/
#   make handouts REPO_URL=https://host/course/cudalabs.git   a repository the notebooks fetch
#                              instead of the course files they carry
#   make handout-01            one lab, both editions (any NN)
#   make handouts COLAB_BASE=https://colab.research.google.com/github/OWNER/REPO/blob/main/handouts
#                              Open in Colab links (default: handouts/colab.conf; tools/colab.py)
#
# Code excerpts are read from the labs at build time (handouts/filters/cudalabs.lua); measured
# results from bench/results/*.json (handouts/tools/results.py). The PDF goes through LaTeX source
# (build/handouts/tex/), whose log must be free of warnings (handouts/tools/latex.sh).
# Tools: tools/deps/handouts.txt.

HANDOUT_DIR := $(BUILD)/handouts
HANDOUT_GEN := $(HANDOUT_DIR)/gen
HANDOUT_SRC := $(sort $(wildcard handouts/[0-9][0-9]-*.md))
HANDOUT_NAMES := $(basename $(notdir $(HANDOUT_SRC)))
HANDOUT_LAB_NAMES := $(filter-out 00-%,$(HANDOUT_NAMES))
REPO_URL ?=
# Open in Colab links: COLAB_BASE, set in handouts/colab.conf or on the command line.
include handouts/colab.conf
ifneq ($(strip $(COLAB_BASE)),)
  ifneq ($(shell $(or $(HANDOUT_PYTHON),python3) tools/colab.py check '$(COLAB_BASE)' > /dev/null 2>&1 && echo ok),ok)
    $(error $(shell python3 tools/colab.py check '$(COLAB_BASE)') (handouts/colab.conf or the command line))
  endif
endif
# The base in use, whichever set it, is a stamp that every handout, notebook and so the release
# depend on: rewritten only when the value changes (write_stamp), so that another base rebuilds
# the files whose links it makes, and the same base rebuilds nothing.
COLAB_STAMP := $(BUILD)/colab-base.stamp
COLAB_NOW := $(strip $(COLAB_BASE))
$(call write_stamp,$(COLAB_STAMP),COLAB_NOW)
PANDOC ?= pandoc
HANDOUT_PYTHON ?= python3

HANDOUT_COMMON_DEPS := handouts/filters/cudalabs.lua handouts/handouts.mk handouts/colab.conf $(COLAB_STAMP) \
                       $(wildcard handouts/figures/*.svg handouts/style/*)
HANDOUT_FLAGS = --from markdown --lua-filter handouts/filters/cudalabs.lua --fail-if-warnings \
                --resource-path=.:handouts -M gen_dir=$(HANDOUT_GEN) -M python=$(HANDOUT_PYTHON) \
                $(if $(REPO_URL),-M repo_url='$(REPO_URL)') \
                $(if $(strip $(COLAB_BASE)),-M colab_base='$(strip $(COLAB_BASE))')
HANDOUT_PDF_FLAGS := --standalone -t latex -V papersize=a4 -V geometry:margin=1.8cm \
                     -V fontsize=10pt -V mainfont='DejaVu Serif' -V sansfont='DejaVu Sans' \
                     -V monofont='DejaVu Sans Mono' -V colorlinks=true -V linkcolor=blue \
                     -V urlcolor=blue -H handouts/style/header.tex
HANDOUT_HTML_FLAGS := --standalone --self-contained --mathml --css handouts/style/handout.css

# The measured results, the Nsight Compute notes and the book's figures of lab NN, as a Markdown
# fragment and SVG plots: each lab's handout depends on its own fragment only.
$(HANDOUT_GEN)/results-%.md: handouts/tools/results.py handouts/tools/predictions.py tools/scorecard.py $(wildcard bench/results/*.json bench/results/*.d/*.json bench/targets.json handouts/data/*.json)
	@mkdir -p $(@D)
	$(HANDOUT_PYTHON) handouts/tools/results.py --bench-dir bench/results --out $(@D) $*
$(foreach n,$(LAB_NUMS),$(eval $(HANDOUT_GEN)/results-$(n).md: $(wildcard bench/results/ncu-lab$(n).md)))

# The grading rubric's table (instructor edition), from the grader's own rubric.
$(HANDOUT_GEN)/rubric-%.md: grading/rubrics/%.rubric handouts/tools/rubric.py
	@mkdir -p $(@D)
	$(HANDOUT_PYTHON) handouts/tools/rubric.py --rubrics grading/rubrics --out $(@D) $*
# A rubric whose tests of the lab's rungs (RUNG, RUNGS) expand from ./solNN --describe needs it.
$(foreach n,$(LAB_NUMS),$(if $(shell grep -l RUNG grading/rubrics/$(n).rubric 2> /dev/null),$(eval $(HANDOUT_GEN)/rubric-$(n).md: sol$(n))))

# A notebook carries the files its lab builds with (handouts/tools/notebook_setup.py).
NOTEBOOK_DEPS := Makefile $(wildcard common/*) handouts/tools/notebook_setup.py handouts/tools/setup_cell.py \
                 handouts/tools/scorecard_cell.py tools/scorecard.py tools/grade_preview.py tools/answers_preview.py tools/profile_hints.py \
                 tools/release/release.py $(wildcard grading/rubrics/*.rubric) $(wildcard bench/results/*.d/*.json)

# $(1) = handout name (01-vector-add), $(2) = edition, $(3) = the lab's code files and its
# results fragment (none for 00-course)
define HANDOUT_RULES
$(HANDOUT_DIR)/$(2)/$(1).pdf: handouts/$(1).md $(HANDOUT_COMMON_DEPS) handouts/tools/latex.sh $(3)
	@mkdir -p $$(@D) $(HANDOUT_DIR)/tex/$(2)
	$(PANDOC) $$< $(HANDOUT_FLAGS) -M edition=$(2) $(HANDOUT_PDF_FLAGS) -o $(HANDOUT_DIR)/tex/$(2)/$(1).tex
	bash handouts/tools/latex.sh $(HANDOUT_DIR)/tex/$(2)/$(1).tex $$@
$(HANDOUT_DIR)/$(2)/$(1).html: handouts/$(1).md $(HANDOUT_COMMON_DEPS) $(3)
	@mkdir -p $$(@D)
	$(PANDOC) $$< $(HANDOUT_FLAGS) -M edition=$(2) $(HANDOUT_HTML_FLAGS) -o $$@
$(HANDOUT_DIR)/$(2)/$(1).ipynb: handouts/$(1).md $(HANDOUT_COMMON_DEPS) $(NOTEBOOK_DEPS) $(3)
	@mkdir -p $$(@D)
	$(PANDOC) $$< $(HANDOUT_FLAGS) -M edition=$(2) -t ipynb -o $$@
endef
handout_code = $(wildcard labs/$(1)/* solutions/$(1)/*)
handout_outputs = $(foreach n,$(HANDOUT_NAMES),$(HANDOUT_DIR)/$(1)/$(n).pdf $(HANDOUT_DIR)/$(1)/$(n).html) \
                  $(foreach n,$(HANDOUT_LAB_NAMES),$(HANDOUT_DIR)/$(1)/$(n).ipynb)
handout_results = $(if $(filter-out 00-%,$(1)),$(HANDOUT_GEN)/results-$(firstword $(subst -, ,$(1))).md \
                    $(HANDOUT_GEN)/rubric-$(firstword $(subst -, ,$(1))).md)
$(foreach e,student instructor,$(foreach n,$(HANDOUT_NAMES),$(eval $(call HANDOUT_RULES,$(n),$(e),$(call handout_code,$(n)) $(call handout_results,$(n))))))

.PHONY: handouts handouts-instructor
handouts: $(call handout_outputs,student)
	@echo "Handouts (student edition): $(HANDOUT_DIR)/student/"
handouts-instructor: $(call handout_outputs,instructor)
	@echo "Handouts (instructor edition): $(HANDOUT_DIR)/instructor/"

# make handout-NN: one handout, every format, both editions.
handout-%:
	@$(MAKE) --no-print-directory $(foreach o,$(call handout_outputs,student) $(call handout_outputs,instructor),$(if $(findstring /$*-,$(o)),$(o)))
