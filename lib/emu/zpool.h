/* A pool of threads that compress the blocks of a .zst trace, each block
 * an independent zstd frame, and write the frames to the file in the order
 * the blocks were handed over (lib/emu/zpool.c). */
#ifndef TRAWL_EMU_ZPOOL_H
#define TRAWL_EMU_ZPOOL_H

#include <stddef.h>
#include <stdint.h>
#include <zstd.h>

#include "trawl/status.h"

struct emu_zpool;

/* Start `threads` (>= 1) compressors writing to fd; path names the file in
 * messages. `setup` is called once on each compressor's context to give it
 * the parameters of the stream (level, window...). Nothing is written yet. */
enum trawl_status emu_zpool_open(struct emu_zpool **out, int fd, const char *path, int threads,
				 void (*setup)(ZSTD_CCtx *cc), struct trawl_error *err);
/* The pool takes the malloc'd block *buf (len bytes of text in cap) and puts
 * in *buf another block of cap bytes for the caller to fill (one the pool has
 * finished with, or a new one); the caller owns that one and frees it. It
 * waits while every slot is in flight. On an error (this call's, or a
 * compressor's or a write's since) *buf stays the caller's and nothing is
 * taken; later blocks are refused the same way. */
enum trawl_status emu_zpool_take(struct emu_zpool *z, char **buf, size_t len, size_t cap,
				 struct trawl_error *err);
/* Compress and write every block taken (finish = 1) or drop those not yet
 * written (finish = 0), stop the threads and free the pool. With finish, a
 * pool that was given no text writes one empty frame, so the file is still
 * a valid .zst. *written: bytes written to fd. The first error of the pool's
 * life is returned. */
enum trawl_status emu_zpool_close(struct emu_zpool *z, int finish, uint64_t *written,
				  struct trawl_error *err);

#endif
