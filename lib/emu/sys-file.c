/* Linux system calls about files and descriptors for emulated AArch64
 * programs: directories, statx, dup/fcntl, pipes, the working directory.
 *
 * Reading goes to the host. Calls that would change host files (mkdir,
 * unlink, rename, chmod, truncate...) are in sys-root.c: refused with
 * EROFS, or confined to --root DIR. The guest's working directory is its
 * own: chdir moves it, not the host's.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/sendfile.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "emu/sys.h"

#if defined(TRAWL_HAVE_UNICORN) && defined(TRAWL_HAVE_CAPSTONE)

#define GUEST_O_LARGEFILE 0400000
#define GUEST_O_CLOEXEC 02000000

int emu_fd_alloc(struct trawl_emu *e, int from)
{
	for (int i = from < 0 ? 0 : from; i < EMU_MAX_FDS; i++)
		if (e->host_fd[i] < 0)
			return i;
	return -EMFILE;
}

void emu_fd_set_slot(struct trawl_emu *e, int slot, int host, int cloexec)
{
	e->host_fd[slot] = host;
	e->own_fd[slot] = 1;
	e->cloexec[slot] = (uint8_t)cloexec;
	e->shared_fd[slot] = 0;
	e->shadow_fl[slot] = 0;
	e->in_root[slot] = 0;
}

void emu_fd_release(struct trawl_emu *e, int slot)
{
	if (e->own_fd[slot])
		close(e->host_fd[slot]);
	e->host_fd[slot] = -1;
	e->own_fd[slot] = 0;
	e->cloexec[slot] = 0;
	e->shared_fd[slot] = 0;
}

/* A shared slot's O_NONBLOCK is the guest's alone: the host descriptor
 * stays blocking, so a read or write that would wait is answered EAGAIN
 * after a poll that does not wait. */
int emu_fd_would_block(struct trawl_emu *e, uint64_t fd, int writing)
{
	if (fd >= EMU_MAX_FDS || !e->shared_fd[fd] || !(e->shadow_fl[fd] & O_NONBLOCK))
		return 0;
	struct pollfd p = { .fd = e->host_fd[fd], .events = writing ? POLLOUT : POLLIN };
	return poll(&p, 1, 0) == 0 ? -EAGAIN : 0;
}

/* struct linux_dirent64 is the same on every architecture */
int64_t emu_sys_getdents64(struct trawl_emu *e, struct sys_call *c)
{
	char buf[32768];
	int h = emu_host_fd(e, c->a[0]);
	if (h < 0)
		return -EBADF;
	size_t n = c->a[2] < sizeof buf ? (size_t)c->a[2] : sizeof buf;
	long r = syscall(SYS_getdents64, h, buf, n);
	if (r < 0)
		return -errno;
	return emu_guest_write(e, c->a[1], buf, (size_t)r) == UC_ERR_OK ? r : -EFAULT;
}

/* struct statx and the AT_ and STATX_ flags are the same everywhere */
int64_t emu_sys_statx(struct trawl_emu *e, struct sys_call *c)
{
	char name[PATH_MAX], buf[PATH_MAX];
	uint8_t b[256];
	if (emu_read_string(e, c->a[1], name, sizeof name) != 0)
		return -EFAULT;
	int d;
	const char *p = emu_root_read_path(e, c->a[0], name, buf, sizeof buf, &d);
	if (d == -2)
		return -EBADF;
	if (syscall(SYS_statx, d, p, (int)c->a[2], (unsigned)c->a[3], b) != 0)
		return -errno;
	return emu_guest_write(e, c->a[4], b, sizeof b) == UC_ERR_OK ? 0 : -EFAULT;
}

/* A dup shares the open file description, so a dup of a shared slot is
 * shared too and takes its shadow flags. */
static void copy_shared(struct trawl_emu *e, int from, int to)
{
	e->shared_fd[to] = e->shared_fd[from];
	e->shadow_fl[to] = e->shadow_fl[from];
	e->in_root[to] = e->in_root[from];
}

static int64_t dup_to(struct trawl_emu *e, int from, int slot, int cloexec)
{
	int d = fcntl(e->host_fd[from], F_DUPFD_CLOEXEC, 0);
	if (d < 0)
		return -errno;
	emu_fd_set_slot(e, slot, d, cloexec);
	copy_shared(e, from, slot);
	return slot;
}

