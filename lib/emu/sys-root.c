/* Changes to host files for emulated programs: refused without --root,
 * confined to the root directory with it.
 *
 * A guest path P that a call would create, remove, rename, link, truncate,
 * chmod, chown, touch or open for writing is resolved inside DIR as if DIR
 * were "/": an absolute P is DIR/P, a relative one is taken from the
 * guest's working directory (or dirfd), which counts as DIR/that-directory
 * unless it already lies under DIR. The lookup is Linux's openat2 with
 * RESOLVE_IN_ROOT, so neither ".." nor a symbolic link (absolute or not)
 * leads out of DIR. Reads go anywhere, but a path that exists under DIR is
 * read from there, so the program sees what it wrote.
 *
 * Without --root every change fails with EROFS, as on a read-only file
 * system, and the first one is remembered (call and path) for the message
 * the command prints at the end.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/openat2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "emu/sys.h"

#if defined(TRAWL_HAVE_UNICORN) && defined(TRAWL_HAVE_CAPSTONE)

enum {
	NR_mknodat = 33, NR_mkdirat = 34, NR_unlinkat = 35, NR_symlinkat = 36, NR_linkat = 37,
	NR_renameat = 38, NR_truncate = 45, NR_fchmodat = 53, NR_fchownat = 54,
	NR_utimensat = 88, NR_renameat2 = 276,
};

void emu_root_refused(struct trawl_emu *e, const char *call, const char *path)
{
	if (e->res.refused_writes++ == 0)
		snprintf(e->res.refused_first, sizeof e->res.refused_first, "%s '%s'", call, path);
}

/* The directory a guest dirfd (or AT_FDCWD) stands for, as a host path. */
static int base_path(struct trawl_emu *e, uint64_t gdirfd, char *out, size_t cap)
{
	int d = emu_dir_fd(e, gdirfd);
	if (d == -2)
		return -EBADF;
	if (d == AT_FDCWD)
		return getcwd(out, cap) ? 0 : -errno;
	char link[64];
	snprintf(link, sizeof link, "/proc/self/fd/%d", d);
	ssize_t n = readlink(link, out, cap - 1);
	if (n < 0)
		return -errno;
	out[n] = 0;
	return 0;
}

/* The guest path as a path inside the root (absolute, "/" = DIR). */
static int root_relative(struct trawl_emu *e, uint64_t gdirfd, const char *name, char *out,
			 size_t cap)
{
	char base[PATH_MAX];
	if (name[0] == '/') {
		snprintf(out, cap, "%s", name);
		return 0;
	}
	int r = base_path(e, gdirfd, base, sizeof base);
	if (r)
		return r;
	size_t rl = strlen(e->root_path);
	const char *inside = base;
	if (strncmp(base, e->root_path, rl) == 0 && (base[rl] == '/' || base[rl] == 0))
		inside = base + rl; /* already under the root */
	if ((size_t)snprintf(out, cap, "%s/%s", *inside ? inside : "", name) >= cap)
		return -ENAMETOOLONG;
	return 0;
}

static int open_in_root(struct trawl_emu *e, const char *rel, uint64_t flags, uint64_t mode)
{
	struct open_how how = { .flags = flags | O_CLOEXEC, .mode = mode, .resolve = RESOLVE_IN_ROOT };
	if (!(flags & (O_CREAT | O_TMPFILE)))
		how.mode = 0;
	int fd = (int)syscall(SYS_openat2, e->root_fd, rel, &how, sizeof how);
	return fd < 0 ? -errno : fd;
}

/* The parent directory of a root-relative path, opened inside the root,
 * and the last component; "." and ".." as last components are refused
 * as Linux's calls would (EINVAL / ENOTEMPTY differ; EINVAL is enough). */
static int parent_in_root(struct trawl_emu *e, const char *rel, char *last, size_t cap)
{
	char dir[PATH_MAX];
	snprintf(dir, sizeof dir, "%s", rel);
	size_t n = strlen(dir);
	while (n > 1 && dir[n - 1] == '/')
		dir[--n] = 0;
	char *slash = strrchr(dir, '/');
	const char *base = slash ? slash + 1 : dir;
	if (!*base || strcmp(base, ".") == 0 || strcmp(base, "..") == 0)
		return -EINVAL;
	snprintf(last, cap, "%s", base);
	if (slash)
		slash[slash == dir ? 1 : 0] = 0;
	else
		snprintf(dir, sizeof dir, ".");
	return open_in_root(e, dir, O_PATH | O_DIRECTORY, 0);
}

/* Reads: the path under the root when it exists there, else the guest's
 * own. *dirfd and name are what to pass to the host call. */
