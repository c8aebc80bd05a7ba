/* Linux system calls for emulated AArch64 programs.
 *
 * Numbers are the asm-generic ones AArch64 uses (include/uapi/asm-generic/
 * unistd.h). Arguments arrive in X0-X5 with the number in X8; the result,
 * or -errno, goes back in X0. Files are real host files: the guest's file
 * descriptors map onto host descriptors through a small table. Structures
 * whose layout differs between the AArch64 guest and the host (struct stat)
 * are converted field by field. Anything not listed stops the run with a
 * message naming the call number and PC.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#include "emu/sys.h"

#if defined(TRAWL_HAVE_UNICORN) && defined(TRAWL_HAVE_CAPSTONE)

enum {
	SYS_getcwd = 17, SYS_ioctl = 29, SYS_faccessat = 48, SYS_openat = 56, SYS_close = 57,
	SYS_lseek = 62, SYS_read = 63, SYS_write = 64, SYS_readv = 65, SYS_writev = 66,
	SYS_pread64 = 67, SYS_pwrite64 = 68, SYS_readlinkat = 78, SYS_newfstatat = 79,
	SYS_fstat = 80, SYS_exit = 93, SYS_exit_group = 94, SYS_set_tid_address = 96,
	SYS_futex = 98, SYS_set_robust_list = 99, SYS_nanosleep = 101, SYS_clock_gettime = 113,
	SYS_gettimeofday = 169,
	SYS_sched_yield = 124, SYS_kill = 129, SYS_tgkill = 131, SYS_sigaltstack = 132,
	SYS_rt_sigaction = 134, SYS_rt_sigprocmask = 135, SYS_rt_sigpending = 136, SYS_rt_sigreturn = 139, SYS_uname = 160, SYS_getpid = 172,
	SYS_getppid = 173, SYS_getuid = 174, SYS_geteuid = 175, SYS_getgid = 176,
	SYS_getegid = 177, SYS_gettid = 178, SYS_brk = 214, SYS_munmap = 215, SYS_mremap = 216,
	SYS_mmap = 222, SYS_mprotect = 226, SYS_madvise = 233, SYS_prlimit64 = 261,
	SYS_getrandom = 278, SYS_rseq = 293,
	SYS_dup = 23, SYS_dup3 = 24, SYS_fcntl = 25, SYS_mknodat = 33, SYS_mkdirat = 34,
	SYS_unlinkat = 35, SYS_symlinkat = 36, SYS_linkat = 37, SYS_renameat = 38, SYS_truncate = 45,
	SYS_ftruncate = 46, SYS_fallocate = 47, SYS_chdir = 49, SYS_fchdir = 50, SYS_fchmod = 52,
	SYS_fchmodat = 53, SYS_fchownat = 54, SYS_fchown = 55, SYS_pipe2 = 59,
	SYS_getdents64 = 61, SYS_sendfile = 71, SYS_fsync = 82, SYS_fdatasync = 83,
	SYS_utimensat = 88, SYS_clock_nanosleep = 115, SYS_sched_getaffinity = 123,
	SYS_times = 153, SYS_getrusage = 165, SYS_umask = 166, SYS_prctl = 167,
	SYS_sysinfo = 179, SYS_renameat2 = 276, SYS_membarrier = 283, SYS_statx = 291,
	SYS_faccessat2 = 439, SYS_clone = 220, SYS_execve = 221, SYS_clone3 = 435,
};

#define GUEST_PID 4242 /* also in sys-proc.c */
#define GUEST_AT_FDCWD (-100)
#define GUEST_TCGETS 0x5401
/* AArch64 open flags that differ from x86-64 (asm-generic/fcntl.h vs x86) */
#define GUEST_O_DIRECTORY 040000
#define GUEST_O_NOFOLLOW 0100000
#define GUEST_O_DIRECT 0200000
#define GUEST_O_LARGEFILE 0400000

static uint64_t reg(struct trawl_emu *e, int n)
{
	uint64_t v = 0;
	uc_reg_read(e->uc, UC_ARM64_REG_X0 + n, &v);
	return v;
}

/* Write guest memory on behalf of the kernel, and remember the range so the
 * trace shows it as MW lines of the SVC: the memory contents a trace
 * describes stay complete across read(), fstat() and the like. */
uc_err emu_guest_write(struct trawl_emu *e, uint64_t addr, const void *data, size_t len)
{
	uc_err ue = uc_mem_write(e->uc, addr, data, len);
	if (ue == UC_ERR_OK)
		emu_code_written(e, addr, len);
	if (ue == UC_ERR_OK && len && e->nsysw < EMU_MAX_SYSW) {
		struct emu_range *last = e->nsysw ? &e->sysw[e->nsysw - 1] : NULL;
		if (last && last->addr + last->len == addr)
			last->len += len;
		else
			e->sysw[e->nsysw++] = (struct emu_range){ addr, len };
	}
	return ue;
}

int emu_read_string(struct trawl_emu *e, uint64_t addr, char *buf, size_t cap)
{
	for (size_t i = 0; i < cap; i++) {
		if (uc_mem_read(e->uc, addr + i, buf + i, 1) != UC_ERR_OK)
			return -1;
		if (buf[i] == 0)
			return 0;
	}
	return -1;
}

int emu_host_fd(struct trawl_emu *e, uint64_t fd)
{
	return fd < EMU_MAX_FDS ? e->host_fd[fd] : -1;
}

