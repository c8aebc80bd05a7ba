/* NEON code: a dot product and saxpy with 128-bit loads and stores, an RGB
 * de-interleave with LD3/ST3 and a four-way interleave with ST4, so traces
 * show Q registers and multi-register SIMD memory accesses, and a vector
 * division whose inexact results set FPSR's cumulative flags.
 *   simd [N]   (elements, default 1024, rounded up to a multiple of 16) */
#include <arm_neon.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

static float dot(const float *a, const float *b, size_t n)
{
	float32x4_t acc = vdupq_n_f32(0);
	for (size_t i = 0; i < n; i += 4)
		acc = vfmaq_f32(acc, vld1q_f32(a + i), vld1q_f32(b + i));
	return vaddvq_f32(acc);
}

static void saxpy(float *y, const float *x, float k, size_t n)
{
	for (size_t i = 0; i < n; i += 4)
		vst1q_f32(y + i, vfmaq_n_f32(vld1q_f32(y + i), vld1q_f32(x + i), k));
}

/* rgb: 3*n bytes interleaved -> gray n bytes, and back out as RGBA */
static void rgb_to_rgba_gray(const uint8_t *rgb, uint8_t *rgba, uint8_t *gray, size_t n)
{
	for (size_t i = 0; i < n; i += 16) {
		uint8x16x3_t p = vld3q_u8(rgb + 3 * i);
		uint16x8_t lo = vmull_u8(vget_low_u8(p.val[0]), vdup_n_u8(77));
		lo = vmlal_u8(lo, vget_low_u8(p.val[1]), vdup_n_u8(150));
		lo = vmlal_u8(lo, vget_low_u8(p.val[2]), vdup_n_u8(29));
		uint16x8_t hi = vmull_u8(vget_high_u8(p.val[0]), vdup_n_u8(77));
		hi = vmlal_u8(hi, vget_high_u8(p.val[1]), vdup_n_u8(150));
		hi = vmlal_u8(hi, vget_high_u8(p.val[2]), vdup_n_u8(29));
		uint8x16_t g = vcombine_u8(vshrn_n_u16(lo, 8), vshrn_n_u16(hi, 8));
		vst1q_u8(gray + i, g);
		uint8x16x4_t q = { { p.val[0], p.val[1], p.val[2], g } };
		vst4q_u8(rgba + 4 * i, q);
	}
}

/* thirds are inexact in binary: sets FPSR's cumulative IXC flag */
static float thirds(const float *a, size_t n)
{
	float32x4_t acc = vdupq_n_f32(0), three = vdupq_n_f32(3.0f);
	for (size_t i = 0; i < n && i < 64; i += 4)
		acc = vaddq_f32(acc, vdivq_f32(vld1q_f32(a + i), three));
	return vaddvq_f32(acc);
}

int main(int argc, char **argv)
{
	size_t n = argc > 1 ? strtoul(argv[1], NULL, 0) : 1024;
	n = (n + 15) & ~(size_t)15;
	if (n == 0)
		n = 16;
	float *a = malloc(n * sizeof *a), *b = malloc(n * sizeof *b);
	uint8_t *rgb = malloc(3 * n), *rgba = malloc(4 * n), *gray = malloc(n);
	if (!a || !b || !rgb || !rgba || !gray)
		return 1;
	for (size_t i = 0; i < n; i++) {
		a[i] = (float)(i % 17) * 0.5f;
		b[i] = (float)(i % 5) - 2.0f;
	}
	for (size_t i = 0; i < 3 * n; i++)
		rgb[i] = (uint8_t)(i * 13);
	float d = dot(a, b, n);
	saxpy(b, a, 0.25f, n);
	float d2 = dot(a, b, n);
	float t = thirds(a, n);
	rgb_to_rgba_gray(rgb, rgba, gray, n);
	unsigned sum = 0;
	for (size_t i = 0; i < 4 * n; i++)
		sum = sum * 33 + rgba[i];
	printf("n %zu dot %.2f after saxpy %.2f thirds %.3f rgba hash %08x gray[5] %u\n", n, d,
	       d2, t, sum, gray[5]);
	return 0;
}
