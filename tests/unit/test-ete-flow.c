/* ETE buffers and instruction flow: frame deformatting (ID changes, flag
 * bits, TPIU syncs), TRBE unwrapping, the INI parser, instruction
 * classification, and the flow decoder's speculation handling, all against
 * hand-computed expectations. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include <string.h>

#include "trawl/ete.h"
#include "trawl/event.h"

#include "ete/ini.h"

struct idbytes {
	uint8_t data[2][64];
	uint64_t off[2][64];
	size_t n[2];
};

static void on_bytes(void *ctx, uint8_t id, const uint8_t *d, size_t n, uint64_t off)
{
	struct idbytes *b = ctx;
	int k = id == 0x10 ? 0 : id == 0x11 ? 1 : -1;
	assert_true(k >= 0);
	for (size_t i = 0; i < n; i++) {
		b->data[k][b->n[k]] = d[i];
		b->off[k][b->n[k]++] = off + i;
	}
}

/* byte 15 = 0x86: flag bits 1, 2, 7 */
static const uint8_t frame[16] = { 0x21, 0xaa, 0x44, 0xbb, 0x23, 0xcc, 0x50, 0xdd,
				   0x60, 0x61, 0x62, 0x63, 0x64, 0x65, 0x66, 0x86 };

static void check_frame(const struct idbytes *b, uint64_t base)
{
	/* ID 0x10: aa, 0x44|1, bb, then cc (flag bit 2: byte after the ID
	 * change still belongs to the old ID) */
	static const uint8_t w0[] = { 0xaa, 0x45, 0xbb, 0xcc };
	/* ID 0x11: 50 (flag bit 3 clear), dd, 60..65, 0x66|1 */
	static const uint8_t w1[] = { 0x50, 0xdd, 0x60, 0x61, 0x62, 0x63, 0x64, 0x65, 0x67 };
	assert_int_equal(b->n[0], sizeof w0);
	assert_memory_equal(b->data[0], w0, sizeof w0);
	assert_int_equal(b->n[1], sizeof w1);
	assert_memory_equal(b->data[1], w1, sizeof w1);
	/* offsets: run start + index (ID 0x10 from byte 0, ID 0x11 from byte 4) */
	assert_int_equal(b->off[0][0], base + 0);
	assert_int_equal(b->off[0][3], base + 3);
	assert_int_equal(b->off[1][0], base + 4);
	assert_int_equal(b->off[1][8], base + 12);
}

static void test_deformat(void **state)
{
	(void)state;
	struct idbytes b;
	struct trawl_ete_deformatter *d;
	memset(&b, 0, sizeof b);
	assert_int_equal(trawl_ete_deformatter_create(&d, 0, on_bytes, &b, NULL), TRAWL_OK);
	for (int i = 0; i < 16; i++) /* byte at a time */
		trawl_ete_deformatter_feed(d, frame + i, 1);
	trawl_ete_deformatter_finish(d);
	check_frame(&b, 0);
	uint64_t frames, dropped;
	trawl_ete_deformatter_counts(d, &frames, &dropped, NULL);
	assert_int_equal(frames, 1);
	assert_int_equal(dropped, 0);
	trawl_ete_deformatter_destroy(d);
}

static void test_tpiu(void **state)
{
	(void)state;
	uint8_t in[64];
	size_t n = 0;
	static const uint8_t fsync[4] = { 0xff, 0xff, 0xff, 0x7f };
	in[n++] = 0x12; /* garbage before the first FSYNC: alignment unknown */
	memcpy(in + n, fsync, 4), n += 4;
	memcpy(in + n, frame, 6), n += 6;
	in[n++] = 0xff, in[n++] = 0x7f; /* HSYNC at an even position */
	memcpy(in + n, frame + 6, 10), n += 10;
	memcpy(in + n, fsync, 4), n += 4;
	struct idbytes b;
	struct trawl_ete_deformatter *d;
	memset(&b, 0, sizeof b);
	assert_int_equal(trawl_ete_deformatter_create(&d, 1, on_bytes, &b, NULL), TRAWL_OK);
	trawl_ete_deformatter_feed(d, in, n);
	trawl_ete_deformatter_finish(d);
	check_frame(&b, 5);
	uint64_t syncs, dropped;
	trawl_ete_deformatter_counts(d, NULL, &dropped, &syncs);
	assert_int_equal(syncs, 3);
	assert_int_equal(dropped, 1);
	trawl_ete_deformatter_destroy(d);
}