/* Copy between guest memory and a host buffer in bounded pieces. */
static int64_t guest_io(struct trawl_emu *e, int fd, uint64_t addr, uint64_t len, int writing,
			int64_t off)
{
	char buf[65536];
	uint64_t done = 0;
	while (done < len) {
		size_t n = len - done > sizeof buf ? sizeof buf : (size_t)(len - done);
		ssize_t r;
		if (writing) {
			if (uc_mem_read(e->uc, addr + done, buf, n) != UC_ERR_OK)
				return done ? (int64_t)done : -EFAULT;
			r = off >= 0 ? pwrite(fd, buf, n, off + (int64_t)done) : write(fd, buf, n);
		} else {
			r = off >= 0 ? pread(fd, buf, n, off + (int64_t)done) : read(fd, buf, n);
			if (r > 0 && emu_guest_write(e, addr + done, buf, (size_t)r) != UC_ERR_OK)
				return done ? (int64_t)done : -EFAULT;
		}
		if (r < 0)
			return done ? (int64_t)done : -errno;
		done += (uint64_t)r;
		if ((size_t)r < n)
			break;
	}
	return (int64_t)done;
}

static int64_t sys_iov(struct trawl_emu *e, int fd, uint64_t iov, uint64_t cnt, int writing)
{
	if (fd < 0)
		return -EBADF;
	if (cnt > 1024)
		return -EINVAL;
	int64_t total = 0;
	for (uint64_t i = 0; i < cnt; i++) {
		uint64_t v[2];
		if (uc_mem_read(e->uc, iov + 16 * i, v, 16) != UC_ERR_OK)
			return -EFAULT;
		int64_t r = guest_io(e, fd, v[0], v[1], writing, -1);
		if (r < 0)
			return total ? total : r;
		total += r;
		if ((uint64_t)r < v[1])
			break;
	}
	return total;
}

/* struct stat as the AArch64 kernel lays it out (asm-generic/stat.h). */
static int64_t put_stat(struct trawl_emu *e, uint64_t addr, const struct stat *st)
{
	uint8_t b[128] = { 0 };
#define PUT(off, type, val) do { type v_ = (type)(val); memcpy(b + (off), &v_, sizeof v_); } while (0)
	PUT(0, uint64_t, st->st_dev);
	PUT(8, uint64_t, st->st_ino);
	PUT(16, uint32_t, st->st_mode);
	PUT(20, uint32_t, st->st_nlink);
	PUT(24, uint32_t, st->st_uid);
	PUT(28, uint32_t, st->st_gid);
	PUT(32, uint64_t, st->st_rdev);
	PUT(48, int64_t, st->st_size);
	PUT(56, int32_t, st->st_blksize);
	PUT(64, int64_t, st->st_blocks);
	PUT(72, int64_t, st->st_atim.tv_sec);
	PUT(80, int64_t, st->st_atim.tv_nsec);
	PUT(88, int64_t, st->st_mtim.tv_sec);
	PUT(96, int64_t, st->st_mtim.tv_nsec);
	PUT(104, int64_t, st->st_ctim.tv_sec);
	PUT(112, int64_t, st->st_ctim.tv_nsec);
#undef PUT
	return emu_guest_write(e, addr, b, sizeof b) == UC_ERR_OK ? 0 : -EFAULT;
}

static int open_flags(uint64_t g)
{
	int f = (int)(g & (O_ACCMODE | O_CREAT | O_EXCL | O_NOCTTY | O_TRUNC | O_APPEND |
			   O_NONBLOCK | O_CLOEXEC));
	if (g & GUEST_O_DIRECTORY)
		f |= O_DIRECTORY;
	if (g & GUEST_O_NOFOLLOW)
		f |= O_NOFOLLOW;
	return f | O_CLOEXEC;
}

int emu_dir_fd(struct trawl_emu *e, uint64_t g)
{
	if ((int32_t)g == GUEST_AT_FDCWD)
		return e->cwd_fd >= 0 ? e->cwd_fd : AT_FDCWD;
	int fd = emu_host_fd(e, g);
	return fd < 0 ? -2 : fd;
}

/* /proc/self/maps as the program's own memory: the host's file lists the
 * emulator's, where glibc looks for the main thread's stack
 * (pthread_getattr_np) and a program for its mappings. Made from
 * Unicorn's regions into an anonymous file when opened. */
static int is_proc_maps(const char *name)
{
	return !strcmp(name, "/proc/self/maps") || !strcmp(name, "/proc/thread-self/maps") ||
	       !strcmp(name, "/proc/4242/maps");
}

static int64_t proc_maps_open(struct trawl_emu *e)
{
	uc_mem_region *r = NULL;
	uint32_t n = 0;
	if (uc_mem_regions(e->uc, &r, &n) != UC_ERR_OK)
		return -ENOMEM;
	int fd = memfd_create("maps", MFD_CLOEXEC);
	if (fd < 0) {
		uc_free(r);
		return -errno;
	}
	uint64_t top = e->opt.stack_top ? e->opt.stack_top : EMU_STACK_TOP;
	FILE *f = fdopen(dup(fd), "w");
	for (uint32_t i = 0; f && i < n; i++) {
		uint64_t lo = r[i].begin, hi = r[i].end + 1;
		const char *what = lo >= top - EMU_STACK_SIZE && hi <= top ? "[stack]" :
				   lo >= e->brk_start && hi <= e->brk_mapped ? "[heap]" : "";
		fprintf(f, "%08llx-%08llx %c%c%cp 00000000 00:00 0%s%s\n", (unsigned long long)lo,
			(unsigned long long)hi, (r[i].perms & UC_PROT_READ) ? 'r' : '-',
			(r[i].perms & UC_PROT_WRITE) ? 'w' : '-', (r[i].perms & UC_PROT_EXEC) ? 'x' : '-',
			*what ? "                          " : "", what);
	}
	uc_free(r);
	if (!f || fclose(f) != 0 || lseek(fd, 0, SEEK_SET) != 0) {
		close(fd);
		return -EIO;
	}
	return fd;
}

