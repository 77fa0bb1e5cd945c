#!/bin/sh
# diff_cpp.sh DUMP FILE — differential test of the macro expander: FILE (macro-heavy C,
# such as the C11 standard's examples in 6.10.3.5) is expanded by the system C
# preprocessor (cc -E -P, an independent implementation) and by enigma (DUMP = pp_dump);
# the token spellings must agree one for one. Locations are not compared.
dump=$1
file=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cc -E -P -x c "$file" > "$tmp/ref.metal" 2>/dev/null || { echo "cc -E failed on $file"; exit 1; }
# spellings only: drop "LINE:COL KIND" and any " =VALUE SUFFIX"; drop the eof line
spell() { grep -v -e ' eof$' -e '^[^0-9]' | sed -e 's/^[^ ]* [a-z]* //' -e 's/ =[^ ]*\( [a-z]*\)\{0,1\}$//'; }
"$dump" "$tmp/ref.metal" | spell > "$tmp/want"
(cd "$(dirname "$file")" && "$dump" "$(basename "$file")") > "$tmp/out"
if grep -q -E '^[^ ]+:[0-9]+:[0-9]+: (error|warning)' "$tmp/out"; then
  echo "enigma reported diagnostics:"; grep -E ': (error|warning)' "$tmp/out"; exit 1
fi
spell < "$tmp/out" > "$tmp/got"
if ! diff -u "$tmp/want" "$tmp/got"; then echo "$file: expansion differs from cc -E"; exit 1; fi
echo "$file: $(wc -l < "$tmp/got") tokens agree with cc -E"