/* In memory, a frame of four FSYNCs (Linux's barrier) is skipped; data
 * bytes under ID 0 that are not zero, and any under a reserved ID but the
 * trigger's 0x7d, are counted as stray: trace a damaged ID byte sent
 * away. */
static void test_stray_and_barrier(void **state)
{
	(void)state;
	uint8_t in[7 * 16];
	memset(in, 0, sizeof in);
	memcpy(in, frame, 16);                              /* 0: as test_deformat */
	for (int i = 0; i < 16; i += 4)                     /* 16: the barrier */
		in[16 + i] = in[17 + i] = in[18 + i] = 0xff, in[19 + i] = 0x7f;
	in[32] = 0x01;                                      /* 32: padding, zeros */
	in[48] = 0x01, in[49] = 0xaa;                       /* 48: ID 0, one byte not zero */
	in[64] = 0xe1, in[65] = 0x11;                       /* 64: ID 0x70: 14 data bytes */
	in[80] = 0xfb;                                      /* 80: the trigger ID 0x7d */
	in[96] = 0x21, in[97] = 0x99;                       /* 96: back to ID 0x10 */
	struct idbytes b;
	struct trawl_ete_deformatter *d;
	memset(&b, 0, sizeof b);
	assert_int_equal(trawl_ete_deformatter_create(&d, 0, on_bytes, &b, NULL), TRAWL_OK);
	trawl_ete_deformatter_feed(d, in, sizeof in);
	trawl_ete_deformatter_finish(d);
	uint64_t frames, dropped, syncs, first;
	char msg[256];
	trawl_ete_deformatter_counts(d, &frames, &dropped, &syncs);
	assert_int_equal(frames, 6);
	assert_int_equal(dropped, 0);
	assert_int_equal(syncs, 4);
	/* one finding: the 1 + 14 stray bytes, from the frame at 48 */
	assert_int_equal(trawl_ete_deformatter_damage(d, 0, &first, msg, sizeof msg), 1);
	assert_string_equal(msg, "15 data bytes under the null trace ID 0 (not zero) or a reserved ID, from this "
				 "frame on: trace that a damaged ID byte sent there is not decoded");
	assert_int_equal(first, 48);
	assert_int_equal(trawl_ete_deformatter_damage(d, 1, &first, msg, sizeof msg), 0);
	/* ID 0x10: the first frame's four bytes, then 0x99 and 13 zeros; the
	 * barrier gave it nothing (as a frame, its first byte would be 0xff) */
	assert_int_equal(b.n[0], 4 + 14);
	assert_int_equal(b.data[0][4], 0x99);
	assert_int_equal(b.off[0][4], 96);
	assert_int_equal(b.n[1], 9);
	trawl_ete_deformatter_destroy(d);

	/* a wrapped buffer: two data bytes before the first ID byte belong
	 * to no known ID; then ID 0x10 has 0x44 and twelve zeros */
	uint8_t w[16] = { 0x02, 0x33, 0x21, 0x44 };
	memset(&b, 0, sizeof b);
	assert_int_equal(trawl_ete_deformatter_create(&d, 0, on_bytes, &b, NULL), TRAWL_OK);
	trawl_ete_deformatter_feed(d, w, sizeof w);
	trawl_ete_deformatter_finish(d);
	/* one finding: the two bytes before the ID, at offset 0 */
	assert_int_equal(trawl_ete_deformatter_damage(d, 0, &first, msg, sizeof msg), 1);
	assert_non_null(strstr(msg, "2 data bytes before the first trace ID byte"));
	assert_int_equal(first, 0);
	assert_int_equal(trawl_ete_deformatter_damage(d, 1, &first, msg, sizeof msg), 0);
	assert_int_equal(b.n[0], 12);
	assert_int_equal(b.data[0][0], 0x44);
	trawl_ete_deformatter_destroy(d);
}

