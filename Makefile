# The two set-up commands of the README, and the usual targets. Each installs what it needs.
#   make demo    build, then run seed 004's two-stage reduction on the CPU backend
#   make check   every test: release build, ASan+UBSan build, Python, fuzz replay
BUILD ?= build
PREFIX ?= /usr/local

.PHONY: all demo check deps install clean fuzz bench
all: $(BUILD)/build.ninja
	cmake --build $(BUILD)

$(BUILD)/build.ninja:
	@sh scripts/deps.sh build
	cmake -S . -B $(BUILD) -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_INSTALL_PREFIX=$(PREFIX)

demo: all
	sh scripts/demo.sh $(BUILD)

check:
	sh scripts/check.sh

install: all
	cmake --install $(BUILD)

bench: all
	sh scripts/deps.sh bench
	cmake --build $(BUILD) --target bench_all 2>/dev/null || true
	sh bench/run.sh $(BUILD)

clean:
	rm -rf $(BUILD) build-asan build-fuzz