/* /proc/self/fd/N (thread-self, 4242) names the program's descriptor N;
 * the host's N is trawl's own (the trace file, say). 1 and the host's
 * path in out when name is one, -ENOENT for a descriptor not open, 0 for
 * any other name. */
static int proc_fd_path(struct trawl_emu *e, const char *name, char *out, size_t size)
{
	static const char *const pre[] = { "/proc/self/fd/", "/proc/thread-self/fd/", "/proc/4242/fd/" };
	for (size_t i = 0; i < sizeof pre / sizeof pre[0]; i++) {
		size_t n = strlen(pre[i]);
		if (strncmp(name, pre[i], n) || name[n] < '0' || name[n] > '9')
			continue;
		char *end;
		unsigned long g = strtoul(name + n, &end, 10);
		if (*end)
			return 0;
		int h = g < EMU_MAX_FDS ? emu_host_fd(e, g) : -1;
		if (h < 0)
			return -ENOENT;
		snprintf(out, size, "/proc/self/fd/%d", h);
		return 1;
	}
	return 0;
}

static int64_t sys_openat(struct trawl_emu *e, uint64_t dfd, uint64_t path, uint64_t flags,
			  uint64_t mode)
{
	char name[PATH_MAX], host[64];
	if (emu_read_string(e, path, name, sizeof name) != 0)
		return -EFAULT;
	int pf = proc_fd_path(e, name, host, sizeof host);
	if (pf < 0)
		return pf;
	if (pf)
		snprintf(name, sizeof name, "%s", host);
	if (is_proc_maps(name) && (flags & O_ACCMODE) == O_RDONLY) {
		int slot = emu_fd_alloc(e, 0);
		if (slot < 0)
			return slot;
		int64_t fd = proc_maps_open(e);
		if (fd < 0)
			return fd;
		emu_fd_set_slot(e, slot, (int)fd, (flags & O_CLOEXEC) != 0);
		e->in_root[slot] = 0;
		return slot;
	}
	int d = emu_dir_fd(e, dfd);
	if (d == -2)
		return -EBADF;
	int slot = emu_fd_alloc(e, 0);
	if (slot < 0)
		return slot;
	int fd, in_root = 0;
	if (e->has_root) {
		int writing = (flags & O_ACCMODE) != O_RDONLY || (flags & (O_TRUNC | O_CREAT));
		int64_t r = emu_root_open(e, dfd, name, writing, open_flags(flags), mode, &in_root);
		if (r < 0)
			return r;
		fd = (int)r;
	} else {
		int64_t ro = emu_open_readonly_check(d, name, (int)flags);
		if (ro == -EROFS)
			emu_root_refused(e, "openat", name);
		if (ro < 0)
			return ro;
		fd = openat(d, name, open_flags(flags), (mode_t)mode);
		if (fd < 0)
			return -errno;
	}
	emu_fd_set_slot(e, slot, fd, (flags & O_CLOEXEC) != 0);
	e->in_root[slot] = (uint8_t)in_root;
	return slot;
}

static int64_t sys_close(struct trawl_emu *e, uint64_t fd)
{
	if (emu_host_fd(e, fd) < 0)
		return -EBADF;
	emu_fd_release(e, (int)fd);
	return 0;
}

/* Unicorn (QEMU) aborts when it has about 4096 memory sections: refuse
 * new mappings long before that, as a kernel out of map slots would. */
static int too_many_regions(struct trawl_emu *e)
{
	uc_mem_region *r = NULL;
	uint32_t n = 0;
	if (uc_mem_regions(e->uc, &r, &n) != UC_ERR_OK)
		return 1;
	uc_free(r);
	return n > 2000;
}

static int64_t sys_brk(struct trawl_emu *e, uint64_t want)
{
	if (want < e->brk_start || want > e->brk_start + EMU_BRK_LIMIT)
		return (int64_t)e->brk_cur;
	uint64_t need = (want + EMU_PAGE - 1) & ~(uint64_t)(EMU_PAGE - 1);
	if (need > e->brk_mapped) {
		/* grow the mapping by doubling (at least 1 MiB): one region per
		 * brk call would exhaust Unicorn's memory sections */
		uint64_t size = e->brk_mapped - e->brk_start, grow = need - e->brk_mapped;
		if (grow < size)
			grow = size;
		if (grow < (1u << 20))
			grow = 1u << 20;
		if (e->brk_mapped + grow > e->brk_start + EMU_BRK_LIMIT)
			grow = e->brk_start + EMU_BRK_LIMIT - e->brk_mapped;
		if (too_many_regions(e) ||
		    uc_mem_map(e->uc, e->brk_mapped, grow, UC_PROT_READ | UC_PROT_WRITE) != UC_ERR_OK)
			return (int64_t)e->brk_cur;
		e->brk_mapped += grow;
	}
	/* shrinking keeps the pages mapped; the kernel would zero them on regrowth */
	if (want < e->brk_cur) {
		static const uint8_t zero[4096];
		for (uint64_t a = want; a < e->brk_cur;) {
			uint64_t n = e->brk_cur - a > sizeof zero ? sizeof zero : e->brk_cur - a;
			emu_guest_write(e, a, zero, n);
			a += n;
		}
	}
	e->brk_cur = want;
	return (int64_t)want;
}

static uint32_t guest_prot(uint64_t prot)
{
	uint32_t p = 0;
	if (prot & 1)
		p |= UC_PROT_READ;
	if (prot & 2)
		p |= UC_PROT_WRITE;
	if (prot & 4)
		p |= UC_PROT_EXEC;
	return p;
}

