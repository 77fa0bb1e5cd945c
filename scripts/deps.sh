#!/bin/sh
# deps.sh WHAT — installs what WHAT needs when it is missing (Debian packages, PyPI).
#   build: a C compiler, cmake, ninja      test: + python3 numpy pytest valgrind
#   fuzz: clang and its fuzzer runtime     bench: + PoCL
set -e
what=${1:-build}
need_apt=""
have() { command -v "$1" >/dev/null 2>&1; }
have cc || need_apt="$need_apt gcc"
have cmake || need_apt="$need_apt cmake"
have ninja || need_apt="$need_apt ninja-build"
case $what in
test|fuzz|bench)
  have python3 || need_apt="$need_apt python3 python3-pip"
  # tests/pip builds a wheel in a fresh virtual environment (Debian splits venv out)
  python3 -c "import venv, ensurepip" 2>/dev/null || need_apt="$need_apt python3-venv"
  have valgrind || need_apt="$need_apt valgrind"
  have clang || need_apt="$need_apt clang"
  [ -e /usr/lib/llvm-14/lib/clang/14.0.6/lib/linux/libclang_rt.fuzzer-x86_64.a ] || need_apt="$need_apt libclang-rt-14-dev"
  ;;
esac
case $what in
bench)
  [ -e /etc/OpenCL/vendors/pocl.icd ] || need_apt="$need_apt pocl-opencl-icd ocl-icd-opencl-dev opencl-headers"
  ;;
esac
if [ -n "$need_apt" ]; then
  echo "deps: installing$need_apt"
  SUDO=""; [ "$(id -u)" = 0 ] || SUDO=sudo
  $SUDO apt-get update -qq >/dev/null
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq $need_apt >/dev/null
fi
case $what in
test|bench)
  python3 -c "import numpy, pytest" 2>/dev/null || {
    echo "deps: installing numpy pytest"
    python3 -m pip install -q numpy pytest
  }
  # pycute, CuTe's Python reference of the layout algebra (python/tests/test_layout.py's
  # oracle), ships in nvidia-cutlass; its other dependencies are not needed for it
  python3 -c "import pycute" 2>/dev/null || {
    echo "deps: installing pycute (nvidia-cutlass, without its dependencies)"
    python3 -m pip install -q --no-deps nvidia-cutlass
  }
  ;;
esac