static void test_trbe(void **state)
{
	(void)state;
	uint8_t buf[0x40];
	const uint8_t *a, *b;
	size_t na, nb;
	struct trawl_error err;
	for (int i = 0; i < 0x40; i++)
		buf[i] = (uint8_t)i;
	assert_int_equal(trawl_ete_trbe_unwrap(buf, 0x40, 0x1000, 0x1040, 0x1030, 1, &a, &na, &b, &nb, &err),
			 TRAWL_OK);
	assert_ptr_equal(a, buf + 0x30);
	assert_int_equal(na, 0x10);
	assert_ptr_equal(b, buf);
	assert_int_equal(nb, 0x30);
	assert_int_equal(trawl_ete_trbe_unwrap(buf, 0x40, 0x1000, 0x1040, 0x1030, 0, &a, &na, &b, &nb, &err),
			 TRAWL_OK);
	assert_ptr_equal(a, buf);
	assert_int_equal(na, 0x30);
	assert_int_equal(nb, 0);
	assert_int_equal(trawl_ete_trbe_unwrap(buf, 0x40, 0x1000, 0x1040, 0x1050, 1, &a, &na, &b, &nb, &err),
			 TRAWL_ERR_USAGE);
	assert_int_equal(trawl_ete_trbe_unwrap(buf, 0x40, 0x1000, 0x1080, 0x1010, 1, &a, &na, &b, &nb, &err),
			 TRAWL_ERR_USAGE);
	assert_int_equal(trawl_ete_trbe_unwrap(buf, 0x40, 0x1040, 0x1000, 0x1010, 1, &a, &na, &b, &nb, &err),
			 TRAWL_ERR_USAGE);
}

static void test_ini(void **state)
{
	(void)state;
	struct trawl_ini *ini;
	struct trawl_error err;
	const char *t = "; comment\n[device]\nname = ETE_0 \n\n[regs]\nTRCIDR0(id:0x78)=0x28000ea1\n# x\n";
	assert_int_equal(trawl_ini_parse(&ini, t, strlen(t), "x.ini", &err), TRAWL_OK);
	assert_string_equal(trawl_ini_get(ini, "DEVICE", "Name"), "ETE_0");
	assert_int_equal(trawl_ini_count(ini), 2);
	assert_string_equal(trawl_ini_at(ini, 1)->key, "TRCIDR0(id:0x78)");
	assert_int_equal(trawl_ini_at(ini, 1)->line, 6);
	assert_null(trawl_ini_get(ini, "regs", "nope"));
	trawl_ini_destroy(ini);
	const char *bad = "[ok]\nkey=1\nnot a line\n";
	assert_int_equal(trawl_ini_parse(&ini, bad, strlen(bad), "y.ini", &err), TRAWL_ERR_FORMAT);
	assert_int_equal(err.line, 3);
	const char *bad2 = "[open\n";
	assert_int_equal(trawl_ini_parse(&ini, bad2, strlen(bad2), "z.ini", &err), TRAWL_ERR_FORMAT);
}

/* The --config and --trbe-file readers: values by hand from the text. */
static void write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