static int64_t sys_mmap(struct trawl_emu *e, uint64_t addr, uint64_t len, uint64_t prot,
			uint64_t flags, uint64_t fd, uint64_t off)
{
	const uint64_t MAP_FIXED_ = 0x10, MAP_ANON_ = 0x20;
	if (len == 0 || len > (UINT64_C(1) << 40) || (off & (EMU_PAGE - 1)))
		return -EINVAL;
	len = (len + EMU_PAGE - 1) & ~(uint64_t)(EMU_PAGE - 1);
	if (!(flags & MAP_ANON_) && emu_host_fd(e, fd) < 0)
		return -EBADF;
	uint64_t at;
	if (flags & MAP_FIXED_) {
		if (addr & (EMU_PAGE - 1))
			return -EINVAL;
		at = addr;
		uc_mem_unmap(e->uc, at, len); /* replaces what was there, if anything */
	} else {
		at = e->mmap_next;
		e->mmap_next += len + EMU_PAGE; /* a guard page between regions */
	}
	/* map writable first so file contents can be copied in */
	if (too_many_regions(e) || uc_mem_map(e->uc, at, len, UC_PROT_ALL) != UC_ERR_OK)
		return -ENOMEM;
	if (!(flags & MAP_ANON_)) {
		int64_t r = guest_io(e, emu_host_fd(e, fd), at, len, 0, (int64_t)off);
		if (r < 0) {
			uc_mem_unmap(e->uc, at, len);
			return r;
		}
	}
	if (uc_mem_protect(e->uc, at, len, guest_prot(prot)) != UC_ERR_OK) {
		uc_mem_unmap(e->uc, at, len);
		return -ENOMEM;
	}
	emu_code_written(e, at, len);   /* new contents where code may have been */
	return (int64_t)at;
}

static int64_t sys_munmap(struct trawl_emu *e, uint64_t addr, uint64_t len)
{
	if ((addr & (EMU_PAGE - 1)) || len == 0)
		return -EINVAL;
	len = (len + EMU_PAGE - 1) & ~(uint64_t)(EMU_PAGE - 1);
	/* unmapping something not mapped is not an error on Linux */
	uc_mem_unmap(e->uc, addr, len);
	return 0;
}

static int64_t sys_mprotect(struct trawl_emu *e, uint64_t addr, uint64_t len, uint64_t prot)
{
	if (addr & (EMU_PAGE - 1))
		return -EINVAL;
	len = (len + EMU_PAGE - 1) & ~(uint64_t)(EMU_PAGE - 1);
	if (len == 0)
		return 0;
	return uc_mem_protect(e->uc, addr, len, guest_prot(prot)) == UC_ERR_OK ? 0 : -ENOMEM;
}

static int64_t sys_uname(struct trawl_emu *e, uint64_t addr)
{
	char u[6][65];
	memset(u, 0, sizeof u);
	strcpy(u[0], "Linux");
	strcpy(u[1], "trawl");
	strcpy(u[2], "6.1.0");
	strcpy(u[3], "#1 SMP trawl emulate");
	strcpy(u[4], "aarch64");
	return emu_guest_write(e, addr, u, sizeof u) == UC_ERR_OK ? 0 : -EFAULT;
}

/* Deterministic "random" bytes, so that traces can be reproduced. */
static int64_t sys_getrandom(struct trawl_emu *e, uint64_t addr, uint64_t len)
{
	if (len > 1 << 20)
		len = 1 << 20;
	for (uint64_t i = 0; i < len; i++) {
		e->rng ^= e->rng << 13;
		e->rng ^= e->rng >> 7;
		e->rng ^= e->rng << 17;
		uint8_t b = (uint8_t)e->rng;
		if (emu_guest_write(e, addr + i, &b, 1) != UC_ERR_OK)
			return -EFAULT;
	}
	return (int64_t)len;
}

static int64_t sys_prlimit(struct trawl_emu *e, uint64_t resource, uint64_t old)
{
	const uint64_t RLIMIT_STACK_ = 3, RLIMIT_NOFILE_ = 7;
	if (!old)
		return 0;
	uint64_t v[2] = { UINT64_MAX, UINT64_MAX };
	if (resource == RLIMIT_STACK_)
		v[0] = EMU_STACK_SIZE;
	if (resource == RLIMIT_NOFILE_)
		v[0] = v[1] = EMU_MAX_FDS;
	return emu_guest_write(e, old, v, sizeof v) == UC_ERR_OK ? 0 : -EFAULT;
}

static int64_t sys_readlinkat(struct trawl_emu *e, uint64_t dfd, uint64_t path, uint64_t buf,
			      uint64_t size)
{
	char name[PATH_MAX], target[PATH_MAX];
	if (emu_read_string(e, path, name, sizeof name) != 0)
		return -EFAULT;
	ssize_t n;
	char host[64];
	int pf = proc_fd_path(e, name, host, sizeof host);
	if (pf < 0)
		return pf;
	if (pf)
		snprintf(name, sizeof name, "%s", host);
	if (strcmp(name, "/proc/self/exe") == 0) {
		if (!realpath(e->path, target))
			snprintf(target, sizeof target, "%s", e->path);
		n = (ssize_t)strlen(target);
	} else {
		int d = emu_dir_fd(e, dfd);
		if (d == -2)
			return -EBADF;
		n = readlinkat(d, name, target, sizeof target);
		if (n < 0)
			return -errno;
	}
	if ((uint64_t)n > size)
		n = (ssize_t)size;
	return emu_guest_write(e, buf, target, (size_t)n) == UC_ERR_OK ? n : -EFAULT;
}

