/* The terminal: curses start and stop, signals, the key loop, and the
 * --bench-keys mode that plays a key script and times each redraw.
 *
 * The terminal is restored on every way out: q, Ctrl-C (SIGINT), SIGTERM,
 * SIGHUP, and exit() from anywhere (atexit). Those signal handlers only set
 * a flag: the loop (getch wakes up every 100 ms) and long scans notice it.
 * A crash restores the terminal from its handler, then dies as it would.
 */
#include <curses.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#include "tui/browser.h"

static SCREEN *screen;
static const char *script;      /* --bench-keys: remaining keys */

/* For a crash (SIGSEGV, SIGABRT ...): only async-signal-safe calls are
 * allowed, so the terminal settings and the "leave full-screen mode"
 * strings are saved at start and put back with tcsetattr and write. */
static struct termios saved_tty;
static int have_saved_tty;
static char leave_seq[128];
static size_t leave_len;

static void on_signal(int sig)
{
	(void)sig;
	browser_interrupted = 1;
}

static void on_fatal(int sig)
{
	if (leave_len) {
		ssize_t w = write(STDOUT_FILENO, leave_seq, leave_len);
		(void)w;
	}
	if (have_saved_tty)
		tcsetattr(STDIN_FILENO, TCSANOW, &saved_tty);
	signal(sig, SIG_DFL);
	raise(sig);
}

static void add_leave(const char *cap)
{
	char *s = tigetstr(cap);
	if (!s || s == (char *)-1)
		return;
	size_t n = strlen(s);
	if (leave_len + n < sizeof leave_seq) {
		memcpy(leave_seq + leave_len, s, n);
		leave_len += n;
	}
}

static void restore(void)
{
	if (screen) {
		endwin();
		delscreen(screen);
		screen = NULL;
	}
}

/* Curses on the terminal the user has (stdin and stdout both terminals),
 * with the tty state saved first so that every way out, a signal
 * included, can put it back; a short ESCDELAY so Esc cancels at once. */
static int start(void)
{
	if (!isatty(STDIN_FILENO) || !isatty(STDOUT_FILENO))
		return -1;
	/* Esc alone should cancel a prompt without a long wait */
	if (!getenv("ESCDELAY"))
		setenv("ESCDELAY", "25", 1);
	have_saved_tty = tcgetattr(STDIN_FILENO, &saved_tty) == 0;
	screen = newterm(NULL, stdout, stdin);
	if (!screen)
		return -1;
	set_term(screen);
	add_leave("sgr0");
	add_leave("cnorm");
	add_leave("rmkx");
	add_leave("rmcup");
	atexit(restore);
	cbreak();       /* not raw: Ctrl-C still raises SIGINT */
	noecho();
	nonl();
	keypad(stdscr, TRUE);
	curs_set(0);
	timeout(100);
	if (has_colors()) {
		start_color();
		use_default_colors();
		init_pair(COL_CURRENT, COLOR_BLACK, COLOR_CYAN);
		init_pair(COL_CHANGED, COLOR_RED, -1);
		init_pair(COL_UNKNOWN, COLOR_BLUE, -1);
		init_pair(COL_TITLE, COLOR_BLACK, COLOR_WHITE);
		init_pair(COL_STATUS, COLOR_WHITE, COLOR_BLUE);
		init_pair(COL_ERROR, COLOR_WHITE, COLOR_RED);
		init_pair(COL_SELECT, COLOR_BLACK, COLOR_YELLOW);
		init_pair(COL_FOLD, COLOR_MAGENTA, -1);
	}
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	sa.sa_handler = on_fatal;
	sa.sa_flags = SA_RESETHAND;
	sigaction(SIGSEGV, &sa, NULL);
	sigaction(SIGBUS, &sa, NULL);
	sigaction(SIGFPE, &sa, NULL);
	sigaction(SIGILL, &sa, NULL);
	sigaction(SIGABRT, &sa, NULL);
	return 0;
}

