#!/bin/sh
# run_case.sh DRIVER CASE — one case of the front-end golden suite (see README.md):
#   ok/x.metal  must compile (first output line "ok: ..."); each line of ok/x.ir must
#               occur as a substring of the output (the IR, with "; @LINE:COL"
#               locations), in order: searched from the end of the previous match;
#   err/x.metal must fail; the diagnostic headlines ("FILE:LINE:COL: severity: message")
#               of the output must equal the lines of err/x.err exactly, in order.
# In x.ir, a line "! text" means text must occur nowhere in the output.
# Lines of the expected file starting with "#" are comments; "# XFAIL: reason" marks a
# case known to fail because of a bug in another stage: it then passes while it fails,
# and fails once it passes (remove the mark then).
driver=$1
case_file=$2
dir=$(dirname "$case_file")
name=$(basename "$case_file" .metal)
kind=$(basename "$dir")
if [ "$kind" = ok ]; then expected="$dir/$name.ir"; else expected="$dir/$name.err"; fi
[ -f "$expected" ] || { echo "$name: $expected is missing"; exit 1; }
actual=$(mktemp)
trap 'rm -f "$actual"' EXIT
(cd "$dir" && "$driver" "$name.metal") >"$actual" 2>&1 || { echo "$name: driver failed"; cat "$actual"; exit 1; }

xfail=$(sed -n 's/^# XFAIL: //p' "$expected" | head -n 1)
verdict() { # verdict OK(0|1) MESSAGE
  if [ -n "$xfail" ]; then
    if [ "$1" = 0 ]; then echo "$name: XFAIL ($xfail): $2"; exit 0; fi
    echo "$name: passes but is marked XFAIL ($xfail): remove the mark"; exit 1
  fi
  if [ "$1" = 0 ]; then
    echo "$name: $2"
    echo "---- output"; cat "$actual"
    exit 1
  fi
  exit 0
}

if [ "$kind" = ok ]; then
  first=$(head -n 1 "$actual")
  case $first in ok:*) ;; *) verdict 0 "does not compile";; esac
  # patterns in order: each one is searched from the end of the previous one's match
  # (on the same line or a later one)
  missing=$(awk '
    NR == FNR { if ($0 !~ /^[#!]/ && $0 != "") pat[n++] = $0; next }
    { line[m++] = $0 }
    END {
      li = 0; off = 0
      for (k = 0; k < n; k++) {
        found = 0
        while (li < m) {
          p = index(substr(line[li], off + 1), pat[k])
          if (p) { off += p - 1 + length(pat[k]); found = 1; break }
          li++; off = 0
        }
        if (!found) { print pat[k]; exit }
      }
    }' "$expected" "$actual")
  if [ -n "$missing" ]; then verdict 0 "expected IR line not found (in order): $missing"; fi
  # "! text": text must occur nowhere in the output
  present=$(awk '
    NR == FNR { if ($0 ~ /^! /) neg[n++] = substr($0, 3); next }
    { for (k = 0; k < n; k++) if (index($0, neg[k])) { print neg[k]; exit } }' "$expected" "$actual")
  if [ -n "$present" ]; then verdict 0 "output contains what it must not: $present"; fi
  verdict 1 ""
else
  first=$(head -n 1 "$actual")
  [ "$first" = failed ] || verdict 0 "compiles but must be rejected"
  got=$(grep -E '^[^ ].*:[0-9]+:[0-9]+: (error|warning|note): ' "$actual")
  want=$(grep -v -e '^#' -e '^$' "$expected")
  [ "$got" = "$want" ] || verdict 0 "diagnostics differ; expected:
$want"
  verdict 1 ""
fi