static int64_t sys_ioctl(struct trawl_emu *e, uint64_t fd, uint64_t req, uint64_t arg)
{
	int h = emu_host_fd(e, fd);
	if (h < 0)
		return -EBADF;
	if (req != GUEST_TCGETS)
		return -ENOTTY;
	struct termios t;
	if (tcgetattr(h, &t) != 0)
		return -errno;
	/* the kernel's struct termios (not glibc's): 4 flag words, line, 19 cc */
	uint8_t b[36] = { 0 };
	uint32_t f[4] = { t.c_iflag, t.c_oflag, t.c_cflag, t.c_lflag };
	memcpy(b, f, 16);
	b[16] = t.c_line;
	memcpy(b + 17, t.c_cc, 19);
	return emu_guest_write(e, arg, b, sizeof b) == UC_ERR_OK ? 0 : -EFAULT;
}

static int64_t sys_clock_gettime(struct trawl_emu *e, uint64_t clk, uint64_t addr)
{
	int64_t v[2];
	int64_t r = emu_clock_now(e, clk, v);
	if (r)
		return r;
	return emu_guest_write(e, addr, v, sizeof v) == UC_ERR_OK ? 0 : -EFAULT;
}

static int64_t sys_fstatat(struct trawl_emu *e, uint64_t dfd, uint64_t path, uint64_t buf,
			   uint64_t flags)
{
	char name[PATH_MAX], under[PATH_MAX];
	struct stat st;
	if (emu_read_string(e, path, name, sizeof name) != 0)
		return -EFAULT;
	int d;
	const char *p = emu_root_read_path(e, dfd, name, under, sizeof under, &d);
	if (d == -2)
		return -EBADF;
	/* AT_SYMLINK_NOFOLLOW 0x100 and AT_EMPTY_PATH 0x1000 are the same on both */
	if (fstatat(d, p, &st, (int)(flags & 0x1100)) != 0)
		return -errno;
	return put_stat(e, buf, &st);
}

static int64_t h_exit(struct trawl_emu *e, struct sys_call *c)
{
	e->res.exit_code = (int)(c->a[0] & 0xff);
	c->stop = 1;
	return 0;
}

/* read, write, pread64, pwrite64: one guest_io each, offset -1 = current */
static int64_t fd_io(struct trawl_emu *e, struct sys_call *c, int writing, int64_t off)
{
	int h = emu_host_fd(e, c->a[0]);
	if (h < 0)
		return -EBADF;
	int64_t wb = emu_fd_would_block(e, c->a[0], writing);
	return wb ? wb : guest_io(e, h, c->a[1], c->a[2], writing, off);
}

static int64_t h_read(struct trawl_emu *e, struct sys_call *c)
{
	return fd_io(e, c, 0, -1);
}

static int64_t h_write(struct trawl_emu *e, struct sys_call *c)
{
	return fd_io(e, c, 1, -1);
}

static int64_t h_pread64(struct trawl_emu *e, struct sys_call *c)
{
	return fd_io(e, c, 0, (int64_t)c->a[3]);
}

static int64_t h_pwrite64(struct trawl_emu *e, struct sys_call *c)
{
	return fd_io(e, c, 1, (int64_t)c->a[3]);
}

static int64_t h_readv(struct trawl_emu *e, struct sys_call *c)
{
	int64_t wb = emu_fd_would_block(e, c->a[0], 0);
	return wb ? wb : sys_iov(e, emu_host_fd(e, c->a[0]), c->a[1], c->a[2], 0);
}

static int64_t h_writev(struct trawl_emu *e, struct sys_call *c)
{
	int64_t wb = emu_fd_would_block(e, c->a[0], 1);
	return wb ? wb : sys_iov(e, emu_host_fd(e, c->a[0]), c->a[1], c->a[2], 1);
}

static int64_t h_openat(struct trawl_emu *e, struct sys_call *c)
{
	return sys_openat(e, c->a[0], c->a[1], c->a[2], c->a[3]);
}

static int64_t h_close(struct trawl_emu *e, struct sys_call *c)
{
	return sys_close(e, c->a[0]);
}

static int64_t h_lseek(struct trawl_emu *e, struct sys_call *c)
{
	int h = emu_host_fd(e, c->a[0]);
	if (h < 0)
		return -EBADF;
	int64_t r = lseek(h, (off_t)c->a[1], (int)c->a[2]);
	return r < 0 ? -errno : r;
}

static int64_t h_fstat(struct trawl_emu *e, struct sys_call *c)
{
	struct stat st;
	int h = emu_host_fd(e, c->a[0]);
	if (h < 0)
		return -EBADF;
	return fstat(h, &st) == 0 ? put_stat(e, c->a[1], &st) : -errno;
}

static int64_t h_newfstatat(struct trawl_emu *e, struct sys_call *c)
{
	return sys_fstatat(e, c->a[0], c->a[1], c->a[2], c->a[3]);
}

/* faccessat and faccessat2 (flags in X3; AT_EACCESS 0x200 and
 * AT_SYMLINK_NOFOLLOW 0x100 are the same on the host). Asking to write a
 * host file outside --root answers EROFS, as the write itself would. */
static int64_t h_faccessat(struct trawl_emu *e, struct sys_call *c)
{
	char name[PATH_MAX], buf[PATH_MAX];
	int flags = c->nr == SYS_faccessat2 ? (int)(c->a[3] & 0x1300) : 0;
	if (emu_read_string(e, c->a[1], name, sizeof name) != 0)
		return -EFAULT;
	int d;
	const char *p = emu_root_read_path(e, c->a[0], name, buf, sizeof buf, &d);
	if (d == -2)
		return -EBADF;
	if (faccessat(d, p, (int)c->a[2], flags) != 0)
		return -errno;
	struct stat st;
	/* writable only under the root (read_path chose it: p == buf) */
	if ((c->a[2] & W_OK) && p != buf && fstatat(d, p, &st, flags & 0x1100) == 0 &&
	    (S_ISREG(st.st_mode) || S_ISDIR(st.st_mode) || S_ISLNK(st.st_mode)))
		return -EROFS;
	return 0;
}

