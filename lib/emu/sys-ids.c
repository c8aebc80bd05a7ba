/* User and group identity calls for emulated AArch64 programs.
 *
 * The guest runs as an ordinary user, uid and gid 1000 (what getuid and
 * friends answer), real, effective and saved alike, with no supplementary
 * groups. Setting an id to that value succeeds, as it does on Linux for an
 * unprivileged process; any other value fails with EPERM. Programs that
 * drop privileges they do not have (a multi-call binary's setgid(getgid()))
 * then run as they would for a user.
 */
#include <errno.h>

#include "emu/sys.h"

#if defined(TRAWL_HAVE_UNICORN) && defined(TRAWL_HAVE_CAPSTONE)

#define GUEST_ID 1000u

/* an id argument is the guest's own, or (uint32_t)-1 where Linux reads
 * it as "leave unchanged" */
static int id_ok(uint64_t v, int keep_allowed)
{
	uint32_t id = (uint32_t)v;
	return id == GUEST_ID || (keep_allowed && id == UINT32_MAX);
}

/* setuid, setgid: one id */
int64_t emu_sys_setid(struct trawl_emu *e, struct sys_call *c)
{
	(void)e;
	return id_ok(c->a[0], 0) ? 0 : -EPERM;
}

/* setreuid, setregid (2 ids), setresuid, setresgid (3 ids) */
int64_t emu_sys_setids(struct trawl_emu *e, struct sys_call *c)
{
	(void)e;
	int n = c->nr == 147 || c->nr == 149 ? 3 : 2;
	for (int i = 0; i < n; i++)
		if (!id_ok(c->a[i], 1))
			return -EPERM;
	return 0;
}

/* getresuid, getresgid: three uint32_t */
int64_t emu_sys_getresid(struct trawl_emu *e, struct sys_call *c)
{
	uint32_t id = GUEST_ID;
	for (int i = 0; i < 3; i++)
		if (emu_guest_write(e, c->a[i], &id, sizeof id) != UC_ERR_OK)
			return -EFAULT;
	return 0;
}

/* getgroups: no supplementary groups, whatever the buffer */
int64_t emu_sys_getgroups(struct trawl_emu *e, struct sys_call *c)
{
	(void)e;
	return (int32_t)c->a[0] < 0 ? -EINVAL : 0;
}

/* setgroups needs CAP_SETGID */
int64_t emu_sys_setgroups(struct trawl_emu *e, struct sys_call *c)
{
	(void)e;
	(void)c;
	return -EPERM;
}

#endif