const char *emu_root_read_path(struct trawl_emu *e, uint64_t gdirfd, const char *name,
			       char *buf, size_t cap, int *dirfd)
{
	char rel[PATH_MAX];
	struct stat st;
	*dirfd = emu_dir_fd(e, gdirfd);
	if (!e->has_root || !*name || root_relative(e, gdirfd, name, rel, sizeof rel) != 0)
		return name;
	if ((size_t)snprintf(buf, cap, "%s%s", e->root_path, rel) >= cap ||
	    fstatat(AT_FDCWD, buf, &st, AT_SYMLINK_NOFOLLOW) != 0)
		return name;
	*dirfd = AT_FDCWD;
	return buf;
}

/* openat with --root: through the root first; a path not there is
 * opened on the host for reading (or for writing a device, pipe or
 * socket). *in_root says which one opened it. */
int64_t emu_root_open(struct trawl_emu *e, uint64_t gdirfd, const char *name, int writing,
		      int host_flags, uint64_t mode, int *in_root)
{
	char rel[PATH_MAX];
	*in_root = 0;
	int r = root_relative(e, gdirfd, name, rel, sizeof rel);
	if (r)
		return r;
	int fd = open_in_root(e, rel, (uint64_t)host_flags, mode & ~(uint64_t)e->umask);
	if (fd >= 0 || fd != -ENOENT) {
		*in_root = fd >= 0;
		return fd;
	}
	/* not under the root: reads, and writes to the host's devices, pipes
	 * and sockets (/dev/null), go to the host */
	int d = emu_dir_fd(e, gdirfd);
	if (d == -2)
		return -EBADF;
	if (writing && emu_open_readonly_check(d, name, host_flags) != 0)
		return -ENOENT;
	fd = openat(d, name, host_flags, (mode_t)mode);
	return fd < 0 ? -errno : fd;
}