static int64_t h_brk(struct trawl_emu *e, struct sys_call *c)
{
	return sys_brk(e, c->a[0]);
}

/* A file mapping is a copy of the file's bytes (sys_mmap), which a shared
 * writable one must not be: the program's stores would never reach the
 * file, and what it read back would differ from Linux with nothing said.
 * So that one stops the run; the others get Linux's access checks first. */
static int64_t h_mmap(struct trawl_emu *e, struct sys_call *c)
{
	const uint64_t MAP_ANON_ = 0x20, PROT_WRITE_ = 2;
	uint64_t type = c->a[3] & 0xf; /* MAP_SHARED 1, MAP_PRIVATE 2, MAP_SHARED_VALIDATE 3 */
	int h = (c->a[3] & MAP_ANON_) ? -1 : emu_host_fd(e, c->a[4]);
	int mode = h >= 0 ? fcntl(h, F_GETFL) : -1;
	if (mode >= 0) {
		int shared = type == 1 || type == 3;
		mode &= O_ACCMODE;
		if (mode == O_WRONLY || (shared && (c->a[2] & PROT_WRITE_) && mode != O_RDWR))
			return -EACCES;
		if (shared && (c->a[2] & PROT_WRITE_)) {
			emu_fault(e, e->cur ? e->cur->pc : 0, 0,
				  "mmap of fd %d shared and writable (MAP_SHARED with PROT_WRITE) is not emulated: "
				  "the program's stores would not reach the file",
				  (int)c->a[4]);
			c->stop = 2;
			return 0;
		}
	}
	return sys_mmap(e, c->a[0], c->a[1], c->a[2], c->a[3], c->a[4], c->a[5]);
}

static int64_t h_munmap(struct trawl_emu *e, struct sys_call *c)
{
	return sys_munmap(e, c->a[0], c->a[1]);
}

static int64_t h_mprotect(struct trawl_emu *e, struct sys_call *c)
{
	return sys_mprotect(e, c->a[0], c->a[1], c->a[2]);
}

/* register: tell the program it runs on CPU 0 (cpu_id_start, cpu_id) */
static int64_t h_rseq(struct trawl_emu *e, struct sys_call *c)
{
	if (c->a[2] & 1)
		return 0;
	uint32_t ids[2] = { 0, 0 };
	return emu_guest_write(e, c->a[0], ids, sizeof ids) == UC_ERR_OK ? 0 : -EFAULT;
}

static int64_t h_uname(struct trawl_emu *e, struct sys_call *c)
{
	return sys_uname(e, c->a[0]);
}

static int64_t h_getrandom(struct trawl_emu *e, struct sys_call *c)
{
	return sys_getrandom(e, c->a[0], c->a[1]);
}

static int64_t h_prlimit64(struct trawl_emu *e, struct sys_call *c)
{
	return sys_prlimit(e, c->a[1], c->a[3]);
}

static int64_t h_readlinkat(struct trawl_emu *e, struct sys_call *c)
{
	return sys_readlinkat(e, c->a[0], c->a[1], c->a[2], c->a[3]);
}

static int64_t h_ioctl(struct trawl_emu *e, struct sys_call *c)
{
	return sys_ioctl(e, c->a[0], c->a[1], c->a[2]);
}

static int64_t h_clock_gettime(struct trawl_emu *e, struct sys_call *c)
{
	return sys_clock_gettime(e, c->a[0], c->a[1]);
}

/* glibc's gettimeofday makes this call (AArch64 has no vDSO here):
 * CLOCK_REALTIME in microseconds; the time zone, when asked, is UTC. */
static int64_t h_gettimeofday(struct trawl_emu *e, struct sys_call *c)
{
	int64_t ts[2];
	int64_t r = emu_clock_now(e, 0, ts);
	if (r)
		return r;
	int64_t tv[2] = { ts[0], ts[1] / 1000 };
	int32_t tz[2] = { 0, 0 };
	if (c->a[0] && emu_guest_write(e, c->a[0], tv, sizeof tv) != UC_ERR_OK)
		return -EFAULT;
	if (c->a[1] && emu_guest_write(e, c->a[1], tz, sizeof tz) != UC_ERR_OK)
		return -EFAULT;
	return 0;
}

/* One thread: FUTEX_WAKE wakes nobody (0). A wait whose value differs
 * fails with EAGAIN as on Linux; one whose value matches could only end by
 * its timeout (ETIMEDOUT) or never, which stops the run with a message. */
static int64_t h_futex(struct trawl_emu *e, struct sys_call *c)
{
	enum { WAIT = 0, WAKE = 1, WAIT_BITSET = 9, WAKE_BITSET = 10 };
	if (e->thr)
		return emu_sys_futex_threads(e, c);
	uint64_t op = c->a[1] & 0x7f; /* without FUTEX_PRIVATE_FLAG, CLOCK_REALTIME */
	if (op == WAKE || op == WAKE_BITSET)
		return 0;
	if (op != WAIT && op != WAIT_BITSET)
		return -ENOSYS;
	uint32_t v;
	if (uc_mem_read(e->uc, c->a[0], &v, 4) != UC_ERR_OK)
		return -EFAULT;
	if (v != (uint32_t)c->a[2])
		return -EAGAIN;
	if (c->a[3])
		return -ETIMEDOUT;
	uint64_t pc = 0;
	uc_reg_read(e->uc, UC_ARM64_REG_PC, &pc);
	emu_fault(e, e->cur ? e->cur->pc : pc - 4, c->a[0],
		  "futex wait on 0x%llx (value %u) with no timeout: the only thread would sleep for ever",
		  (unsigned long long)c->a[0], v);
	c->stop = 2;
	return 0;
}