static void test_settings_files(void **state)
{
	(void)state;
	char path[64];
	struct trawl_error err;
	snprintf(path, sizeof path, "/tmp/trawl-test-ete-settings-%d.ini", (int)getpid());
	write_file(path, "[regs]\nTRCIDR0(id:0x78)=0x28000ea1\ntrcidr8 = 16\nTRCFOO=1\nname=x\n");
	struct trawl_ete_config c;
	memset(&c, 0, sizeof c);
	c.idr2 = 7;
	assert_int_equal(trawl_ete_config_load(&c, path, &err), TRAWL_OK);
	assert_int_equal(c.idr0, 0x28000ea1);
	assert_int_equal(c.idr8, 16);
	assert_int_equal(c.idr2, 7); /* missing: left alone */
	/* a register that is no 32-bit number is refused at its line (it was
	 * skipped, and the decoder ran with the default) */
	write_file(path, "[regs]\nTRCIDR0=0x1\nTRCIDR2=x\n");
	assert_int_equal(trawl_ete_config_load(&c, path, &err), TRAWL_ERR_USAGE);
	assert_int_equal(err.line, 3);
	assert_string_equal(err.message, "bad TRCIDR2 value 'x' (a 32-bit number)");
	write_file(path, "TRCIDR8=0x100000000\n");
	assert_int_equal(trawl_ete_config_load(&c, path, &err), TRAWL_ERR_USAGE);
	assert_int_equal(trawl_ete_config_set_reg(&c, "TRCTRACEIDR", 0x1ff), 1);
	assert_int_equal(c.trace_id, 0x7f);
	assert_int_equal(trawl_ete_config_set_reg(&c, "TRCIDR9", 1), 0);
	/* any section, any case, the last of a key wins; missing keys untouched */
	write_file(path, "[a]\nBASE=0x1000\n[b]\nwrite=0x1010\nwrite=0x1020\n");
	struct trawl_ete_trbe t = { 1, 0x2000, 3, 1, 0 };
	assert_int_equal(trawl_ete_trbe_load(path, &t, &err), TRAWL_OK);
	assert_int_equal(t.have, TRAWL_ETE_TRBE_BASE | TRAWL_ETE_TRBE_WRITE);
	assert_int_equal(t.base, 0x1000);
	assert_int_equal(t.limit, 0x2000);
	assert_int_equal(t.write, 0x1020);
	assert_int_equal(t.wrapped, 1);
	write_file(path, "wrapped=0\nlimit=-1\n");
	assert_int_equal(trawl_ete_trbe_load(path, &t, &err), TRAWL_ERR_USAGE);
	assert_string_equal(err.message, "bad limit value '-1'");
	assert_string_equal(err.file, path);
	write_file(path, "no equals sign\n");
	assert_int_equal(trawl_ete_trbe_load(path, &t, &err), TRAWL_ERR_FORMAT);
	assert_int_equal(err.line, 1);
	unlink(path);
	assert_int_equal(trawl_ete_trbe_load(path, &t, &err), TRAWL_ERR_IO);
}

/* Branch classification, one encoding per class and instruction set, each
 * target worked out by hand from the encoding's immediate: a list, since
 * each line checks one encoding. */