int term_key(struct browser *b)
{
	(void)b;
	if (browser_interrupted)
		return ERR;
	if (script) {
		if (!*script)
			return 'q';
		int c = (unsigned char)*script++;
		return c == '\n' ? '\r' : c;
	}
	return getch();
}

double term_now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

/* A script key as one word for the timings file. */
static void script_key_name(int c, char *buf, size_t size)
{
	if (c == ' ')
		snprintf(buf, size, "space");
	else if (c == '\t')
		snprintf(buf, size, "tab");
	else if (c == '\r' || c == '\n')
		snprintf(buf, size, "enter");
	else if (c > 0x20 && c < 0x7f)
		snprintf(buf, size, "%c", c);
	else
		snprintf(buf, size, "0x%02x", (unsigned)c & 0xff);
}

/* Resident memory split into our own (anonymous) pages and pages of the
 * mapped trace and index (file-backed: shared, dropped under pressure). */
static void memory_figures(FILE *f)
{
	FILE *st = fopen("/proc/self/status", "r");
	char line[256];
	if (!st)
		return;
	while (fgets(line, sizeof line, st)) {
		if (!strncmp(line, "VmHWM:", 6) || !strncmp(line, "RssAnon:", 8) ||
		    !strncmp(line, "RssFile:", 8)) {
			char name[32];
			unsigned long kb;
			if (sscanf(line, "%31[^:]: %lu", name, &kb) == 2)
				fprintf(f, "mem %s %lu\n", name, kb);
		}
	}
	fclose(st);
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

/* --bench-keys: each key of the script is handled and the screen redrawn
 * (curses writes it to the terminal) while the clock runs. The first
 * figure is the first screen; times are written one per line. */
static int run_script(struct browser *b, const struct browse_options *o, double t_open)
{
	size_t n = strlen(o->bench_keys), k = 0;
	double *ms = calloc(n + 1, sizeof *ms);
	char *keys = calloc(n + 1, 1);
	FILE *f = NULL;
	int rc = 0;
	if (!ms || !keys) {
		rc = 1;
		goto out;
	}
	browser_draw(b);
	double first = term_now_ms() - o->start_ms;
	while (*script && !b->quit && !browser_interrupted) {
		int c = term_key(b);
		double t0 = term_now_ms();
		keys_handle(b, c);
		if (b->quit)
			break;
		browser_draw(b);
		keys[k] = (char)c;
		ms[k++] = term_now_ms() - t0;
	}
	restore();
	f = strcmp(o->bench_out, "-") ? fopen(o->bench_out, "w") : stderr;
	if (!f) {
		rc = 1;
		goto out;
	}
	fprintf(f, "curses_start_ms %.3f\nfirst_screen_ms %.3f\n", t_open, first);
	for (size_t i = 0; i < k; i++) {
		char name[8];
		script_key_name(keys[i], name, sizeof name);
		fprintf(f, "key %s %.3f\n", name, ms[i]);
	}
	memory_figures(f);
	double *sorted = ms;
	qsort(sorted, k, sizeof *sorted, cmp_double);
	if (k)
		fprintf(f, "keys %zu median_ms %.3f p95_ms %.3f max_ms %.3f\n", k, sorted[k / 2],
			sorted[(k * 95) / 100 < k ? (k * 95) / 100 : k - 1], sorted[k - 1]);
out:
	if (f && f != stderr)
		fclose(f);
	free(ms);
	free(keys);
	return rc;
}

int browser_run(struct browser *b, const struct browse_options *o)
{
	double t0 = term_now_ms();
	if (start() < 0)
		return -1;
	double t_open = term_now_ms() - t0;
	int rc = 0;
	if (o->bench_keys) {
		script = o->bench_keys;
		rc = run_script(b, o, t_open);
		script = NULL;
		restore();
		return rc;
	}
	browser_draw(b);
	while (!b->quit) {
		int c = term_key(b);
		if (browser_interrupted)
			break;
		if (c == ERR)
			continue;
		keys_handle(b, c);
		if (!b->quit)
			browser_draw(b);
	}
	restore();
	return rc;
}