/* clone3: glibc falls back to clone */
static int64_t h_enosys(struct trawl_emu *e, struct sys_call *c)
{
	(void)e;
	(void)c;
	return -ENOSYS;
}

static int64_t h_execve(struct trawl_emu *e, struct sys_call *c)
{
	char name[256];
	if (emu_read_string(e, c->a[0], name, sizeof name) != 0)
		snprintf(name, sizeof name, "(unreadable)");
	emu_fault(e, e->cur ? e->cur->pc : 0, 0,
		  "execve of '%s': trawl emulates one program and cannot trace another", name);
	c->stop = 2;
	return 0;
}

/* Calls answered with a constant: what a single-threaded process with no
 * signals delivered, no sleeping and no advice taken would see. */
static int64_t h_zero(struct trawl_emu *e, struct sys_call *c)
{
	(void)e;
	(void)c;
	return 0;
}

static int64_t h_pid(struct trawl_emu *e, struct sys_call *c)
{
	(void)e;
	(void)c;
	return GUEST_PID;
}

static int64_t h_ppid(struct trawl_emu *e, struct sys_call *c)
{
	(void)e;
	(void)c;
	return 1;
}

static int64_t h_uid(struct trawl_emu *e, struct sys_call *c)
{
	(void)e;
	(void)c;
	return 1000;
}

/* The protection of the mapped region holding addr, or -1. */
static int region_prot(struct trawl_emu *e, uint64_t addr, uint64_t len)
{
	uc_mem_region *r = NULL;
	uint32_t n = 0;
	int prot = -1;
	if (uc_mem_regions(e->uc, &r, &n) != UC_ERR_OK)
		return -1;
	for (uint32_t i = 0; i < n; i++)
		if (r[i].begin <= addr && addr + len - 1 <= r[i].end)
			prot = (int)r[i].perms;
	uc_free(r);
	return prot;
}

/* Shrink in place, grow in place when the pages after are free, or (with
 * MREMAP_MAYMOVE) move to a new region, copying the contents; the copy
 * appears in the trace as the SVC's memory writes. */
static int64_t sys_mremap(struct trawl_emu *e, uint64_t old, uint64_t olen, uint64_t nlen,
			  uint64_t flags)
{
	const uint64_t MAYMOVE = 1;
	if ((old & (EMU_PAGE - 1)) || nlen == 0 || (flags & ~MAYMOVE) || nlen > (UINT64_C(1) << 40))
		return -EINVAL;
	olen = (olen + EMU_PAGE - 1) & ~(uint64_t)(EMU_PAGE - 1);
	nlen = (nlen + EMU_PAGE - 1) & ~(uint64_t)(EMU_PAGE - 1);
	int prot = olen ? region_prot(e, old, olen) : -1;
	if (prot < 0)
		return -EFAULT;
	if (nlen <= olen) {
		if (nlen < olen)
			uc_mem_unmap(e->uc, old + nlen, olen - nlen);
		return (int64_t)old;
	}
	if (!too_many_regions(e) &&
	    uc_mem_map(e->uc, old + olen, nlen - olen, (uint32_t)prot) == UC_ERR_OK) {
		if (old + nlen > e->mmap_next)
			e->mmap_next = old + nlen + EMU_PAGE;
		emu_code_written(e, old + olen, nlen - olen);
		return (int64_t)old;
	}
	if (!(flags & MAYMOVE))
		return -ENOMEM;
	uint64_t at = e->mmap_next;
	if (too_many_regions(e) || uc_mem_map(e->uc, at, nlen, UC_PROT_ALL) != UC_ERR_OK)
		return -ENOMEM;
	e->mmap_next += nlen + EMU_PAGE;
	char buf[65536];
	for (uint64_t done = 0; done < olen; done += sizeof buf) {
		size_t n = olen - done > sizeof buf ? sizeof buf : (size_t)(olen - done);
		if (uc_mem_read(e->uc, old + done, buf, n) != UC_ERR_OK ||
		    emu_guest_write(e, at + done, buf, n) != UC_ERR_OK) {
			uc_mem_unmap(e->uc, at, nlen);
			return -EFAULT;
		}
	}
	uc_mem_protect(e->uc, at, nlen, (uint32_t)prot);
	uc_mem_unmap(e->uc, old, olen);
	return (int64_t)at;
}

static int64_t h_mremap(struct trawl_emu *e, struct sys_call *c)
{
	return sys_mremap(e, c->a[0], c->a[1], c->a[2], c->a[3]);
}

/* indexed by number; sized by the highest one (a higher number added to
 * the table without resizing it is a compile error) */
