/* trawl serve: a local web view of traces (docs/serve.md). */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "events-act.h"
#include "trawl/ete.h"
#include "trawl/reader.h"
#include "serve/serve.h"

#if defined(TRAWL_HAVE_MHD)
#include "serve/http.h"

static const char serve_description[] =
	"Serves a web page for exploring the traces: one timeline row per core\n"
	"(function activations as a flame chart, exceptions as marks), the trace\n"
	"text scrolled in sync with it, registers and memory at the selected line,\n"
	"jumps to the last or next write of a register or byte, step over / out,\n"
	"search and go to line, time, address or function. Each trace's index is\n"
	"built (or checked) when the page first opens it, with progress shown.\n"
	"TRACE is anything trawl reads: Tarmac (plain, .gz, .zst), an ETE snapshot\n"
	"directory, a perf.data recording, a CTF trace directory of software events\n"
	"(the recorder's, trawl listen's) or a Barrelfish dump (--defs names its\n"
	"events). Software events show activities (--defs) as bars per core,\n"
	"messages as arrows, events as dots, the event list, a filter panel and\n"
	"statistics.\n"
	"\n"
	"Prints one URL holding a random access token: requests without it, with\n"
	"a Host header naming another site, or for anything but the page's files\n"
	"and its API are refused. Binds 127.0.0.1 unless --bind says otherwise;\n"
	"stops on Ctrl-C.\n";

struct serve_cli {
	uint64_t port;
	const char *bind;
	int open;
};

static int make_token(char *out)
{
	unsigned char raw[16];
	if (getrandom(raw, sizeof raw, 0) != (ssize_t)sizeof raw)
		return -1;
	for (int i = 0; i < 16; i++)
		sprintf(out + 2 * i, "%02x", raw[i]);
	return 0;
}

/* --open: the desktop's browser, if there is one; nothing if not. */
static void open_browser(const char *url)
{
	pid_t pid = fork();
	if (pid == 0) {
		int fd = open("/dev/null", O_RDWR);
		if (fd >= 0) {
			dup2(fd, 1);
			dup2(fd, 2);
		}
		execlp("xdg-open", "xdg-open", url, (char *)NULL);
		_exit(127);
	}
}

static struct MHD_Daemon *start(struct serve *s, const struct serve_cli *o, char *url,
				size_t url_size)
{
	struct sockaddr_in sa;
	memset(&sa, 0, sizeof sa);
	sa.sin_family = AF_INET;
	sa.sin_port = htons((uint16_t)o->port);
	inet_pton(AF_INET, o->bind, &sa.sin_addr);
	struct MHD_Daemon *d = mhd.start_daemon(
		MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_AUTO | MHD_USE_ERROR_LOG, (uint16_t)o->port,
		NULL, NULL, serve_http_answer, s, MHD_OPTION_SOCK_ADDR, (struct sockaddr *)&sa,
		MHD_OPTION_CONNECTION_LIMIT, (unsigned)64, MHD_OPTION_CONNECTION_TIMEOUT,
		(unsigned)60, MHD_OPTION_END);
	if (!d)
		return NULL;
	const union MHD_DaemonInfo *info = mhd.get_daemon_info(d, MHD_DAEMON_INFO_BIND_PORT);
	unsigned port = info ? info->port : (unsigned)o->port;
	const char *host = strcmp(o->bind, "0.0.0.0") ? o->bind : "127.0.0.1";
	snprintf(s->host[0], sizeof s->host[0], "127.0.0.1:%u", port);
	snprintf(s->host[1], sizeof s->host[1], "localhost:%u", port);
	snprintf(s->host[2], sizeof s->host[2], "%s:%u", host, port);
	snprintf(url, url_size, "http://%s:%u/?token=%s", host, port, s->token);
	return d;
}

/* The server and the worker run in threads of their own; this one waits
 * for Ctrl-C (or SIGTERM), then lets the worker finish what it is building
 * so that no index is left half written. */
static int run(struct serve *s, const struct serve_cli *o)
{
	char url[256];
	sigset_t stop;
	sigemptyset(&stop);
	sigaddset(&stop, SIGINT);
	sigaddset(&stop, SIGTERM);
	pthread_sigmask(SIG_BLOCK, &stop, NULL);
	pthread_t worker;
	if (pthread_create(&worker, NULL, serve_worker, s)) {
		cli_error("serve", "cannot start the worker thread");
		return EXIT_BAD_INPUT;
	}
	struct MHD_Daemon *d = start(s, o, url, sizeof url);
	int rc = 0;
	if (!d) {
		cli_error("serve", "cannot listen on %s port %llu", o->bind,
			  (unsigned long long)o->port);
		rc = EXIT_BAD_INPUT;
	} else {
		printf("%s\n", url);
		fflush(stdout);
		if (o->open)
			open_browser(url);
		int sig;
		sigwait(&stop, &sig);
		mhd.stop_daemon(d);
	}
	pthread_mutex_lock(&s->lock);
	s->quit = 1;
	pthread_cond_signal(&s->wake);
	pthread_mutex_unlock(&s->lock);
	pthread_join(worker, NULL);
	return rc;
}

