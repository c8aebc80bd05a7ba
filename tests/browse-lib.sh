# Helpers for the tmux-driven browser tests (sourced after cli-lib.sh).
# Each session gets a private tmux server (-S, its socket inside the test's
# temporary folder) with a fixed window size; waits
# poll the screen with a timeout instead of sleeping; the server is killed
# on exit.
command -v tmux >/dev/null 2>&1 || skip "tmux is not installed (Debian package tmux)"
_nsess=0
_sock="$_tmp/tmux-0"
_pane_log="$_tmp/pane"
tm() { tmux -S "$_sock" "$@"; }
_cleanup() {
	i=0
	while [ "$i" -le "$_nsess" ]; do
		tmux -S "$_tmp/tmux-$i" kill-server 2>/dev/null
		i=$((i + 1))
	done
	rm -rf "$_tmp"
}
trap _cleanup EXIT

# start_browse COLS ROWS ARGS...: run trawl browse in a fresh session; when
# it exits the pane prints its exit status and stays (for the checks).
start_browse() {
	_cols=$1 _rows=$2; shift 2
	# a new server each time: reusing a socket right after kill-server races
	tm kill-server 2>/dev/null
	_nsess=$((_nsess + 1))
	_sock="$_tmp/tmux-$_nsess"
	_cmd="TERM=xterm-256color"
	for a in "$TRAWL" browse "$@"; do _cmd="$_cmd '$a'"; done
	tm -f /dev/null new-session -d -s b -x "$_cols" -y "$_rows" \
		"$_cmd; echo \"browse exited \$?\"; sleep 600" || fail "tmux did not start"
	tm set-option -t b status off >/dev/null 2>&1
}

screen() { tm capture-pane -p -t b 2>/dev/null; }
status_line() { screen | sed -n '$p'; }
# The screen once it stops changing (two captures 0.1 s apart agree, for
# at most 5 s): a line that shows up first may come before the rest of a
# repaint, so a whole-screen compare waits for this.
settled_screen() {
	_prev=$(screen)
	for _i in $(seq 50); do
		sleep 0.1
		_now=$(screen)
		[ "$_now" = "$_prev" ] && break
		_prev=$_now
	done
	printf '%s\n' "$_prev"
}

# _wait WHAT TEXT SECONDS: poll WHAT (screen or status_line) until TEXT.
_wait() {
	_deadline=$(( $(date +%s) + $3 ))
	while :; do
		$1 >"$_pane_log"
		grep -qF -- "$2" "$_pane_log" && return 0
		[ "$(date +%s)" -ge "$_deadline" ] && break
		# the browser has ended: one last look, then no use waiting
		if screen | grep -q "^browse exited"; then
			$1 >"$_pane_log"
			grep -qF -- "$2" "$_pane_log" && return 0
			break
		fi
		sleep 0.05
	done
	fail "$1 never showed '$2'; screen:
$(screen)"
	return 1
}
# wait_for TEXT [SECONDS]: until the screen shows TEXT (fixed string).
wait_for() { _wait screen "$1" "${2:-30}"; }
# wait_status TEXT: the status line (last row) shows TEXT.
wait_status() { _wait status_line "$1" "${2:-30}"; }

keys() { tm send-keys -t b "$@"; }
# type TEXT then Enter, as a person at a prompt would
type_line() { keys -l "$1"; keys Enter; }

# First line of the event holding LINE, as `trawl regs` reports it.
event_line() { "$TRAWL" regs "$1" --at "$2" | sed -n '1s/.*after lines\{0,1\} \([0-9]*\)[ -].*/\1/p'; }

# The instruction address on the trace line `trawl regs` names in its
# first line ("cpu 0 after ...: ... IT (15) 00020120 e2800029 A ..."),
# DIGITS hex digits wide; empty when that line is not an instruction or is
# another CPU's ("cpu1" on the line, registers of cpu 0 asked for). The
# pane's pc row shows the current instruction's address.
event_pc() {
	sed -n '1{s/^cpu \([0-9]*\) [^:]*: /cpu\1 /;p;}' "$1" | awk -v d="$2" '{
		for (i = 2; i <= NF; i++) if ($i ~ /^cpu[0-9]+$/ && $i != $1) exit
		for (i = 2; i < NF; i++) if ($i == "IT" || $i == "IS" || $i == "ES") {
			a = $(i + 1); if (a ~ /^\(/) a = $(i + 2)
			sub(/^0x/, "", a); sub(/:.*/, "", a)
			while (length(a) < d) a = "0" a
			if (length(a) > d) a = substr(a, length(a) - d + 1)
			print tolower(a); exit
		} }'
}

# The register pane shows, for every core register, what `trawl regs`
# prints for that line (and ???????????????? for those it leaves out);
# pc is the address of the line's instruction.
check_regs() {
	_trace=$1 _line=$2; shift 2
	"$TRAWL" regs "$_trace" --at "$_line" "$@" >"$_tmp/regs" || { fail "trawl regs failed"; return; }
	screen >"$_tmp/scr"
	for r in x0 x1 x2 x3 x4 x5 x6 x7 x8 x9 x10 x11 x12 x13 x14 x15 x16 x17 x18 x19 x20 \
		x21 x22 x23 x24 x25 x26 x27 x28 x29 x30 sp pc psr; do
		v=$(awk -v r="$r" '$1 == r { print $2 }' "$_tmp/regs")
		[ "$r" = pc ] && v=$(event_pc "$_tmp/regs" 16)
		[ -n "$v" ] || v="????????????????"
		grep -qE "(^| )$r +[ *]$(printf '%s' "$v" | sed 's/?/[?]/g')( |\$)" "$_tmp/scr" ||
			fail "line $_line: register $r should show $v; screen:
$(cat "$_tmp/scr")"
	done
}

# The memory pane row for ADDR (16-aligned) equals `trawl mem`'s line.
check_mem_row() {
	_trace=$1 _line=$2 _addr=$3
	want=$("$TRAWL" mem "$_trace" --at "$_line" "$_addr" 16 | sed -n 2p)
	screen >"$_tmp/scr"
	grep -qF -- "$want" "$_tmp/scr" || fail "line $_line: memory row should read '$want'; screen:
$(cat "$_tmp/scr")"
}

# After the browser exits: the pane left full-screen (alternate) mode, so
# the terminal is back to the shell's screen.
expect_restored() {
	alt=$(tm display-message -p -t b '#{alternate_on}' 2>/dev/null)
	[ "$alt" = 0 ] || fail "terminal still in full-screen mode after exit ($1)"
}
expect_fullscreen() {
	alt=$(tm display-message -p -t b '#{alternate_on}' 2>/dev/null)
	[ "$alt" = 1 ] || fail "browser is not in full-screen mode"
}

# How many bytes of the memory row ADDR (16 hex digits) are highlighted as
# changed (red, ESC[31m, in tmux's capture with attributes).
changed_bytes() {
	tm capture-pane -e -p -t b | grep "$1:" | sed 's/|.*//' | grep -o '\[31m[0-9a-f?][0-9a-f?]' | wc -l
}
