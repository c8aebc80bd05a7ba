/* A cost of Unicorn 2.0.x that no hook causes, taken away: every guest
 * store to writable RAM allocated and freed a GLib tree.
 *
 * Unicorn 2.0.x never marks RAM dirty, so QEMU's TLB keeps the NOTDIRTY
 * flag on every writable page and each store goes through
 * notdirty_write, which takes a "page collection" (page_collection_lock:
 * a malloc'ed set holding a GLib tree of the pages' locks) around
 * tb_invalidate_phys_page_fast and frees it after (page_collection_unlock).
 * In Unicorn the page locks do nothing, and in 2.0.1 the collection goes
 * nowhere but to tb_invalidate_phys_page_fast, which ignores it, and to
 * page_collection_unlock (the callers in cputlb.c and the range
 * invalidations of translate-all.c, read from the library's machine
 * code). Building it was about a sixth of the host instructions of a
 * traced busybox run, and of the untraced one too.
 *
 * Both functions are exported by Unicorn and called through its PLT, so
 * these definitions, exported from the trawl executable (CMakeLists.txt),
 * are the ones the dynamic linker binds Unicorn's calls to. With a 2.0
 * library they hand out one empty collection and free nothing; with any
 * other version they pass the call on to Unicorn's own, which may keep
 * more in the collection. The invalidation of translated code a store
 * triggers (tb_invalidate_phys_page_fast) is untouched, so
 * self-modifying programs run as before. */
#if defined(TRAWL_HAVE_UNICORN)
#include <stdint.h>
#include <unicorn/unicorn.h>

#include "emu/emu-int.h"

struct uc_struct;
struct page_collection;
typedef struct page_collection *lock_fn(struct uc_struct *, uint64_t, uint64_t);
typedef void unlock_fn(struct page_collection *);

/* 0: not decided yet; 1: Unicorn 2.0, no-op; 2: pass on */
static int mode;
static lock_fn *real_lock;
static unlock_fn *real_unlock;
/* what the no-op hands out: never read (see above), only not NULL */
static uint64_t empty[4];

static void decide(void)
{
	unsigned major = 0, minor = 0;
	uc_version(&major, &minor);
	if (major == 2 && minor == 0) {
		mode = 1;
		return;
	}
	real_lock = (lock_fn *)emu_unicorn_symbol("page_collection_lock_aarch64");
	real_unlock = (unlock_fn *)emu_unicorn_symbol("page_collection_unlock_aarch64");
	mode = 2;
}

struct page_collection *page_collection_lock_aarch64(struct uc_struct *uc, uint64_t start,
						     uint64_t end);
struct page_collection *page_collection_lock_aarch64(struct uc_struct *uc, uint64_t start,
						     uint64_t end)
{
	if (mode == 0)
		decide();
	if (mode == 1 || !real_lock)
		return (struct page_collection *)empty;
	return real_lock(uc, start, end);
}

void page_collection_unlock_aarch64(struct page_collection *set);
void page_collection_unlock_aarch64(struct page_collection *set)
{
	if (mode == 2 && real_unlock && set != (struct page_collection *)empty)
		real_unlock(set);
}
#endif