static void test_classify(void **state)
{
	(void)state;
	struct trawl_ete_insn_info ii;
	/* A64 BL -4: 0x97ffffff */
	trawl_ete_insn_classify(0x97ffffff, TRAWL_ISET_A64, 0x1000, 1, &ii);
	assert_int_equal(ii.cls, TRAWL_ETE_INSN_BR);
	assert_true(ii.flags & TRAWL_ETE_INSN_LINK);
	assert_true(ii.target == 0xffc);
	/* B.NE +8 */
	trawl_ete_insn_classify(0x54000041, TRAWL_ISET_A64, 0x1004, 1, &ii);
	assert_true(ii.flags & TRAWL_ETE_INSN_COND);
	assert_true(ii.target == 0x100c);
	/* TBZ x0, #0, +0x10: 0x36000080 (imm14 = 4) */
	trawl_ete_insn_classify(0x36000080, TRAWL_ISET_A64, 0x2000, 1, &ii);
	assert_true(ii.target == 0x2010);
	/* FEAT_CMPBR, encodings from LLVM's assembler tests: cbbgt w5, w3,
	 * #-1024 is 0x7403a005 (imm9 = -256); cbhgt the same with bits 15:14
	 * = 11; cbgt w5, w3, +8 (register form, bits 15:14 = 00); the
	 * immediate form (0x75...) with bit 14 set and the register form
	 * with bits 15:14 = 01 are unallocated */
	trawl_ete_insn_classify(0x7403a005, TRAWL_ISET_A64, 0x2000, 1, &ii);
	assert_true(ii.cls == TRAWL_ETE_INSN_BR && (ii.flags & TRAWL_ETE_INSN_COND));
	assert_true(ii.target == 0x2000 - 1024);
	trawl_ete_insn_classify(0x7403e005, TRAWL_ISET_A64, 0x2000, 1, &ii);
	assert_true(ii.target == 0x2000 - 1024);
	trawl_ete_insn_classify(0x74030045, TRAWL_ISET_A64, 0x1000, 1, &ii);
	assert_true(ii.cls == TRAWL_ETE_INSN_BR && ii.target == 0x1008);
	trawl_ete_insn_classify(0x75004045, TRAWL_ISET_A64, 0x1000, 1, &ii);
	assert_int_equal(ii.cls, TRAWL_ETE_INSN_OTHER);
	trawl_ete_insn_classify(0x74034045, TRAWL_ISET_A64, 0x1000, 1, &ii);
	assert_int_equal(ii.cls, TRAWL_ETE_INSN_OTHER);
	/* FEAT_PAuth_LR RETAASPPC / RETABSPPC (0x5500001f / 0x5520001f with
	 * imm16 in bits 20:5) are returns */
	trawl_ete_insn_classify(0x5500ffff, TRAWL_ISET_A64, 0, 1, &ii);
	assert_true(ii.cls == TRAWL_ETE_INSN_IBR && (ii.flags & TRAWL_ETE_INSN_RET));
	trawl_ete_insn_classify(0x5520001f, TRAWL_ISET_A64, 0, 1, &ii);
	assert_true(ii.cls == TRAWL_ETE_INSN_IBR && (ii.flags & TRAWL_ETE_INSN_RET));
	/* Armv8.1-M (T32, first halfword in the low half): WLS lr, r0, +8
	 * (f040 c005) is a conditional branch forward, not a BL; LE lr, -6
	 * (f00f c803: immh 1, imml 1) back; LE without LR (f02f c803) is
	 * unconditional; DLS lr, r0 (f040 e001) and LCTP (f00f e001) are not
	 * branches */
	trawl_ete_insn_classify(0xc005f040, TRAWL_ISET_T32, 0x1000, 1, &ii);
	assert_true(ii.cls == TRAWL_ETE_INSN_BR && (ii.flags & TRAWL_ETE_INSN_COND) &&
		    !(ii.flags & TRAWL_ETE_INSN_LINK) && ii.target == 0x100c);
	trawl_ete_insn_classify(0xc803f00f, TRAWL_ISET_T32, 0x1006, 1, &ii);
	assert_true(ii.cls == TRAWL_ETE_INSN_BR && (ii.flags & TRAWL_ETE_INSN_COND) &&
		    ii.target == 0x1004);
	trawl_ete_insn_classify(0xc803f02f, TRAWL_ISET_T32, 0x1006, 1, &ii);
	assert_true(ii.cls == TRAWL_ETE_INSN_BR && !(ii.flags & TRAWL_ETE_INSN_COND));
	trawl_ete_insn_classify(0xe001f040, TRAWL_ISET_T32, 0x1000, 1, &ii);
	assert_int_equal(ii.cls, TRAWL_ETE_INSN_OTHER);
	trawl_ete_insn_classify(0xe001f00f, TRAWL_ISET_T32, 0x1000, 1, &ii);
	assert_int_equal(ii.cls, TRAWL_ETE_INSN_OTHER);
	/* RET, ERET, BLR x1, ISB, WFI (ETE only), TSTART x0, NOP */
	trawl_ete_insn_classify(0xd65f03c0, TRAWL_ISET_A64, 0, 1, &ii);
	assert_true(ii.cls == TRAWL_ETE_INSN_IBR && (ii.flags & TRAWL_ETE_INSN_RET));
	trawl_ete_insn_classify(0xd69f03e0, TRAWL_ISET_A64, 0, 1, &ii);
	assert_true(ii.flags & TRAWL_ETE_INSN_ERET);
	trawl_ete_insn_classify(0xd63f0020, TRAWL_ISET_A64, 0, 1, &ii);
	assert_true(ii.cls == TRAWL_ETE_INSN_IBR && (ii.flags & TRAWL_ETE_INSN_LINK));
	trawl_ete_insn_classify(0xd5033fdf, TRAWL_ISET_A64, 0, 1, &ii);
	assert_int_equal(ii.cls, TRAWL_ETE_INSN_ISB);
	trawl_ete_insn_classify(0xd503207f, TRAWL_ISET_A64, 0, 1, &ii);
	assert_int_equal(ii.cls, TRAWL_ETE_INSN_WFI);
	trawl_ete_insn_classify(0xd503207f, TRAWL_ISET_A64, 0, 0, &ii);
	assert_int_equal(ii.cls, TRAWL_ETE_INSN_OTHER);
	trawl_ete_insn_classify(0xd5233060, TRAWL_ISET_A64, 0, 1, &ii);
	assert_int_equal(ii.cls, TRAWL_ETE_INSN_TSTART);
	trawl_ete_insn_classify(0xd503201f, TRAWL_ISET_A64, 0, 1, &ii);
	assert_int_equal(ii.cls, TRAWL_ETE_INSN_OTHER);
	/* A32: BL at 0x8000 with imm24 = 2: target 0x8000 + 8 + 8 */
	trawl_ete_insn_classify(0xeb000002, TRAWL_ISET_A32, 0x8000, 1, &ii);
	assert_true(ii.cls == TRAWL_ETE_INSN_BR && ii.target == 0x8010 && (ii.flags & TRAWL_ETE_INSN_LINK));
	trawl_ete_insn_classify(0x1a00001e, TRAWL_ISET_A32, 0x1000, 1, &ii); /* BNE */
	assert_true(ii.flags & TRAWL_ETE_INSN_COND);
	assert_true(ii.target == 0x1000 + 8 + 0x78);
	trawl_ete_insn_classify(0xe12fff1e, TRAWL_ISET_A32, 0, 1, &ii); /* BX LR */
	assert_true(ii.cls == TRAWL_ETE_INSN_IBR && (ii.flags & TRAWL_ETE_INSN_RET));
	trawl_ete_insn_classify(0xe8bd8010, TRAWL_ISET_A32, 0, 1, &ii); /* POP {r4, pc} */
	assert_true(ii.cls == TRAWL_ETE_INSN_IBR && (ii.flags & TRAWL_ETE_INSN_RET));
	trawl_ete_insn_classify(0xe1a0f00e, TRAWL_ISET_A32, 0, 1, &ii); /* MOV pc, lr */
	assert_true(ii.cls == TRAWL_ETE_INSN_IBR && (ii.flags & TRAWL_ETE_INSN_RET));
	trawl_ete_insn_classify(0xe3500000, TRAWL_ISET_A32, 0, 1, &ii); /* CMP r0, #0 */
	assert_int_equal(ii.cls, TRAWL_ETE_INSN_OTHER);
	/* T32 16-bit: B.N -4 (0xe7fe at 0x100: target 0x100 + 4 - 4), BX LR, POP {pc} */
	trawl_ete_insn_classify(0xe7fe, TRAWL_ISET_T32, 0x100, 1, &ii);
	assert_true(ii.size == 2 && ii.cls == TRAWL_ETE_INSN_BR && ii.target == 0x100);
	trawl_ete_insn_classify(0x4770, TRAWL_ISET_T32, 0, 1, &ii);
	assert_true(ii.cls == TRAWL_ETE_INSN_IBR && (ii.flags & TRAWL_ETE_INSN_RET));
	trawl_ete_insn_classify(0xbd10, TRAWL_ISET_T32, 0, 1, &ii);
	assert_true(ii.flags & TRAWL_ETE_INSN_RET);
	/* T32 32-bit BL +0x100 at 0x200: hw1 0xf000, hw2 0xf880 */
	trawl_ete_insn_classify(0xf880f000, TRAWL_ISET_T32, 0x200, 1, &ii);
	assert_true(ii.size == 4 && ii.cls == TRAWL_ETE_INSN_BR && (ii.flags & TRAWL_ETE_INSN_LINK));
	assert_true(ii.target == 0x200 + 4 + 0x100);
	/* T32 CBZ r0, +4 at 0x300: 0xb110 -> i:imm5 = 0:00010 -> 4 */
	trawl_ete_insn_classify(0xb110, TRAWL_ISET_T32, 0x300, 1, &ii);
	assert_true(ii.target == 0x300 + 4 + 4);
}

