#!/bin/sh
# puzzlegrade: runs PROGRAM under valgrind's memcheck, as a course's leak
# check does, failing it only for a leak.
#
# Usage: valgrind-leaks.sh PROGRAM [ARGS...]
#
# Exits 99 where bytes are definitely or indirectly lost (valgrind's own
# --error-exitcode, every other kind of memcheck error suppressed by
# valgrind-not-leaks.supp beside this script), else with PROGRAM's own
# status. valgrind's report goes to stderr; the other errors it found are
# then named on its last line, "valgrind (not counted against the leak
# point): 1 x an invalid read or write", for the row's detail.

here=$(dirname "$0")
set -- --leak-check=full --show-leak-kinds=definite,indirect \
  --errors-for-leak-kinds=definite,indirect --error-exitcode=99 \
  --suppressions="$here/valgrind-not-leaks.supp" "$@"
dir=$(mktemp -d 2>/dev/null) || exec valgrind "$@"
valgrind -s --log-file="$dir/log" "$@"
status=$?
cat "$dir/log" >&2
kinds=$(sed -n 's/.*used_suppression: *\([0-9][0-9]*\) \([a-z-]*\) .*/\1 x \2/p' "$dir/log" |
  tr '-' ' ' | paste -sd ';' - | sed 's/;/; /g')
lost() {
  sed -n "s/.*$1 lost: \([0-9,]*\) bytes.*/\1/p" "$dir/log" | tr -d , | tail -n 1
}
definitely=$(lost definitely)
indirectly=$(lost indirectly)
rm -rf "$dir"
if [ -n "$kinds" ]; then
  echo "valgrind (not counted against the leak point): $kinds" >&2
fi
if [ "$status" = 99 ] && [ -n "$definitely$indirectly" ]; then
  echo "valgrind: ${definitely:-0} bytes definitely and ${indirectly:-0} indirectly lost (the leak error)" >&2
fi
exit $status
