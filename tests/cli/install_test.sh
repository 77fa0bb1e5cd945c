#!/bin/sh
# install_test.sh BUILD_DIR SOURCE_DIR SANITIZE — installs the build into a fresh prefix, then
# builds one small program against it through pkg-config and one through
# find_package(enigma), and runs both: the installed header, libraries and package
# files must be enough on their own.
set -eu
build=$1
src=$2
# a sanitizer build's libraries need the sanitizer runtime linked first: not a package to install
case ${3:-OFF} in ON|on|1|TRUE|true) echo "skipped: sanitizer build"; exit 77 ;; esac
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cmake --install "$build" --prefix "$tmp/prefix" >/dev/null
cat >"$tmp/main.c" <<'C'
#include <enigma.h>
#include <stdio.h>
#include <string.h>
int main(void) {
    enigma_device *d;
    enigma_status s = enigma_device_open("bogus", &d);
    if (s != ENIGMA_ERROR_INVALID_ARGUMENT || !strstr(enigma_last_error(), "'bogus'")) return 1;
    printf("installed enigma %s works\n", enigma_version());
    return 0;
}
C
export PKG_CONFIG_PATH="$tmp/prefix/lib/pkgconfig:$tmp/prefix/lib64/pkgconfig"
if command -v pkg-config >/dev/null 2>&1; then
  cc "$tmp/main.c" $(pkg-config --cflags --libs enigma) -o "$tmp/with_pkgconfig"
  LD_LIBRARY_PATH="$tmp/prefix/lib:$tmp/prefix/lib64" "$tmp/with_pkgconfig"
else
  echo "pkg-config not found: skipping its half"
fi
mkdir "$tmp/consumer"
cat >"$tmp/consumer/CMakeLists.txt" <<'CM'
cmake_minimum_required(VERSION 3.20)
project(consumer C)
find_package(enigma 0.1 REQUIRED)
add_executable(with_cmake ../main.c)
target_link_libraries(with_cmake PRIVATE enigma::enigma_static)
CM
cmake -S "$tmp/consumer" -B "$tmp/consumer/build" -DCMAKE_PREFIX_PATH="$tmp/prefix" >/dev/null
cmake --build "$tmp/consumer/build" >/dev/null
"$tmp/consumer/build/with_cmake"
test -x "$tmp/prefix/bin/enigma"
"$tmp/prefix/bin/enigma" --help >/dev/null
