# SPDX-License-Identifier: GPL-2.0
#
# vsysinfo: sysinfo() in the x86-64 vDSO, and the loop that proves it.
#
#   make run    apply patches/ to Linux 6.12, build, boot under QEMU and
#               run the vDSO kselftests (the main job)
#   make test   host-side checks plus the same guest run (what CI runs)
#
# KSRC=/path/to/linux uses your own tree instead of Debian's
# linux-source-6.12; it is copied, never modified.

SHELL := /bin/bash
export VS_START := $(shell date +%s)
S := scripts

.PHONY: help run test deps source apply kernel selftests initramfs boot \
	glibc glibc-install bench patches fixtures host-tests clean cache \
	cache-clean neighbours-stock

help: ## Show this list and the knobs (environment variables)
	@grep -E '^[a-z-]+:.*## ' $(MAKEFILE_LIST) | \
		awk -F':.*## ' '{ printf "  make %-11s %s\n", $$1, $$2 }'
	@echo "Knobs, e.g. 'KSRC=~/linux make run':"
	@VS_NO_KNOB_CHECK=1 bash -c '. $(S)/lib.sh && vs_knobs'

run: ## Install, unpack, apply, build, boot and run the vDSO kselftests
	@$(S)/run.sh

test: ## Host-side checks plus the guest run; ends with "N passed, N failed"
	@$(S)/test.sh

deps: ## Install the Debian packages that are missing (as root)
	@$(S)/deps.sh

source: ## Unpack linux-source-6.12 (or copy KSRC) and commit it pristine
	@$(S)/source.sh

apply: ## git am patches/ onto the pristine tree
	@$(S)/apply.sh

kernel: ## Configure (tinyconfig + fragment) and build the test kernel
	@$(S)/kernel.sh

selftests: ## Build and install the vDSO kselftests
	@$(S)/selftests.sh

initramfs: ## Pack busybox, the kselftests and their libraries
	@$(S)/initramfs.sh

glibc: ## Build glibc 2.36 with glibc/'s patch (build/glibc, incremental)
	@$(S)/glibc.sh build

glibc-install: ## Install the patched glibc into the guest's initramfs
	@$(S)/glibc.sh install && $(S)/initramfs.sh

boot: ## Boot the test kernel with an interactive shell
	@$(S)/boot.sh shell

bench: ## Benchmark vDSO sysinfo() under QEMU -icount
	@$(S)/bench.sh

patches: ## Regenerate patches/ from the area folders and the work tree
	@$(S)/patches.sh

neighbours-stock: ## Build and boot the pristine tree for the neighbours' suites
	@$(S)/neighbours.sh stock

fixtures: ## Record the last passing guest run for the judge's tests
	@$(S)/fixtures.sh

host-tests: ## Only the host-side checks
	@$(S)/host-tests.sh

clean: ## Remove the build folder (build/); the shared cache stays
	rm -rf build

cache: ## Show the shared build cache (CACHE): where, how big, what
	@$(S)/cache.sh show

cache-clean: ## Remove the shared build cache; the next run builds all
	@$(S)/cache.sh clean
