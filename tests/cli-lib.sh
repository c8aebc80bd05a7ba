# Helpers for CLI tests (sourced). Each check prints what failed; finish
# exits 1 if any did. Exit 77 = skipped (see CMakeLists.txt).
set -u
_fails=0
_tmp=$(mktemp -d)
trap 'rm -rf "$_tmp"' EXIT

fail() { echo "FAIL: $*"; _fails=$((_fails + 1)); }
skip() { echo "SKIP: $*"; exit 77; }

expect_exit() {
	want=$1; shift
	"$@" >"$_tmp/out" 2>"$_tmp/err" </dev/null
	got=$?
	[ "$got" = "$want" ] || fail "'$*' exited $got, expected $want; stderr: $(head -c 300 "$_tmp/err")"
}

expect_stdout_has() {
	pat=$1; shift
	"$@" >"$_tmp/out" 2>"$_tmp/err" </dev/null
	grep -qF -- "$pat" "$_tmp/out" || fail "stdout of '$*' lacks '$pat'"
}

expect_stderr_has() {
	pat=$1; shift
	"$@" >"$_tmp/out" 2>"$_tmp/err" </dev/null
	grep -qF -- "$pat" "$_tmp/err" || fail "stderr of '$*' lacks '$pat': $(head -c 300 "$_tmp/err")"
}

# Compare a command's stdout with a golden file (tests/cli/golden/NAME) and
# its stderr with NAME.stderr (no such file: stderr must be empty), so a new
# warning or a changed message shows up as a difference too.
# TRAWL_UPDATE_GOLDEN=1 rewrites the golden files instead.
expect_golden() {
	name=$1; shift
	gold="$TRAWL_SRC/tests/cli/golden/$name"
	"$@" >"$_tmp/out" 2>"$_tmp/err" </dev/null
	if [ "${TRAWL_UPDATE_GOLDEN:-}" = 1 ]; then
		mkdir -p "$(dirname "$gold")"; cp "$_tmp/out" "$gold"
		if [ -s "$_tmp/err" ]; then cp "$_tmp/err" "$gold.stderr"; else rm -f "$gold.stderr"; fi
		return
	fi
	[ -f "$gold" ] || { fail "missing golden file $gold"; return; }
	diff -u "$gold" "$_tmp/out" >"$_tmp/diff" || fail "output of '$*' differs from $name:
$(head -40 "$_tmp/diff")"
	if [ -f "$gold.stderr" ]; then
		diff -u "$gold.stderr" "$_tmp/err" >"$_tmp/diff" || fail "stderr of '$*' differs from $name.stderr:
$(head -40 "$_tmp/diff")"
	elif [ -s "$_tmp/err" ]; then
		fail "stderr of '$*' should be empty: $(head -c 300 "$_tmp/err")"
	fi
}

finish() {
	[ "$_fails" -eq 0 ] || exit 1
	exit 0
}
