/* One system call as the handlers in syscall.c, sys-proc.c and sys-file.c
 * see it: the number and X0-X5. A handler returns the result for X0
 * (-errno on failure), or sets `stop` when the program ends (exit, a fatal
 * signal, a fault recorded with emu_fault), and then X0 is left alone. */
#ifndef TRAWL_EMU_SYS_H
#define TRAWL_EMU_SYS_H

#include "emu/emu-int.h"

#if defined(TRAWL_HAVE_UNICORN) && defined(TRAWL_HAVE_CAPSTONE)

struct sys_call {
	uint64_t nr;
	uint64_t a[6];
	int stop;
};

typedef int64_t (*sys_fn)(struct trawl_emu *e, struct sys_call *c);

/* sys-proc.c */
int64_t emu_sys_sysinfo(struct trawl_emu *e, struct sys_call *c);
int64_t emu_sys_prctl(struct trawl_emu *e, struct sys_call *c);
int64_t emu_sys_umask(struct trawl_emu *e, struct sys_call *c);
int64_t emu_sys_sched_getaffinity(struct trawl_emu *e, struct sys_call *c);
int64_t emu_sys_times(struct trawl_emu *e, struct sys_call *c);
int64_t emu_sys_getrusage(struct trawl_emu *e, struct sys_call *c);
int64_t emu_sys_nanosleep(struct trawl_emu *e, struct sys_call *c);
/* The time the guest sees on clock clk (a Linux clock id): the host's,
 * or with the fixed clock its own (TRAWL_EMU_FIXED_EPOCH for the
 * wall-clock ids, 0 for the others, plus 1 ns per instruction). 0, or
 * -errno. */
int64_t emu_clock_now(struct trawl_emu *e, uint64_t clk, int64_t ts[2]);
int64_t emu_sys_clock_nanosleep(struct trawl_emu *e, struct sys_call *c);
int64_t emu_sys_membarrier(struct trawl_emu *e, struct sys_call *c);
int64_t emu_sys_rt_sigaction(struct trawl_emu *e, struct sys_call *c);
int64_t emu_sys_rt_sigprocmask(struct trawl_emu *e, struct sys_call *c);
int64_t emu_sys_sigaltstack(struct trawl_emu *e, struct sys_call *c);
int64_t emu_sys_kill(struct trawl_emu *e, struct sys_call *c);
/* signal.c */
int64_t emu_sys_rt_sigreturn(struct trawl_emu *e, struct sys_call *c);
int64_t emu_sys_rt_sigpending(struct trawl_emu *e, struct sys_call *c);

/* thread.c */
int64_t emu_sys_clone(struct trawl_emu *e, struct sys_call *c);
int64_t emu_sys_futex_threads(struct trawl_emu *e, struct sys_call *c);
int64_t emu_sys_exit_thread(struct trawl_emu *e, struct sys_call *c);
int64_t emu_sys_set_tid_address(struct trawl_emu *e, struct sys_call *c);
int64_t emu_sys_set_robust_list(struct trawl_emu *e, struct sys_call *c);
int64_t emu_sys_gettid(struct trawl_emu *e, struct sys_call *c);

/* sys-file.c */
int64_t emu_sys_getdents64(struct trawl_emu *e, struct sys_call *c);
int64_t emu_sys_statx(struct trawl_emu *e, struct sys_call *c);
int64_t emu_sys_dup(struct trawl_emu *e, struct sys_call *c);
int64_t emu_sys_dup3(struct trawl_emu *e, struct sys_call *c);
int64_t emu_sys_fcntl(struct trawl_emu *e, struct sys_call *c);
int64_t emu_sys_pipe2(struct trawl_emu *e, struct sys_call *c);
int64_t emu_sys_chdir(struct trawl_emu *e, struct sys_call *c);
int64_t emu_sys_fchdir(struct trawl_emu *e, struct sys_call *c);
int64_t emu_sys_getcwd(struct trawl_emu *e, struct sys_call *c);
int64_t emu_sys_sendfile(struct trawl_emu *e, struct sys_call *c);
int64_t emu_sys_fsync(struct trawl_emu *e, struct sys_call *c);
/* sys-ids.c */
int64_t emu_sys_setid(struct trawl_emu *e, struct sys_call *c);
int64_t emu_sys_setids(struct trawl_emu *e, struct sys_call *c);
int64_t emu_sys_getresid(struct trawl_emu *e, struct sys_call *c);
int64_t emu_sys_getgroups(struct trawl_emu *e, struct sys_call *c);
int64_t emu_sys_setgroups(struct trawl_emu *e, struct sys_call *c);
/* sys-poll.c */
int64_t emu_sys_ppoll(struct trawl_emu *e, struct sys_call *c);
/* sys-root.c: changes to files, under --root only */
int64_t emu_sys_path_change(struct trawl_emu *e, struct sys_call *c);
int64_t emu_sys_fd_change(struct trawl_emu *e, struct sys_call *c);
/* remember a refused change (the first one is named in the result) */
void emu_root_refused(struct trawl_emu *e, const char *call, const char *path);
int64_t emu_root_open(struct trawl_emu *e, uint64_t gdirfd, const char *name, int writing,
		      int host_flags, uint64_t mode, int *in_root);
/* the path a read should use: under the root when it exists there */
const char *emu_root_read_path(struct trawl_emu *e, uint64_t gdirfd, const char *name,
			       char *buf, size_t cap, int *dirfd);
enum trawl_status emu_root_setup(struct trawl_emu *e, const char *dir, struct trawl_error *err);
/* sys-names.c: the call's name, NULL for a number Linux does not have */
const char *emu_sys_name(uint64_t nr);
/* 0 when openat(dirfd, name, flags) may go to the host: it neither
 * creates nor writes a file (devices, pipes and sockets may be written);
 * else -EROFS or the lookup's -errno */
int64_t emu_open_readonly_check(int dirfd, const char *name, int flags);
/* fill a guest fd slot with a host fd trawl owns (closed with the slot) */
void emu_fd_set_slot(struct trawl_emu *e, int slot, int host, int cloexec);
/* close a guest fd slot */
void emu_fd_release(struct trawl_emu *e, int slot);
/* the lowest free guest fd at or above `from`, or -EMFILE */
int emu_fd_alloc(struct trawl_emu *e, int from);

#endif
#endif