/* ---- flow decoder with speculation */

struct elems {
	struct trawl_ete_elem e[64];
	size_t n;
};

static void on_elem(void *ctx, const struct trawl_ete_elem *e)
{
	struct elems *s = ctx;
	if (s->n < 64 && e->type == TRAWL_ETE_EL_RANGE)
		s->e[s->n++] = *e;
}

static struct trawl_ete_packet pk(int type)
{
	struct trawl_ete_packet p;
	memset(&p, 0, sizeof p);
	p.type = (uint8_t)type;
	return p;
}

static struct trawl_ete_packet atom(int taken)
{
	struct trawl_ete_packet p = pk(TRAWL_ETE_PKT_ATOM_F1);
	p.natoms = 1;
	p.atoms = (uint32_t)taken;
	return p;
}

/* One flow decoder fed packet batches step by step (commit, cancel,
 * mispredict, the MaxSpec depth, the end of trace), with the elements
 * checked after each step: one story, so one function. */
static void test_flow_speculation(void **state)
{
	(void)state;
	/* nop; b.ne 0x100c; nop; ret  at 0x1000 */
	static const uint8_t prog[] = { 0x1f, 0x20, 0x03, 0xd5, 0x41, 0x00, 0x00, 0x54,
					0x1f, 0x20, 0x03, 0xd5, 0xc0, 0x03, 0x5f, 0xd6 };
	struct trawl_ete_image *img;
	struct trawl_ete_flow *f;
	struct trawl_ete_config cfg;
	struct elems got;
	trawl_ete_config_default(&cfg);
	cfg.idr8 = 8; /* up to 8 P0 elements held */
	assert_int_equal(trawl_ete_config_derive(&cfg, NULL), TRAWL_OK);
	assert_int_equal(trawl_ete_image_create(&img, NULL), TRAWL_OK);
	assert_int_equal(trawl_ete_image_add(img, 0x1000, prog, sizeof prog, "prog", NULL), TRAWL_OK);
	memset(&got, 0, sizeof got);
	assert_int_equal(trawl_ete_flow_create(&f, &cfg, img, on_elem, &got, NULL), TRAWL_OK);
	struct trawl_ete_packet p[16];
	size_t n = 0;
	p[n++] = pk(TRAWL_ETE_PKT_TRACE_INFO);
	p[n] = pk(TRAWL_ETE_PKT_ADDR_CTXT_L_64IS0);
	p[n].addr = 0x1000;
	p[n].flags = TRAWL_ETE_PF_HAS_ADDR | TRAWL_ETE_PF_HAS_CTX;
	p[n].ctx.el = 1;
	p[n++].ctx.sf = 1;
	p[n++] = atom(0);              /* b.ne not taken: [0x1000,0x1008) */
	p[n++] = atom(1);              /* speculative E, to be cancelled */
	trawl_ete_flow_packets(f, p, n);
	assert_int_equal(got.n, 0);    /* nothing committed yet */
	n = 0;
	p[n] = pk(TRAWL_ETE_PKT_CANCEL_F1);
	p[n++].count = 1;              /* drops the E */
	p[n] = pk(TRAWL_ETE_PKT_COMMIT);
	p[n++].count = 1;              /* releases the N */
	trawl_ete_flow_packets(f, p, n);
	assert_int_equal(got.n, 1);
	assert_true(got.e[0].start == 0x1000 && got.e[0].end == 0x1008);
	assert_int_equal(got.e[0].count, 2);
	assert_int_equal(got.e[0].taken, 0);
	/* the cancelled E never ran: the next atom is on the ret at 0x100c */
	n = 0;
	p[n++] = atom(0);              /* N ... */
	p[n++] = pk(TRAWL_ETE_PKT_MISPREDICT); /* ... was really E */
	p[n] = pk(TRAWL_ETE_PKT_COMMIT);
	p[n++].count = 1;
	trawl_ete_flow_packets(f, p, n);
	assert_int_equal(got.n, 2);
	assert_true(got.e[1].start == 0x1008 && got.e[1].end == 0x1010);
	assert_int_equal(got.e[1].taken, 1);
	/* depth: 9 uncommitted atoms > MaxSpec 8 releases the oldest */
	n = 0;
	p[n] = pk(TRAWL_ETE_PKT_ADDR_L_64IS0);
	p[n].addr = 0x1000;
	p[n++].flags = TRAWL_ETE_PF_HAS_ADDR;
	for (int i = 0; i < 9; i++)
		p[n++] = atom(0);
	trawl_ete_flow_packets(f, p, n);
	assert_int_equal(got.n, 3);
	assert_true(got.e[2].start == 0x1000 && got.e[2].end == 0x1008);
	/* end of trace: speculative atoms are not reported */
	trawl_ete_flow_finish(f);
	assert_int_equal(got.n, 3);
	trawl_ete_flow_destroy(f);
	trawl_ete_image_destroy(img);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_deformat),
		cmocka_unit_test(test_tpiu),
		cmocka_unit_test(test_stray_and_barrier),
		cmocka_unit_test(test_trbe),
		cmocka_unit_test(test_settings_files),
		cmocka_unit_test(test_ini),
		cmocka_unit_test(test_classify),
		cmocka_unit_test(test_flow_speculation),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