int emu_root_setup(struct trawl_emu *e, const char *dir, struct trawl_error *err)
{
	if (!realpath(dir, e->root_path) || strlen(e->root_path) >= sizeof e->root_path - 1) {
		e->root_path[0] = 0;
		return trawl_error_set(err, TRAWL_ERR_IO, "--root %s: %s", dir, strerror(errno));
	}
	if (strcmp(e->root_path, "/") == 0)
		e->root_path[0] = 0, e->root_path[1] = 0; /* "/" + rel = rel */
	e->root_fd = open(dir, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (e->root_fd < 0)
		return trawl_error_set(err, TRAWL_ERR_IO, "--root %s: %s", dir, strerror(errno));
	int probe = open_in_root(e, ".", O_PATH | O_DIRECTORY, 0);
	if (probe < 0)
		return trawl_error_set(err, TRAWL_ERR_UNSUPPORTED,
				       "--root %s: openat2 with RESOLVE_IN_ROOT failed (%s); it needs "
				       "Linux 5.6 or later", dir, strerror(-probe));
	close(probe);
	e->has_root = 1;
	return TRAWL_OK;
}

/* an O_PATH descriptor of the whole path inside the root, for calls that
 * act on the file itself (chmod, chown, utimes, truncate) */
static int whole_in_root(struct trawl_emu *e, const char *rel, int follow)
{
	return open_in_root(e, rel, O_PATH | (follow ? 0 : O_NOFOLLOW), 0);
}

static int64_t on_file(struct trawl_emu *e, struct sys_call *c, const char *rel)
{
	int follow = 1; /* AT_SYMLINK_NOFOLLOW (0x100) in fchownat's and utimensat's flags */
	if (c->nr == NR_fchownat)
		follow = !(c->a[4] & 0x100);
	if (c->nr == NR_utimensat)
		follow = !(c->a[3] & 0x100);
	int fd = whole_in_root(e, rel, follow);
	if (fd < 0)
		return fd;
	char proc[64];
	snprintf(proc, sizeof proc, "/proc/self/fd/%d", fd);
	int r;
	if (c->nr == NR_fchmodat) {
		r = chmod(proc, (mode_t)c->a[2]);
	} else if (c->nr == NR_fchownat) {
		r = fchownat(fd, "", (uid_t)c->a[2], (gid_t)c->a[3], AT_EMPTY_PATH);
	} else if (c->nr == NR_utimensat) {
		struct timespec ts[2];
		if (c->a[2] && uc_mem_read(e->uc, c->a[2], ts, sizeof ts) != UC_ERR_OK) {
			close(fd);
			return -EFAULT;
		}
		r = utimensat(AT_FDCWD, proc, c->a[2] ? ts : NULL, 0);
	} else { /* truncate: open for writing through the confined path */
		close(fd);
		fd = open_in_root(e, rel, O_WRONLY, 0);
		if (fd < 0)
			return fd;
		r = ftruncate(fd, (off_t)c->a[1]);
	}
	int err = errno;
	close(fd);
	return r == 0 ? 0 : -err;
}

/* The path arguments of each call: (dirfd index, path index) pairs. */
static int path_args(uint64_t nr, int *d0, int *p0, int *d1, int *p1)
{
	*d1 = *p1 = -1;
	switch (nr) {
	case NR_truncate: *d0 = -1; *p0 = 0; return 1;
	case NR_symlinkat: *d0 = 1; *p0 = 2; return 1;
	case NR_linkat: *d0 = 0; *p0 = 1; *d1 = 2; *p1 = 3; return 2;
	case NR_renameat: case NR_renameat2: *d0 = 0; *p0 = 1; *d1 = 2; *p1 = 3; return 2;
	default: *d0 = 0; *p0 = 1; return 1;
	}
}

static int64_t do_change(struct trawl_emu *e, struct sys_call *c, const char *rel0,
			 const char *rel1)
{
	char last0[NAME_MAX + 1], last1[NAME_MAX + 1];
	if (c->nr == NR_truncate || c->nr == NR_fchmodat || c->nr == NR_fchownat ||
	    c->nr == NR_utimensat)
		return on_file(e, c, rel0);
	int p0 = parent_in_root(e, rel0, last0, sizeof last0);
	if (p0 < 0)
		return p0;
	int p1 = rel1 ? parent_in_root(e, rel1, last1, sizeof last1) : -1;
	if (rel1 && p1 < 0) {
		close(p0);
		return p1;
	}
	char target[PATH_MAX];
	int r = -1;
	switch (c->nr) {
	case NR_mkdirat: r = mkdirat(p0, last0, (mode_t)(c->a[2] & ~(uint64_t)e->umask)); break;
	case NR_mknodat: r = mknodat(p0, last0, (mode_t)(c->a[2] & ~(uint64_t)e->umask), 0); break;
	case NR_unlinkat: r = unlinkat(p0, last0, (int)(c->a[2] & 0x200)); break;
	case NR_symlinkat:
		if (emu_read_string(e, c->a[0], target, sizeof target) != 0) {
			errno = EFAULT;
			break;
		}
		r = symlinkat(target, p0, last0);
		break;
	case NR_linkat: r = linkat(p0, last0, p1, last1, 0); break;
	case NR_renameat: r = renameat(p0, last0, p1, last1); break;
	case NR_renameat2:
		r = (int)syscall(SYS_renameat2, p0, last0, p1, last1, (unsigned)c->a[4]);
		break;
	}
	int err = errno;
	close(p0);
	if (p1 >= 0)
		close(p1);
	return r == 0 ? 0 : -err;
}

/* mkdirat, unlinkat, renameat(2), linkat, symlinkat, mknodat, truncate,
 * fchmodat, fchownat, utimensat (with a path) */
int64_t emu_sys_path_change(struct trawl_emu *e, struct sys_call *c)
{
	int d[2], p[2];
	char name[2][PATH_MAX], rel[2][PATH_MAX];
	if (c->nr == NR_utimensat && !c->a[1])
		return emu_sys_fd_change(e, c); /* futimens(fd) */
	int n = path_args(c->nr, &d[0], &p[0], &d[1], &p[1]);
	for (int i = 0; i < n; i++) {
		if (emu_read_string(e, c->a[p[i]], name[i], sizeof name[i]) != 0)
			return -EFAULT;
		if (!name[i][0])
			return -ENOENT;
	}
	if (!e->has_root) {
		const char *call = emu_sys_name(c->nr);
		emu_root_refused(e, call ? call : "?", name[n - 1]);
		return -EROFS;
	}
	for (int i = 0; i < n; i++) {
		uint64_t g = d[i] < 0 ? (uint64_t)(int64_t)-100 : c->a[d[i]];
		int r = root_relative(e, g, name[i], rel[i], sizeof rel[i]);
		if (r)
			return r;
	}
	return do_change(e, c, rel[0], n > 1 ? rel[1] : NULL);
}

/* ftruncate, fchmod, fchown, fallocate, futimens: allowed on files opened
 * through the root (for writing or not), else EROFS */
int64_t emu_sys_fd_change(struct trawl_emu *e, struct sys_call *c)
{
	int h = emu_host_fd(e, c->a[0]);
	if (h < 0)
		return -EBADF;
	if (!e->in_root[c->a[0]]) {
		const char *call = emu_sys_name(c->nr);
		char what[32];
		snprintf(what, sizeof what, "fd %d", (int)c->a[0]);
		emu_root_refused(e, call ? call : "?", what);
		return -EROFS;
	}
	int r;
	switch (c->nr) {
	case 46: r = ftruncate(h, (off_t)c->a[1]); break;
	case 47: r = fallocate(h, (int)c->a[1], (off_t)c->a[2], (off_t)c->a[3]); break;
	case 52: r = fchmod(h, (mode_t)c->a[1]); break;
	case 55: r = fchown(h, (uid_t)c->a[1], (gid_t)c->a[2]); break;
	case NR_utimensat: {
		struct timespec ts[2];
		if (c->a[2] && uc_mem_read(e->uc, c->a[2], ts, sizeof ts) != UC_ERR_OK)
			return -EFAULT;
		r = futimens(h, c->a[2] ? ts : NULL);
		break;
	}
	default: return -ENOSYS;
	}
	return r == 0 ? 0 : -errno;
}

#endif
