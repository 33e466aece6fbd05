# What cudalabs hands out (tools/release/release.py): included by the Makefile.
#
#   make release                  the student edition: build/release/cudalabs-student/ and
#                                 build/release/cudalabs-student.zip (a top folder inside),
#                                 without solutions, rubrics, grading corpus or instructor notes
#   make gradescope LAB=NN        build/gradescope/labNN-autograder.zip for Gradescope
#                                 (setup.sh and run_autograder at its root; grading/DESIGN.md, "Gradescope")
#
# The student edition is refused when a line unique to a solution file appears anywhere in it
# (release.py leaks). Tools: tools/deps/release.txt and the handouts' (tools/deps/handouts.txt).

RELEASE_DIR := $(BUILD)/release
RELEASE_NAME := cudalabs-student
RELEASE_PYTHON ?= python3

.PHONY: release gradescope
release: handouts
	$(RELEASE_PYTHON) tools/release/release.py student --handouts $(HANDOUT_DIR)/student \
	  $(if $(strip $(COLAB_BASE)),--colab-base '$(strip $(COLAB_BASE))') \
	  --out $(RELEASE_DIR)/$(RELEASE_NAME) --zip $(RELEASE_DIR)/$(RELEASE_NAME).zip

gradescope:
	@[ -n "$(LAB)" ] || { echo "usage: make gradescope LAB=NN" >&2; exit 2; }
	$(RELEASE_PYTHON) tools/release/release.py gradescope --lab $(LAB) \
	  --out $(BUILD)/gradescope/lab$(LAB)-autograder.zip
