/* System calls real static programs make, printed so that the output is
 * the same under any faithful emulator (QEMU's is the oracle in
 * tests/cli/emulate-syscalls.sh): results that differ between machines
 * (pids, memory sizes, times) are checked for consistency, not printed.
 *
 *   syscalls DIR     list DIR (sorted), then process, fd and file calls
 *   syscalls socket      make a call trawl does not emulate (socket)
 *   syscalls write DIR   try to change DIR: mkdir, unlink, rename, chmod,
 *                        truncate; prints each errno name
 *   syscalls nonblock    make fd 0 non-blocking, read it back, read from it
 *   syscalls escape DIR  try to create files outside DIR (for --root)
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sched.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/sendfile.h>
#include <sys/stat.h>
#include <sys/sysinfo.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/times.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

static int cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static void list(const char *dir)
{
	char *names[64];
	int n = 0;
	DIR *d = opendir(dir);
	if (!d) {
		printf("opendir: %s\n", strerror(errno));
		return;
	}
	struct dirent *de;
	while ((de = readdir(d)) && n < 64)
		if (de->d_name[0] != '.')
			names[n++] = strdup(de->d_name);
	closedir(d);
	qsort(names, (size_t)n, sizeof names[0], cmp); /* sysinfo, in glibc */
	for (int i = 0; i < n; i++) {
		printf("entry %s\n", names[i]);
		free(names[i]);
	}
}

static void process(void)
{
	char name[16] = { 0 };
	printf("prctl set %d\n", prctl(PR_SET_NAME, "trawl-test-name-too-long"));
	printf("prctl get %d %s\n", prctl(PR_GET_NAME, name), name);
	struct utsname u;
	printf("uname %d %s %s\n", uname(&u), u.sysname, u.machine);
	printf("pid %d\n", getpid() == (pid_t)syscall(SYS_gettid) && getppid() > 0);
	printf("ids %d\n", getuid() == geteuid() && getgid() == getegid());
	mode_t old = umask(077);
	printf("umask %o\n", (unsigned)umask(old));
	struct sysinfo si;
	printf("sysinfo %d %d\n", sysinfo(&si), si.totalram > 0 && si.mem_unit > 0);
	struct tms t;
	printf("times %d\n", times(&t) != (clock_t)-1);
	struct rusage ru;
	printf("getrusage %d\n", getrusage(RUSAGE_SELF, &ru));
	struct timespec ts = { 0, 1000 };
	printf("nanosleep %d\n", nanosleep(&ts, NULL));
	printf("clock_nanosleep %d\n", clock_nanosleep(CLOCK_MONOTONIC, 0, &ts, NULL));
	ts.tv_nsec = 2000000000;
	printf("bad nanosleep %d %s\n", nanosleep(&ts, NULL), strerror(errno));
	printf("sched_yield %d\n", sched_yield());
	cpu_set_t cs;
	CPU_ZERO(&cs);
	printf("affinity %d %d\n", sched_getaffinity(0, sizeof cs, &cs), CPU_COUNT(&cs) > 0);
	unsigned char rnd[16];
	printf("getrandom %ld\n", (long)syscall(SYS_getrandom, rnd, sizeof rnd, 0));
	struct sigaction sa = { 0 }, back;
	sa.sa_handler = SIG_IGN;
	printf("sigaction %d", sigaction(SIGUSR1, &sa, NULL));
	printf(" %d %d\n", sigaction(SIGUSR1, NULL, &back), back.sa_handler == SIG_IGN);
	printf("raise ignored %d\n", raise(SIGUSR1));
	sigset_t set, got;
	sigemptyset(&set);
	sigaddset(&set, SIGUSR2);
	sigprocmask(SIG_BLOCK, &set, NULL);
	sigprocmask(SIG_SETMASK, NULL, &got);
	printf("sigprocmask %d\n", sigismember(&got, SIGUSR2));
	int word = 5;
	struct timespec tiny = { 0, 1 };
	long r1 = syscall(SYS_futex, &word, 128 /* WAIT_PRIVATE */, 6, NULL, NULL, 0);
	int e1 = errno;
	long r2 = syscall(SYS_futex, &word, 128, 5, &tiny, NULL, 0);
	int e2 = errno;
	printf("futex %ld %s, %ld %s, wake %ld\n", r1, strerror(e1), r2, strerror(e2),
	       (long)syscall(SYS_futex, &word, 129 /* WAKE_PRIVATE */, 1, NULL, NULL, 0));
}

