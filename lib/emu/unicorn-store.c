/* Two costs of Unicorn 2.0.x's store path that no hook causes, taken
 * away. Unicorn 2.0.x never marks RAM dirty, so QEMU's TLB keeps the
 * NOTDIRTY flag on every writable page and every guest store leaves the
 * generated code for helper_le_stq_mmu and friends, which
 *  - look up the store's region with memory_mapping, a binary search over
 *    every mapped block (2.0.x has a one-entry cache index but never sets
 *    it), and
 *  - in notdirty_write, take a "page collection" (page_collection_lock: a
 *    malloc'ed set holding a GLib tree of the pages' locks) around
 *    tb_invalidate_phys_page_fast and free it again (page_collection_unlock).
 * Together about a fifth of the host instructions of a traced busybox run,
 * and of the untraced one too.
 *
 * All three functions are exported by Unicorn and called through its PLT,
 * so these definitions, exported from the trawl executable
 * (CMakeLists.txt), are the ones the dynamic linker binds Unicorn's calls
 * to. With any version but 2.0 they pass every call on to Unicorn's own.
 *
 * Page collections: in Unicorn the page locks do nothing, and in 2.0.1 the
 * collection goes nowhere but to tb_invalidate_phys_page_fast, which
 * ignores it, and to page_collection_unlock (the callers in cputlb.c and
 * the range invalidations of translate-all.c, read from the library's
 * machine code). So one empty collection is handed out and nothing is
 * freed. The invalidation of translated code a store triggers is untouched:
 * self-modifying programs run as before.
 *
 * memory_mapping: answers are kept per 1 KiB page (the smallest target
 * page; regions are whole pages) for the engine that asked. Only the
 * uc_mem_* calls change the regions (2.0.x has no copy-on-write
 * snapshots), and every one of them goes through unicorn-lazy.c, which
 * brackets it with emu_unicorn_regions_change: the kept answers are
 * dropped before and after, and none is kept or given out during the
 * call, when Unicorn splits and frees regions. Unmapped addresses are not
 * kept. */
#if defined(TRAWL_HAVE_UNICORN)
#include <stdint.h>
#include <string.h>
#include <unicorn/unicorn.h>

#include "emu/emu-int.h"

struct uc_struct;
struct page_collection;
typedef struct page_collection *lock_fn(struct uc_struct *, uint64_t, uint64_t);
typedef void unlock_fn(struct page_collection *);
typedef void *mapping_fn(struct uc_struct *, uint64_t);

/* 0: not decided yet; 1: Unicorn 2.0, replaced; 2: pass on */
static int mode;
static lock_fn *real_lock;
static unlock_fn *real_unlock;
static mapping_fn *real_mapping;
/* what the no-op hands out: never read (see above), only not NULL */
static uint64_t empty[4];

#define MAPPING_WAYS 256u
#define MAPPING_SHIFT 10
static struct {
	uint64_t tag; /* page + 1; 0 = empty */
	const struct uc_struct *uc;
	void *mr;
} kept[MAPPING_WAYS];
static int changing; /* > 0 during a uc_mem_* call that may change regions */

static void decide(void)
{
	unsigned major = 0, minor = 0;
	uc_version(&major, &minor);
	real_lock = (lock_fn *)emu_unicorn_symbol("page_collection_lock_aarch64");
	real_unlock = (unlock_fn *)emu_unicorn_symbol("page_collection_unlock_aarch64");
	real_mapping = (mapping_fn *)emu_unicorn_symbol("memory_mapping");
	mode = major == 2 && minor == 0 ? 1 : 2;
}

void emu_unicorn_regions_change(int begin)
{
	memset(kept, 0, sizeof kept);
	changing += begin ? 1 : -1;
}

__attribute__((noinline)) static struct page_collection *lock_slow(struct uc_struct *uc,
								     uint64_t start, uint64_t end)
{
	if (mode == 0)
		decide();
	if (mode == 1 || !real_lock)
		return (struct page_collection *)empty;
	return real_lock(uc, start, end);
}

struct page_collection *page_collection_lock_aarch64(struct uc_struct *uc, uint64_t start,
						     uint64_t end);
struct page_collection *page_collection_lock_aarch64(struct uc_struct *uc, uint64_t start,
						     uint64_t end)
{
	if (__builtin_expect(mode == 1, 1))
		return (struct page_collection *)empty;
	return lock_slow(uc, start, end);
}

void page_collection_unlock_aarch64(struct page_collection *set);
void page_collection_unlock_aarch64(struct page_collection *set)
{
	if (set != (struct page_collection *)empty && real_unlock)
		real_unlock(set);
}

__attribute__((noinline)) static void *mapping_slow(struct uc_struct *uc, uint64_t address)
{
	if (mode == 0)
		decide();
	if (!real_mapping)
		return NULL; /* cannot happen: only Unicorn calls this */
	void *mr = real_mapping(uc, address);
	if (mode == 1 && !changing && mr) {
		uint64_t page = address >> MAPPING_SHIFT;
		unsigned k = (unsigned)(page % MAPPING_WAYS);
		kept[k].tag = page + 1;
		kept[k].uc = uc;
		kept[k].mr = mr;
	}
	return mr;
}

void *memory_mapping(struct uc_struct *uc, uint64_t address);
void *memory_mapping(struct uc_struct *uc, uint64_t address)
{
	uint64_t page = address >> MAPPING_SHIFT;
	unsigned k = (unsigned)(page % MAPPING_WAYS);
	if (kept[k].tag == page + 1 && kept[k].uc == uc)
		return kept[k].mr;
	return mapping_slow(uc, address);
}
#endif