int64_t emu_sys_dup(struct trawl_emu *e, struct sys_call *c)
{
	int h = emu_host_fd(e, c->a[0]);
	if (h < 0)
		return -EBADF;
	int slot = emu_fd_alloc(e, 0);
	return slot < 0 ? slot : dup_to(e, (int)c->a[0], slot, 0);
}

int64_t emu_sys_dup3(struct trawl_emu *e, struct sys_call *c)
{
	int h = emu_host_fd(e, c->a[0]);
	if (h < 0 || c->a[1] >= EMU_MAX_FDS)
		return -EBADF;
	if (c->a[0] == c->a[1] || (c->a[2] & ~(uint64_t)GUEST_O_CLOEXEC))
		return -EINVAL;
	int d = fcntl(h, F_DUPFD_CLOEXEC, 0);
	if (d < 0)
		return -errno;
	emu_fd_release(e, (int)c->a[1]);
	emu_fd_set_slot(e, (int)c->a[1], d, (c->a[2] & GUEST_O_CLOEXEC) != 0);
	copy_shared(e, (int)c->a[0], (int)c->a[1]);
	return (int64_t)c->a[1];
}

/* host status flags -> the AArch64 values (O_LARGEFILE differs; a 64-bit
 * kernel shows it on every file) */
static int64_t guest_status_flags(int host)
{
	int64_t g = host & (O_ACCMODE | O_APPEND | O_NONBLOCK | O_DSYNC | O_NOATIME);
	if ((host & O_SYNC) == O_SYNC)
		g |= O_SYNC;
	return g | GUEST_O_LARGEFILE;
}

/* Two host fds on one open file description: kcmp is not always allowed,
 * so compare what fstat and the offset say (good enough for 0-2 and dups) */
static int same_description(struct trawl_emu *e, int a, int b)
{
	if (a == b)
		return 1;
	struct stat sa, sb;
	if (fstat(e->host_fd[a], &sa) != 0 || fstat(e->host_fd[b], &sb) != 0)
		return 0;
	return sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino && sa.st_rdev == sb.st_rdev;
}

/* The fcntl commands programs use, one case each; F_SETFL on a slot that
 * shares trawl's own description only changes the guest's shadow flags. */
int64_t emu_sys_fcntl(struct trawl_emu *e, struct sys_call *c)
{
	enum { DUPFD = 0, GETFD = 1, SETFD = 2, GETFL = 3, SETFL = 4, DUPFD_CLOEXEC = 1030 };
	int h = emu_host_fd(e, c->a[0]);
	if (h < 0)
		return -EBADF;
	int fd = (int)c->a[0];
	switch (c->a[1]) {
	case DUPFD:
	case DUPFD_CLOEXEC: {
		if (c->a[2] >= EMU_MAX_FDS)
			return -EINVAL;
		int slot = emu_fd_alloc(e, (int)c->a[2]);
		return slot < 0 ? slot : dup_to(e, fd, slot, c->a[1] == DUPFD_CLOEXEC);
	}
	case GETFD:
		return e->cloexec[fd];
	case SETFD:
		e->cloexec[fd] = (uint8_t)(c->a[2] & 1);
		return 0;
	case GETFL: {
		int f = fcntl(h, F_GETFL);
		if (f >= 0 && e->shared_fd[fd])
			f = (f & ~(O_APPEND | O_NONBLOCK)) | e->shadow_fl[fd];
		return f < 0 ? -errno : guest_status_flags(f);
	}
	case SETFL: {
		int f = fcntl(h, F_GETFL), want = (int)c->a[2] & (O_APPEND | O_NONBLOCK);
		if (f < 0)
			return -errno;
		if (e->shared_fd[fd]) {
			/* every guest slot sharing the description sees the change */
			for (int i = 0; i < EMU_MAX_FDS; i++)
				if (e->shared_fd[i] && same_description(e, i, fd))
					e->shadow_fl[i] = want;
			return 0;
		}
		f = (f & ~(O_APPEND | O_NONBLOCK)) | want;
		return fcntl(h, F_SETFL, f) == 0 ? 0 : -errno;
	}
	default:
		return -EINVAL;
	}
}