static const sys_fn sys_table[SYS_faccessat2 + 1] = {
	[SYS_exit] = emu_sys_exit_thread, [SYS_exit_group] = h_exit,
	[SYS_clone] = emu_sys_clone, [SYS_clone3] = h_enosys, [SYS_execve] = h_execve,
	[SYS_read] = h_read, [SYS_write] = h_write,
	[SYS_pread64] = h_pread64, [SYS_pwrite64] = h_pwrite64,
	[SYS_readv] = h_readv, [SYS_writev] = h_writev,
	[SYS_openat] = h_openat, [SYS_close] = h_close, [SYS_lseek] = h_lseek,
	[SYS_fstat] = h_fstat, [SYS_newfstatat] = h_newfstatat, [SYS_faccessat] = h_faccessat,
	[SYS_faccessat2] = h_faccessat,
	[SYS_getcwd] = emu_sys_getcwd, [SYS_readlinkat] = h_readlinkat, [SYS_ioctl] = h_ioctl,
	[SYS_brk] = h_brk, [SYS_mmap] = h_mmap, [SYS_munmap] = h_munmap,
	[SYS_mremap] = h_mremap, [SYS_mprotect] = h_mprotect, [SYS_madvise] = h_zero,
	[SYS_set_tid_address] = emu_sys_set_tid_address, [SYS_set_robust_list] = emu_sys_set_robust_list, [SYS_rseq] = h_rseq,
	[SYS_uname] = h_uname, [SYS_getrandom] = h_getrandom, [SYS_prlimit64] = h_prlimit64,
	[SYS_clock_gettime] = h_clock_gettime, [SYS_gettimeofday] = h_gettimeofday, [SYS_nanosleep] = emu_sys_nanosleep,
	[SYS_clock_nanosleep] = emu_sys_clock_nanosleep,
	[SYS_sched_yield] = h_zero, [SYS_futex] = h_futex,
	/* signals (delivery: signal.c) */
	[SYS_rt_sigreturn] = emu_sys_rt_sigreturn, [SYS_rt_sigpending] = emu_sys_rt_sigpending,
	[SYS_rt_sigaction] = emu_sys_rt_sigaction, [SYS_rt_sigprocmask] = emu_sys_rt_sigprocmask,
	[SYS_sigaltstack] = emu_sys_sigaltstack,
	[SYS_kill] = emu_sys_kill, [SYS_tgkill] = emu_sys_kill,
	[SYS_sysinfo] = emu_sys_sysinfo, [SYS_prctl] = emu_sys_prctl, [SYS_umask] = emu_sys_umask,
	[SYS_sched_getaffinity] = emu_sys_sched_getaffinity, [SYS_times] = emu_sys_times,
	[SYS_getrusage] = emu_sys_getrusage, [SYS_membarrier] = emu_sys_membarrier,
	/* files and descriptors (sys-file.c) */
	[SYS_getdents64] = emu_sys_getdents64, [SYS_statx] = emu_sys_statx,
	[SYS_dup] = emu_sys_dup, [SYS_dup3] = emu_sys_dup3, [SYS_fcntl] = emu_sys_fcntl,
	[SYS_pipe2] = emu_sys_pipe2, [SYS_chdir] = emu_sys_chdir, [SYS_fchdir] = emu_sys_fchdir,
	[SYS_sendfile] = emu_sys_sendfile, [SYS_fsync] = emu_sys_fsync,
	[SYS_fdatasync] = emu_sys_fsync,
	/* changes to files: under --root only, else EROFS (sys-root.c) */
	[SYS_mknodat] = emu_sys_path_change, [SYS_mkdirat] = emu_sys_path_change,
	[SYS_unlinkat] = emu_sys_path_change, [SYS_symlinkat] = emu_sys_path_change,
	[SYS_linkat] = emu_sys_path_change, [SYS_renameat] = emu_sys_path_change,
	[SYS_renameat2] = emu_sys_path_change,
	[SYS_truncate] = emu_sys_path_change, [SYS_fchmodat] = emu_sys_path_change,
	[SYS_fchownat] = emu_sys_path_change, [SYS_utimensat] = emu_sys_path_change,
	[SYS_ftruncate] = emu_sys_fd_change, [SYS_fallocate] = emu_sys_fd_change,
	[SYS_fchmod] = emu_sys_fd_change, [SYS_fchown] = emu_sys_fd_change,
	[SYS_getpid] = h_pid, [SYS_gettid] = emu_sys_gettid, [SYS_getppid] = h_ppid,
	[SYS_getuid] = h_uid, [SYS_geteuid] = h_uid, [SYS_getgid] = h_uid, [SYS_getegid] = h_uid,
	/* sys-ids.c; numbers from asm-generic/unistd.h */
	[143] = emu_sys_setids, [144] = emu_sys_setid, [145] = emu_sys_setids,
	[146] = emu_sys_setid, [147] = emu_sys_setids, [148] = emu_sys_getresid,
	[149] = emu_sys_setids, [150] = emu_sys_getresid,
	[158] = emu_sys_getgroups, [159] = emu_sys_setgroups,
	[73] = emu_sys_ppoll, /* sys-poll.c */
};

/* Returns 0 to go on, 1 when the program ended, -1 (after emu_fault) for
 * a call that is not in the table. */
int emu_syscall(struct trawl_emu *e)
{
	struct sys_call c = { 0 };
	uc_reg_read(e->uc, UC_ARM64_REG_X8, &c.nr);
	for (int i = 0; i < 6; i++)
		c.a[i] = reg(e, i);
	sys_fn fn = c.nr < sizeof sys_table / sizeof sys_table[0] ? sys_table[c.nr] : NULL;
	if (!fn) {
		uint64_t pc = 0;
		uc_reg_read(e->uc, UC_ARM64_REG_PC, &pc);
		const char *name = emu_sys_name(c.nr);
		emu_fault(e, e->cur ? e->cur->pc : pc - 4, 0,
			  "unsupported system call %llu%s%s (X0=0x%llx X1=0x%llx X2=0x%llx)",
			  (unsigned long long)c.nr, name ? " " : "", name ? name : "",
			  (unsigned long long)c.a[0],
			  (unsigned long long)c.a[1], (unsigned long long)c.a[2]);
		return -1;
	}
	int64_t r = fn(e, &c);
	if (c.stop)
		return c.stop == 2 ? -1 : 1; /* 2: the handler recorded a fault */
	uint64_t v = (uint64_t)r;
	uc_reg_write(e->uc, UC_ARM64_REG_X0, &v);
	return 0;
}

#endif