/* mremap directly and through realloc of a large (mmapped) block */
static void memory(void)
{
	char *p = mmap(NULL, 8192, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	memset(p, 'x', 8192);
	mmap(p + 8192, 4096, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
	char *q = mremap(p, 8192, 65536, 0);
	printf("mremap in place %s\n", q == MAP_FAILED ? strerror(errno) : "moved?");
	q = mremap(p, 8192, 65536, MREMAP_MAYMOVE);
	printf("mremap move %d %d %d\n", q != MAP_FAILED && q != p, q[0] == 'x' && q[8191] == 'x',
	       q[8192] == 0 && q[65535] == 0);
	printf("mremap shrink %d\n", mremap(q, 65536, 4096, 0) == q);
	char *b = malloc(1 << 20);
	memset(b, 'y', 1 << 20);
	b = realloc(b, 8 << 20);
	printf("realloc %d\n", b && b[0] == 'y' && b[(1 << 20) - 1] == 'y');
	free(b);
}

static void files(const char *dir)
{
	int p[2];
	char buf[64] = { 0 };
	printf("pipe2 %d\n", pipe2(p, O_CLOEXEC));
	printf("getfd %d %d\n", fcntl(p[0], F_GETFD), fcntl(p[1], F_GETFL) & O_ACCMODE);
	int d = dup(p[1]);
	printf("dup %d getfd %d\n", d > p[1], fcntl(d, F_GETFD));
	printf("dup2 %d\n", dup2(p[1], 9));
	printf("dupfd %d\n", fcntl(p[1], F_DUPFD_CLOEXEC, 20));
	printf("write %zd %zd\n", write(9, "via dup2 ", 9), write(d, "via dup", 7));
	printf("read %zd '%s'\n", read(p[0], buf, sizeof buf - 1), buf);
	printf("setfl %d %d\n", fcntl(p[0], F_SETFL, O_NONBLOCK), (fcntl(p[0], F_GETFL) & O_NONBLOCK) != 0);
	printf("empty read %zd %s\n", read(p[0], buf, 1), strerror(errno));
	printf("chdir %d\n", chdir(dir));
	char cwd[4096];
	const char *tail = getcwd(cwd, sizeof cwd) ? strrchr(cwd, '/') : "(none)";
	printf("getcwd %s\n", tail);
	struct stat st;
	printf("stat %d %lld\n", stat("a.txt", &st), (long long)st.st_size);
	printf("access %d %d\n", access("a.txt", R_OK), access("missing", F_OK));
	int f = open("a.txt", O_RDONLY);
	memset(buf, 0, sizeof buf);
	printf("pread %zd '%s'\n", pread(f, buf, 5, 2), buf);
	off_t off = 1;
	fflush(stdout);
	printf("\nsendfile %zd\n", sendfile(1, f, &off, 4));
	printf("offset %lld\n", (long long)off);
	close(f);
}

static void try_writes(const char *dir)
{
	if (chdir(dir) != 0)
		return;
	printf("mkdir %s\n", mkdir("new", 0755) ? strerror(errno) : "ok");
	printf("unlink %s\n", unlink("a.txt") ? strerror(errno) : "ok");
	printf("rename %s\n", rename("b.txt", "c.txt") ? strerror(errno) : "ok");
	printf("chmod %s\n", chmod("b.txt", 0600) ? strerror(errno) : "ok");
	printf("truncate %s\n", truncate("b.txt", 0) ? strerror(errno) : "ok");
	int f = open("b.txt", O_RDONLY);
	printf("ftruncate %s\n", ftruncate(f, 0) ? strerror(errno) : "ok");
	printf("rmdir %s\n", rmdir("sub") ? strerror(errno) : "ok");
	printf("access_w %s\n", access("b.txt", W_OK) ? strerror(errno) : "ok");
	printf("create %s\n", open("new.txt", O_WRONLY | O_CREAT | O_TRUNC, 0644) < 0 ? strerror(errno) : "ok");
	printf("openw %s\n", open("a.txt", O_WRONLY) < 0 ? strerror(errno) : "ok");
	printf("append %s\n", fopen("b.txt", "a") ? "ok" : strerror(errno));
	printf("openr %s\n", open("a.txt", O_RDONLY | O_CREAT, 0644) < 0 ? strerror(errno) : "ok");
	int n = open("/dev/null", O_WRONLY);
	printf("devnull %s %zd\n", n < 0 ? strerror(errno) : "ok", write(n, "x", 1));
	/* what the directory holds now, and a file written and read back */
	int w = open("made.txt", O_WRONLY | O_CREAT | O_EXCL, 0600);
	printf("made %zd\n", w < 0 ? (ssize_t)-errno : write(w, "written\n", 8));
	close(w);
	char back[16] = { 0 };
	int r = open("made.txt", O_RDONLY);
	printf("read back %zd %s", r < 0 ? (ssize_t)-1 : read(r, back, sizeof back - 1), back);
	printf("symlink %s\n", symlink("made.txt", "link") ? strerror(errno) : "ok");
	printf("mkdir sub2 %s\n", mkdir("sub2", 0700) ? strerror(errno) : "ok");
	printf("rename into %s\n", rename("made.txt", "sub2/m.txt") ? strerror(errno) : "ok");
	list(".");
}

/* Ways out of a --root directory: "..", symbolic links to "/" and up, an
 * absolute path. Each creates a file; under --root DIR all must land in
 * DIR (tests/cli/emulate-root.sh checks nothing appears outside). */
static void escape(const char *dir)
{
	if (chdir(dir) != 0)
		return;
	printf("dotdot %s\n", open("../../../../../escaped-dotdot.txt", O_WRONLY | O_CREAT, 0644) < 0 ? strerror(errno) : "ok");
	symlink("/", "slash");
	symlink("../../../../..", "up");
	printf("via slash %s\n", open("slash/escaped-slash.txt", O_WRONLY | O_CREAT, 0644) < 0 ? strerror(errno) : "ok");
	printf("via up %s\n", open("up/escaped-up.txt", O_WRONLY | O_CREAT, 0644) < 0 ? strerror(errno) : "ok");
	printf("mkdir via up %s\n", mkdir("up/escaped-dir", 0755) ? strerror(errno) : "ok");
	printf("absolute %s\n", open("/escaped-abs.txt", O_WRONLY | O_CREAT, 0644) < 0 ? strerror(errno) : "ok");
}

/* F_SETFL on the guest's stdin: the guest sees it (and a dup of fd 0
 * does too), trawl's own stdin must not change (tests/cli/emulate-fds.sh) */
static void nonblock(void)
{
	char buf[8] = { 0 };
	printf("setfl %d\n", fcntl(0, F_SETFL, fcntl(0, F_GETFL) | O_NONBLOCK));
	int d = dup(0);
	printf("getfl %d dup %d\n", (fcntl(0, F_GETFL) & O_NONBLOCK) != 0,
	       (fcntl(d, F_GETFL) & O_NONBLOCK) != 0);
	printf("read %zd '%s'\n", read(0, buf, 5), buf);
	printf("clear %d %d\n", fcntl(d, F_SETFL, 0), (fcntl(0, F_GETFL) & O_NONBLOCK) != 0);
	printf("setfl again %d\n", fcntl(0, F_SETFL, O_NONBLOCK));
}

/* the clocks a program reads: the wall clock three ways (time() calls
 * clock_gettime, gettimeofday its own system call), the monotonic one */
static void clocks(void)
{
	struct timeval tv;
	struct timezone tz = { 1, 1 };
	struct timespec rt, mono;
	long t = (long)time(NULL);
	int g = gettimeofday(&tv, &tz);
	clock_gettime(CLOCK_REALTIME, &rt);
	clock_gettime(CLOCK_MONOTONIC, &mono);
	printf("clocks %ld %d %ld %ld %ld %d %d\n", t, g, (long)tv.tv_sec, (long)rt.tv_sec,
	       (long)mono.tv_sec, tz.tz_minuteswest, tz.tz_dsttime);
	printf("clocks ordered %d\n", tv.tv_usec >= 0 && tv.tv_usec < 1000000 && t <= tv.tv_sec &&
	       tv.tv_sec <= rt.tv_sec);
}

int main(int argc, char **argv)
{
	if (argc == 2 && strcmp(argv[1], "clocks") == 0) {
		clocks();
		return 0;
	}
	if (argc == 2 && strcmp(argv[1], "nonblock") == 0) {
		nonblock();
		return 0;
	}
	if (argc == 3 && strcmp(argv[1], "write") == 0) {
		try_writes(argv[2]);
		return 0;
	}
	if (argc == 3 && strcmp(argv[1], "escape") == 0) {
		escape(argv[2]);
		return 0;
	}
	if (argc == 2 && strcmp(argv[1], "socket") == 0)
		return (int)syscall(SYS_socket, 2, 1, 0) < 0;
	if (argc != 2) {
		fprintf(stderr, "usage: syscalls DIR | syscalls write DIR | syscalls clocks\n");
		return 2;
	}
	list(argv[1]);
	process();
	memory();
	files(argv[1]);
	return 3; /* an exit status the test checks */
}