int64_t emu_sys_pipe2(struct trawl_emu *e, struct sys_call *c)
{
	if (c->a[1] & ~(uint64_t)(GUEST_O_CLOEXEC | O_NONBLOCK))
		return -EINVAL;
	int r = emu_fd_alloc(e, 0);
	if (r < 0)
		return r;
	int w = emu_fd_alloc(e, r + 1); /* every slot below r is taken */
	if (w < 0)
		return w;
	int p[2];
	if (pipe2(p, O_CLOEXEC | ((int)c->a[1] & O_NONBLOCK)) != 0)
		return -errno;
	int32_t g[2] = { r, w };
	if (emu_guest_write(e, c->a[0], g, sizeof g) != UC_ERR_OK) {
		close(p[0]);
		close(p[1]);
		return -EFAULT;
	}
	int ce = (c->a[1] & GUEST_O_CLOEXEC) != 0;
	emu_fd_set_slot(e, r, p[0], ce);
	emu_fd_set_slot(e, w, p[1], ce);
	return 0;
}

static int64_t set_cwd(struct trawl_emu *e, int dirfd, const char *name)
{
	int d = openat(dirfd, name, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (d < 0)
		return -errno;
	if (e->cwd_fd >= 0)
		close(e->cwd_fd);
	e->cwd_fd = d;
	return 0;
}

int64_t emu_sys_chdir(struct trawl_emu *e, struct sys_call *c)
{
	char name[PATH_MAX], buf[PATH_MAX];
	if (emu_read_string(e, c->a[0], name, sizeof name) != 0)
		return -EFAULT;
	int d;
	const char *p = emu_root_read_path(e, (uint64_t)(int64_t)-100, name, buf, sizeof buf, &d);
	return set_cwd(e, d, p);
}

int64_t emu_sys_fchdir(struct trawl_emu *e, struct sys_call *c)
{
	int h = emu_host_fd(e, c->a[0]);
	return h < 0 ? -EBADF : set_cwd(e, h, ".");
}

int64_t emu_sys_getcwd(struct trawl_emu *e, struct sys_call *c)
{
	char cwd[PATH_MAX];
	if (e->cwd_fd >= 0) {
		char link[64];
		snprintf(link, sizeof link, "/proc/self/fd/%d", e->cwd_fd);
		ssize_t n = readlink(link, cwd, sizeof cwd - 1);
		if (n < 0)
			return -errno;
		cwd[n] = 0;
	} else if (!getcwd(cwd, sizeof cwd)) {
		return -errno;
	}
	size_t len = strlen(cwd) + 1;
	if (len > c->a[1])
		return -ERANGE;
	return emu_guest_write(e, c->a[0], cwd, len) == UC_ERR_OK ? (int64_t)len : -EFAULT;
}

int64_t emu_sys_sendfile(struct trawl_emu *e, struct sys_call *c)
{
	int out = emu_host_fd(e, c->a[0]), in = emu_host_fd(e, c->a[1]);
	if (out < 0 || in < 0)
		return -EBADF;
	off_t off = 0;
	if (c->a[2] && uc_mem_read(e->uc, c->a[2], &off, 8) != UC_ERR_OK)
		return -EFAULT;
	ssize_t r = sendfile(out, in, c->a[2] ? &off : NULL, c->a[3] > (1u << 30) ? (1u << 30) : c->a[3]);
	if (r < 0)
		return -errno;
	if (c->a[2] && emu_guest_write(e, c->a[2], &off, 8) != UC_ERR_OK)
		return -EFAULT;
	return r;
}

int64_t emu_open_readonly_check(int dirfd, const char *name, int flags)
{
	int writing = (flags & O_ACCMODE) != O_RDONLY || (flags & O_TRUNC);
	if (!writing && !(flags & O_CREAT))
		return 0;
	struct stat st;
	if (fstatat(dirfd, name, &st, 0) != 0)
		return errno == ENOENT && (flags & O_CREAT) ? -EROFS : -errno;
	if (S_ISCHR(st.st_mode) || S_ISFIFO(st.st_mode) || S_ISSOCK(st.st_mode))
		return 0;
	/* O_CREAT of an existing file only opens it (O_EXCL: EEXIST) */
	return writing ? -EROFS : 0;
}

int64_t emu_sys_fsync(struct trawl_emu *e, struct sys_call *c)
{
	return emu_host_fd(e, c->a[0]) < 0 ? -EBADF : 0;
}

#endif