static int check_args(struct serve *s, struct serve_cli *o, int n, char **argv)
{
	struct in_addr a;
	if (inet_pton(AF_INET, o->bind, &a) != 1)
		return cli_usage("serve", "--bind %s: give an IPv4 address", o->bind);
	for (int i = 0; i < n; i++) {
		struct stat st;
		if (events_is_trace(argv[i]) || trawl_ete_snapshot_probe(argv[i]))
			continue; /* directories: software events, an ETE snapshot */
		if (stat(argv[i], &st) || !S_ISREG(st.st_mode)) {
			cli_error("serve", "cannot open '%s': %s", argv[i],
				  stat(argv[i], &st) ? strerror(errno) : "not a file");
			return EXIT_BAD_INPUT;
		}
	}
	/* one set of reader options for every trace: each must be for one of
	 * them, and each trace is read with the ones for its kind */
	int rc = trace_options_check_all(&s->opts.to, argv, n);
	if (rc)
		return rc;
	s->traces = calloc((size_t)n, sizeof *s->traces);
	if (!s->traces || make_token(s->token)) {
		cli_error("serve", s->traces ? "cannot get random bytes for the token" : "out of memory");
		return EXIT_BAD_INPUT;
	}
	s->ntraces = (unsigned)n;
	for (int i = 0; i < n; i++) {
		s->traces[i].id = (unsigned)i;
		s->traces[i].path = argv[i];
		s->traces[i].kind = events_is_trace(argv[i]) ? SERVE_KIND_SW : SERVE_KIND_INSN;
		if (s->traces[i].kind == SERVE_KIND_INSN && trawl_reader_probe(argv[i]) == TRAWL_FORMAT_BFDUMP) {
			s->traces[i].kind = SERVE_KIND_SW;
			s->traces[i].bf_dump = 1;
		}
	}
	return 0;
}

int cmd_serve(int argc, char **argv)
{
	static struct serve s;
	struct serve_cli o = { 0, "127.0.0.1", 0 };
	int rc;
	if ((rc = calls_run_init(&s.opts, "serve")))
		return rc;
	const struct cli_option opts[] = {
		CLI_U64("port", "N", &o.port, 65535, NULL, "TCP port (default 0: any free one)"),
		CLI_STRING("bind", 0, "ADDR", &o.bind, "IPv4 address to listen on (default 127.0.0.1)"),
		CLI_FLAG("open", 0, &o.open, "open the URL in the desktop's browser (xdg-open)"),
		CLI_STRING("defs", 0, "FILE", &s.defs, "definitions (.tdef): the activities of software-event\n"
			   "traces, and a Barrelfish dump's event names"),
		CALLS_OPTIONS(&s.opts),
		CLI_END,
	};
	const struct cli_command cmd = {
		.name = "serve",
		.usage = "[--port N] [--bind ADDR] [--open] [--image ELF[@OFFSET]]... [--defs A.tdef] TRACE...",
		.description = serve_description,
		.options = opts,
		.min_args = 1, .max_args = 4096, .missing = "no trace given",
	};
	int n = calls_run_args(&s.opts, &cmd, argc, argv, &rc);
	struct trawl_error err;
	if (n < 0)
		goto out;
	if ((rc = check_args(&s, &o, n, argv)))
		goto out;
	if (serve_mhd_load(&err)) {
		rc = cli_report("serve", &err);
		goto out;
	}
	pthread_mutex_init(&s.lock, NULL);
	pthread_cond_init(&s.wake, NULL);
	rc = run(&s, &o);
	/* a trace that could not be opened was input not used */
	for (unsigned i = 0; i < s.ntraces; i++) {
		if (s.traces[i].state == SERVE_FAILED || (s.traces[i].sw && s.traces[i].sw->damage[0]))
			cli_mark_lossy();
		serve_trace_release(&s.traces[i]);
	}
out:
	free(s.traces);
	calls_run_release(&s.opts);
	return rc;
}
#else
int cmd_serve(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	cli_error("serve", "this trawl was built without libmicrohttpd (libmicrohttpd-dev)");
	return EXIT_BAD_INPUT;
}
#endif
