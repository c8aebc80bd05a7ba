# Short verbs for people; the real build is CMake (see CMakeLists.txt).
#   make deps    install missing Debian packages (apt-get as root)
#   make         build into build/
#   make test    build, then run every test (plain + ASan/UBSan builds, fuzzers)
#   make bench   speed and memory figures against baselines in the same run
#   make demo    set everything up and show trawl on a real trace

BUILD      ?= build
ASAN_BUILD ?= build-asan
FUZZ_BUILD ?= build-fuzz
JOBS       ?= $(shell nproc 2>/dev/null || echo 2)
CMAKE_FLAGS ?=

.PHONY: all deps build test bench demo fuzz clean

all: build

deps:
	@sh scripts/deps.sh

build: deps
	@cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=RelWithDebInfo -DTRAWL_WERROR=ON $(CMAKE_FLAGS) >/dev/null
	@cmake --build $(BUILD) -j $(JOBS)

build-asan: deps
	@cmake -S . -B $(ASAN_BUILD) -DCMAKE_BUILD_TYPE=Debug -DTRAWL_WERROR=ON -DTRAWL_SANITIZE=ON $(CMAKE_FLAGS) >/dev/null
	@cmake --build $(ASAN_BUILD) -j $(JOBS)

build-fuzz: deps
	@CC=clang cmake -S . -B $(FUZZ_BUILD) -DCMAKE_BUILD_TYPE=RelWithDebInfo -DTRAWL_FUZZ=ON -DTRAWL_SANITIZE=ON >/dev/null
	@cmake --build $(FUZZ_BUILD) -j $(JOBS)

test: build build-asan
	@sh scripts/test.sh $(BUILD) $(ASAN_BUILD) $(FUZZ_BUILD)

fuzz: build-fuzz
	@sh scripts/fuzz.sh $(FUZZ_BUILD) $${FUZZ_SECONDS:-60}

bench: build
	@sh bench/run.sh $(BUILD)

demo: build
	@sh scripts/demo.sh $(BUILD)

clean:
	rm -rf $(BUILD) $(ASAN_BUILD) $(FUZZ_BUILD)
